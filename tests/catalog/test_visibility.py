"""Who sees which tool: one rule for tools/list and tools/call (docs/admin.md).

Each part of the rule (the admin's switch, allowed groups, the view's permission classes,
a permission class that can't answer) is shown through the official MCP Python SDK over
real HTTP, in both eras, and the lower-level cases through MCPClient.
"""

import asyncio
import logging
import types

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import include, path, reverse
from mcp import MCPError
from rest_framework import generics
from rest_framework.permissions import (
    BasePermission,
    DjangoModelPermissions,
    DjangoObjectPermissions,
)
from rest_framework.response import Response
from rest_framework.views import APIView

from demo_project.todos.models import Todo
from demo_project.todos.serializers import TodoSerializer
from mcp_tools import expose
from mcp_tools.models import ExposedTool
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView
from tests.sdk import Wire, connect
from tests.wire import validate_exchange

MODES = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


async def names_and_call(url, token, mode, tool, arguments=None, wire=None):
    """List the tools the caller sees, then call ``tool``: (names, result or MCPError)."""
    async with connect(url, token=token, mode=mode, wire=wire) as client:
        names = {listed.name for listed in (await client.list_tools()).tools}
        try:
            outcome = await client.call_tool(tool, arguments or {})
        except MCPError as error:
            outcome = error
    return names, outcome


def assert_unknown(outcome, name):
    assert isinstance(outcome, MCPError), outcome
    assert (outcome.code, outcome.message) == (-32602, f"Unknown tool: {name}")


@pytest.fixture
def mcp_url(live_server):
    return f"{live_server.url}/mcp"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "version"), MODES)
def test_a_disabled_tool_is_neither_listed_nor_callable(mcp_url, alice, mode, version):
    wire = Wire()
    names, outcome = run(names_and_call(mcp_url, alice.token, mode, "todo_list", wire=wire))
    assert "todo_list" in names and outcome.is_error is False

    row = ExposedTool.objects.get(name="todo_list")
    row.enabled = False
    row.save()  # as the admin saves it: published once the change commits
    names, outcome = run(names_and_call(mcp_url, alice.token, mode, "todo_list", wire=wire))
    assert "todo_list" not in names and "todo_create" in names
    assert_unknown(outcome, "todo_list")
    for request, status, _, body in wire.posts():
        validate_exchange(version, request, status, body)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "version"), MODES)
def test_a_tool_restricted_to_groups_is_seen_by_their_members_only(mcp_url, alice, mode, version):
    ops = Group.objects.create(name="ops")
    ExposedTool.objects.get(name="todo_create").allowed_groups.add(ops)  # publishes on commit
    names, outcome = run(names_and_call(mcp_url, alice.token, mode, "todo_create", {"title": "x"}))
    assert "todo_create" not in names and "todo_list" in names
    assert_unknown(outcome, "todo_create")

    alice.groups.add(ops)
    names, outcome = run(names_and_call(mcp_url, alice.token, mode, "todo_create", {"title": "x"}))
    assert "todo_create" in names
    assert outcome.is_error is False and outcome.structured_content["title"] == "x"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "version"), MODES)
def test_the_views_permission_classes_decide_who_sees_a_tool(mcp_url, alice, mode, version):
    # staff_only's view has IsAdminUser: a non-staff caller never learns it exists.
    names, outcome = run(names_and_call(mcp_url, alice.token, mode, "staff_only"))
    assert "staff_only" not in names
    assert_unknown(outcome, "staff_only")

    alice.is_staff = True
    alice.save()
    names, outcome = run(names_and_call(mcp_url, alice.token, mode, "staff_only"))
    assert "staff_only" in names
    assert outcome.structured_content == {"staff": True}


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("tests.registry_endpoint_urls")
@pytest.mark.parametrize(("mode", "version"), MODES)
def test_a_restriction_of_a_custom_registrys_tool_holds_for_its_endpoints_callers(
    live_server, alice, django_user_model, mode, version
):
    # partner_quote is served by /partner/mcp, MCPView.as_view(registry=partner). Its row
    # was made by hand before a sync knew of the tool (flagged as no longer registered).
    ops = Group.objects.create(name="ops")
    row = ExposedTool.objects.create(name="partner_quote", registered=False)
    row.allowed_groups.add(ops)
    root = django_user_model.objects.create_superuser("root", "root@example.com", "root-pw")
    admin = Client()
    admin.force_login(root)
    assert admin.get("/admin/mcp_tools/exposedtool/").status_code == 200  # it syncs
    delete = admin.post(
        reverse("admin:mcp_tools_exposedtool_delete", args=[row.pk]), {"post": "yes"}
    )

    # The rules stay: the row is the registered tool's, and deleting it is refused.
    url, wire = f"{live_server.url}/partner/mcp", Wire()
    names, outcome = run(names_and_call(url, alice.token, mode, "partner_quote", {"pk": 2}, wire))
    assert "partner_quote" not in names
    assert_unknown(outcome, "partner_quote")
    alice.groups.add(ops)
    names, outcome = run(names_and_call(url, alice.token, mode, "partner_quote", {"pk": 2}, wire))
    assert names == {"partner_quote"}
    assert outcome.structured_content == {"pk": 2, "price": 20, "user": "alice"}
    for request, status, _, body in wire.posts():
        validate_exchange(version, request, status, body)
    # Refused with the rule: back to the tool's page, which says it.
    assert delete.status_code == 302
    assert delete.url == reverse("admin:mcp_tools_exposedtool_change", args=[row.pk])
    assert ExposedTool.objects.get(name="partner_quote").registered is True


class NeedsAQueryset(APIView):
    """A view whose permission class can't answer before the view builds its queryset."""

    permission_classes = [DjangoModelPermissions]

    def get(self, request):
        return Response({"ok": True})


@pytest.fixture
def raising_endpoint(settings):
    local = ToolRegistry()
    mcp_tool("needs_a_queryset", registry=local)(NeedsAQueryset)
    module = types.ModuleType("raising_permission_urls")
    module.urlpatterns = [
        path("q/", NeedsAQueryset.as_view()),
        path("api/", include("demo_project.todos.urls")),
        path("mcp", MCPView.as_view(registry=local)),
    ]
    settings.ROOT_URLCONF = module
    return local


@pytest.mark.django_db(transaction=True)
def test_a_permission_class_that_raises_counts_as_visible_with_a_warning(
    raising_endpoint, live_server, alice, caplog
):
    caplog.set_level(logging.WARNING, "mcp_tools")
    names, outcome = run(
        names_and_call(f"{live_server.url}/mcp", alice.token, "legacy", "needs_a_queryset")
    )
    assert names == {"needs_a_queryset"}
    # The view itself then runs its permission class, which fails: a masked error.
    assert outcome.is_error is True
    assert outcome.content[0].text == "Internal server error"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert (
        warnings.count(
            "Tool needs_a_queryset: its permission classes raised on has_permission; it is listed "
            "to every caller and the view decides when it runs"
        )
        == 1
    )


@pytest.mark.django_db
def test_the_system_check_names_a_permission_class_that_raises(raising_endpoint):
    from mcp_tools.checks import check_permissions

    (message,) = check_permissions(registry=raising_endpoint)
    assert message.id == "mcp_tools.W030"
    assert message.msg.startswith(
        "Tool 'needs_a_queryset': its permission classes raised AssertionError: "
    )
    assert message.hint.startswith("Make has_permission() answer without the object")


# Through MCPClient: the rule's details ---------------------------------------------------


@pytest.mark.django_db
def test_a_hidden_tool_is_refused_before_its_arguments_are_read(mcp):
    ExposedTool.objects.filter(name="todo_create").update(enabled=False)
    from mcp_tools.catalog.admin_state import publish

    publish()
    # Arguments that would fail validation: the answer must not tell that the tool exists.
    answer = mcp.answer_of(
        mcp.send(mcp.message("tools/call", {"name": "todo_create", "arguments": {"x": 1}}))
    )
    assert answer["error"] == {"code": -32602, "message": "Unknown tool: todo_create"}


@pytest.mark.django_db
def test_the_list_is_private_when_it_depends_on_the_caller(modern_mcp, anonymous_mcp, settings):
    assert modern_mcp.rpc("tools/list")["cacheScope"] == "private"  # an authenticated caller
    # An anonymous caller of an open endpoint who is not shown every tool: private too.
    settings.MCP_TOOLS = {
        "AUTHENTICATION_CLASSES": [],
        "PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
        "CACHE": "mcp",
    }
    anonymous_mcp.protocol_version = "2026-07-28"
    result = anonymous_mcp.rpc("tools/list")
    assert "todo_list" not in {tool["name"] for tool in result["tools"]}
    assert result["cacheScope"] == "private"


@pytest.mark.django_db
def test_a_deleted_group_never_opens_the_tools_restricted_to_it(mcp, alice):
    ops, other = Group.objects.create(name="ops"), Group.objects.create(name="other")
    only_ops = ExposedTool.objects.get(name="todo_create")
    both = ExposedTool.objects.get(name="todo_update")
    only_ops.allowed_groups.add(ops)
    both.allowed_groups.add(ops, other)
    ops.delete()
    only_ops.refresh_from_db()
    both.refresh_from_db()
    assert only_ops.enabled is False and not only_ops.allowed_groups.exists()
    assert both.enabled is True and list(both.allowed_groups.all()) == [other]


@pytest.mark.django_db
def test_visibility_is_read_once_per_request(mcp, django_assert_max_num_queries):
    mcp.list_tools()  # the admin state, loaded once for this version
    # A warm list costs the endpoint's token check and the view permissions' own reads.
    with django_assert_max_num_queries(2):
        mcp.list_tools()


@pytest.mark.django_db
def test_tools_hidden_by_the_admin_are_refused_with_the_work_of_an_unknown_name(mcp):
    # The same reads, so the same time: refusing a group-restricted or a disabled tool must
    # not tell it from a name that is no tool (each reads the caller's groups, once per
    # request). The call log keeps a known tool's refusal, written once the answer has
    # left (docs/calllog.md): not a read of the answer.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from mcp_tools.catalog.admin_state import publish
    from mcp_tools.models import ToolCall

    ExposedTool.objects.get(name="todo_create").allowed_groups.add(Group.objects.create(name="ops"))
    ExposedTool.objects.filter(name="todo_list").update(enabled=False)
    publish()
    mcp.list_tools()  # the admin state, loaded once for this version
    answers = {}
    for name in ("todo_create", "todo_list", "no_such_tool"):
        with CaptureQueriesContext(connection) as queries:
            answers[name] = mcp.answer_of(mcp.send(mcp.message("tools/call", {"name": name})))
        reads = [each["sql"] for each in queries.captured_queries]
        # Less the call log's write after the answer: its INSERT (executemany: "1 times:
        # INSERT ...") and its daily summary's, in a savepoint.
        reads = [
            sql
            for sql in reads
            if 'INSERT INTO "mcp_tools_toolcall' not in sql
            and not sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
        ]
        assert len(reads) == 2  # the token, the caller's groups
        assert "auth_user_groups" in reads[-1]
    for name, answer in answers.items():
        assert answer["error"]["message"] == f"Unknown tool: {name}"
    logged = ToolCall.objects.values_list("tool_name", "refusal")
    assert sorted(logged) == [("todo_create", "hidden"), ("todo_list", "hidden")]


# -- explain(): why a caller doesn't see a tool, for admin's Try it ---------------------------


def exchange_for(user, name):
    """Return an exchange of ``user`` (as ``mcp_call --user`` acts as them) with the
    endpoint that serves ``name``, and the tool."""
    from mcp_tools.auth.caller import Caller
    from mcp_tools.endpoint import local
    from mcp_tools.endpoint.exchange import Exchange

    path, endpoint = local.mounted_endpoint(tool=name)
    exchange = Exchange(local.endpoint_request(path), Caller.acting_as(user), endpoint)
    return exchange, exchange.catalog.tools[name]


@pytest.mark.django_db
@pytest.mark.urls("tests.admin_tryit_urls")
def test_explain_gives_every_reason_sees_refuses_and_none_when_it_admits(
    alice, django_capture_on_commit_callbacks
):
    from mcp_tools.catalog.sync import sync_tools
    from mcp_tools.catalog.visibility import Reason, explain
    from mcp_tools.endpoint.mounts import served_registries

    sync_tools(*served_registries())
    billing = Group.objects.create(name="billing")
    with django_capture_on_commit_callbacks(execute=True):
        row = ExposedTool.objects.get(name="shop_refund")
        row.enabled = False
        row.save()
        row.allowed_groups.set([billing])
    exchange, tool = exchange_for(alice, "shop_refund")
    rule = exchange.catalog.rule("shop_refund")
    assert explain(exchange.visibility, tool, rule) == [
        Reason("disabled"),
        Reason("groups", (billing.pk,)),
        Reason("permission", ("IsBillingTeam",), "Only the billing team may refund."),
    ]
    assert not exchange.visibility.sees(tool, exchange.catalog)

    alice.groups.add(billing)
    with django_capture_on_commit_callbacks(execute=True):
        row.enabled = True
        row.save()
    exchange, tool = exchange_for(alice, "shop_refund")
    assert explain(exchange.visibility, tool, exchange.catalog.rule("shop_refund")) == []
    assert exchange.visibility.sees(tool, exchange.catalog)


def test_a_composed_permission_that_refuses_is_named_by_its_parts():
    # permission_classes = [IsAdminUser | IsOwner] refuses as one instance, of DRF's OR.
    from rest_framework.permissions import BasePermission, IsAdminUser

    from mcp_tools.catalog.visibility import Reason

    class IsOwner(BasePermission):
        pass

    refusing = (IsAdminUser | ~IsOwner)()
    assert Reason.of_permission(refusing) == Reason(
        "permission", ("IsAdminUser or not IsOwner",), ""
    )


# -- DRF's model permissions: the declared queryset's model, not get_queryset() --------------


class TokenWritePermissions(DjangoObjectPermissions):
    """As NetBox's and Nautobot's ``TokenPermissions``: a subclass that adds a rule of its own
    to DRF's ``has_permission``, so it can't share an answer with another view's."""

    def has_permission(self, request, view):
        return request.user.is_authenticated and super().has_permission(request, view)


class OwnTodos(generics.ListCreateAPIView):
    """The caller's todos, or a new one (DRF's model permissions: adding needs add_todo)."""

    queryset = Todo.objects.all()
    serializer_class = TodoSerializer
    permission_classes = [DjangoModelPermissions]
    built = 0

    def get_queryset(self):
        # Counted: what the view builds when it runs, and never for a listing.
        type(self).built += 1
        return super().get_queryset().filter(owner=self.request.user)

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)


class OwnTodo(generics.RetrieveDestroyAPIView):
    """One of the caller's todos (a subclass of DRF's object permissions)."""

    queryset = Todo.objects.all()
    serializer_class = TodoSerializer
    permission_classes = [TokenWritePermissions]

    def get_queryset(self):
        OwnTodos.built += 1
        return super().get_queryset().filter(owner=self.request.user)


class DoneTodos(generics.ListAPIView):
    """The todos done, anyone's: the model and permission class of ``OwnTodos``."""

    queryset = Todo.objects.filter(done=True)
    serializer_class = TodoSerializer
    permission_classes = [DjangoModelPermissions]


class HasOwnTodos(BasePermission):
    """A project's own class that reads what the view's get_queryset() builds."""

    def has_permission(self, request, view):
        return view.get_queryset().exists()


class WithOwnTodos(generics.ListAPIView):
    """The caller's todos, for callers who have some."""

    queryset = Todo.objects.all()
    serializer_class = TodoSerializer
    permission_classes = [DjangoModelPermissions, HasOwnTodos]

    def get_queryset(self):
        return super().get_queryset().filter(owner=self.request.user)


@pytest.fixture
def model_permission_endpoint(settings):
    local = ToolRegistry()
    for view in (OwnTodos, OwnTodo, DoneTodos, WithOwnTodos):
        expose(view, registry=local)
    module = types.ModuleType("model_permission_urls")
    module.urlpatterns = [
        path("todos/", OwnTodos.as_view()),
        path("todos/<int:pk>/", OwnTodo.as_view()),
        path("done/", DoneTodos.as_view()),
        path("with-own/", WithOwnTodos.as_view()),
        path("mcp", MCPView.as_view(registry=local)),
    ]
    settings.ROOT_URLCONF = module
    OwnTodos.built = 0
    return local


@pytest.mark.django_db(transaction=True)
def test_model_permissions_are_asked_of_the_declared_model_without_building_the_queryset(
    model_permission_endpoint, live_server, alice
):
    from django.contrib.auth.models import Permission

    url = f"{live_server.url}/mcp"
    names, _ = run(names_and_call(url, alice.token, "auto", "own_todos_get"))
    # GET needs no model permission in DRF's map, POST add_todo and DELETE delete_todo.
    # with_own_todos: its own class reads the view's real queryset, and alice has no todos.
    assert names == {"own_todos_get", "own_todo_get", "done_todos"}
    # The view's own two when it runs (its permission check, its list), as for a direct
    # GET; none for the listing or the call's visibility.
    assert OwnTodos.built == 2
    alice.user_permissions.add(
        Permission.objects.get(codename="add_todo"), Permission.objects.get(codename="delete_todo")
    )
    wire = Wire()
    names, created = run(
        names_and_call(url, alice.token, "auto", "own_todos_post", {"title": "Ship"}, wire)
    )
    assert names == {
        "own_todos_get",
        "own_todos_post",
        "own_todo_get",
        "own_todo_delete",
        "done_todos",
    }
    assert created.is_error is False and created.structured_content["title"] == "Ship"
    assert OwnTodos.built == 3  # the create's own permission check
    names, _ = run(names_and_call(url, alice.token, "auto", "with_own_todos"))
    assert "with_own_todos" in names  # now that she has a todo
    for request, status, _, body in wire.posts():
        validate_exchange("2026-07-28", request, status, body)


@pytest.mark.django_db
def test_drfs_own_model_permissions_share_one_answer_per_model_and_method(
    model_permission_endpoint, alice
):
    from mcp_tools.catalog.visibility import access_key, plan_for

    tools = {tool.name: tool for tool in model_permission_endpoint.tools()}
    # The same classes, method and model: one key; the subclass of its own: asked alone.
    assert access_key(tools["done_todos"]) == access_key(tools["own_todos_get"])
    assert access_key(tools["own_todos_get"]) is not None
    assert access_key(tools["own_todos_get"]) != access_key(tools["own_todos_post"])
    assert access_key(tools["own_todo_get"]) is None

    exchange, _ = exchange_for_endpoint(alice, model_permission_endpoint)
    asked = []
    visibility = exchange.visibility
    permitted = visibility.permitted
    visibility.permitted = lambda tool: asked.append(tool.name) or permitted(tool)
    catalog = exchange.catalog
    assert plan_for(catalog).uncached is True  # own_todo_*: their class is the project's
    for _ in range(2):  # asked once per request, however often a page and its names ask
        assert [t.name for t in catalog if visibility.sees(t, catalog)] == [
            "own_todos_get",
            "own_todo_get",
            "done_todos",
        ]
    # done_todos shares own_todos_get's answer.
    assert sorted(asked) == sorted(set(tools) - {"done_todos"})
    assert OwnTodos.built == 0


def exchange_for_endpoint(user, registry):
    """Return an exchange of ``user`` with the endpoint of ``registry`` mounted at /mcp."""
    from mcp_tools.auth.caller import Caller
    from mcp_tools.endpoint import local
    from mcp_tools.endpoint.exchange import Exchange

    path, endpoint = local.mounted_endpoint(tool=next(iter(registry.tools())).name)
    return Exchange(local.endpoint_request(path), Caller.acting_as(user), endpoint), endpoint
