"""Who the view's request is: the caller handed over where the view's own classes already
accepted them, and never beyond what those classes accept (docs/security.md).

Through MCPClient for the queries a call makes, and through the official Python SDK over
real HTTP for what the view sees.
"""

from __future__ import annotations

import types

import anyio
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.middleware.csrf import get_token
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import path
from rest_framework.authentication import (
    BaseAuthentication,
    SessionAuthentication,
    TokenAuthentication,
)
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import IsAdminUser, IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool
from mcp_tools.test import MCPClient, MCPError
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView
from tests.helpers import MODERN
from tests.sdk import connect
from tests.tasks.test_store import EXTENSION

pytestmark = pytest.mark.django_db

#: The tools of this module's endpoint alone: the project's checks see only its own.
registry = ToolRegistry()

#: An endpoint that reads no credentials: each view authenticates its own (the bench's
#: pattern, and a site's whose views take other credentials than its endpoint).
OPEN_ENDPOINT = {
    "AUTHENTICATION_CLASSES": [],
    "PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
}


def seen_by(request):
    return {
        "user": request.user.username,
        "authenticator": type(request.successful_authenticator).__name__,
    }


@mcp_tool("handover_whoami", registry=registry)
class WhoAmIView(APIView):
    """Say who the view's request is (the settings' classes, IsAuthenticated)."""

    def get(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_anyone_reads", registry=registry)
class AnyoneReadsView(APIView):
    """Say who the view's request is, to anyone (IsAuthenticatedOrReadOnly)."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    def get(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_picks_token", registry=registry)
class PicksTokenView(APIView):
    """Pick the token's class in get_authenticators(): the request may decide it."""

    def get_authenticators(self):
        return [TokenAuthentication()]

    def get(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_session_mount", registry=registry)
class SessionMountView(APIView):
    """The settings' classes, narrowed to the session where it is mounted (as_view())."""

    def get(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_admin_mount", registry=registry)
class AdminMountView(APIView):
    """IsAuthenticated, narrowed to staff where it is mounted (as_view())."""

    def get(self, request):
        return Response(seen_by(request))


class MountedAtMCPKey(BaseAuthentication):
    """Accept ``X-Key: k`` as alice on the /mcp path alone: a key bound to a URL."""

    def authenticate(self, request):
        if request.META.get("HTTP_X_KEY") == "k" and request.path == "/mcp":
            return get_user_model().objects.get(username="alice"), None
        return None

    def authenticate_header(self, request):
        return "Key"


@mcp_tool("handover_path_key", registry=registry)
class PathKeyView(APIView):
    """A view whose authentication reads the request's path."""

    authentication_classes = [MountedAtMCPKey]

    def get(self, request):
        return Response(seen_by(request))


class TenantFirst(BaseAuthentication):
    """Refuse a wrong ``X-Tenant-Key`` on the tenant's own URLs; say nothing elsewhere."""

    def authenticate(self, request):
        key = request.META.get("HTTP_X_TENANT_KEY")
        if key is not None and request.path.startswith("/tenant/") and key != "right":
            raise AuthenticationFailed("bad tenant key")
        return None


@mcp_tool("handover_tenant_first", registry=registry)
class TenantFirstView(APIView):
    """A path-reading class before the token's: the token is not all that decides."""

    authentication_classes = [TenantFirst, TokenAuthentication]

    def get(self, request):
        return Response(seen_by(request))


class PathKeyTaskView(APIView):
    """The path-bound key's view, as task tools."""

    authentication_classes = [MountedAtMCPKey]

    @mcp_tool("handover_path_key_optional", task="optional", registry=registry)
    def get(self, request):
        return Response(seen_by(request))

    @mcp_tool("handover_path_key_required", task="required", registry=registry)
    def post(self, request):
        return Response(seen_by(request))


class PicksTokenTaskView(APIView):
    """A view that picks the token's class itself, as a task tool."""

    def get_authenticators(self):
        return [TokenAuthentication()]

    @mcp_tool("handover_picks_token_task", task="required", registry=registry)
    def post(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_patched", registry=registry)
class PatchedView(APIView):
    """The settings' classes, until a test patches them."""

    def get(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_set_token", registry=registry)
class SetTokenView(APIView):
    """The settings' classes, narrowed to a set of the token's where it is mounted."""

    def get(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_set_mount", registry=registry)
class SetMountView(APIView):
    """The settings' classes, narrowed to a set of the session's where it is mounted."""

    def get(self, request):
        return Response(seen_by(request))


@mcp_tool("handover_session_write", registry=registry)
class SessionWriteView(APIView):
    """A write that takes the session alone (DRF checks its CSRF token)."""

    authentication_classes = [SessionAuthentication]

    def post(self, request):
        return Response(seen_by(request))


@pytest.fixture
def urls(settings):
    module = types.ModuleType("handover_urls")
    module.urlpatterns = [
        path("whoami/", WhoAmIView.as_view()),
        path("picks-token/", PicksTokenView.as_view()),
        path("anyone-reads/", AnyoneReadsView.as_view()),
        path(
            "session-mount/",
            SessionMountView.as_view(authentication_classes=[SessionAuthentication]),
        ),
        path("admin-mount/", AdminMountView.as_view(permission_classes=[IsAdminUser])),
        path("path-key/", PathKeyView.as_view()),
        path("set-token/", SetTokenView.as_view(authentication_classes={TokenAuthentication})),
        path("set-mount/", SetMountView.as_view(authentication_classes={SessionAuthentication})),
        path("session-write/", SessionWriteView.as_view()),
        path("tenant/first/", TenantFirstView.as_view()),
        path("path-key-task/", PathKeyTaskView.as_view()),
        path("patched/", PatchedView.as_view()),
        path("picks-token-task/", PicksTokenTaskView.as_view()),
        path("mcp", MCPView.as_view(registry=registry)),
    ]
    settings.ROOT_URLCONF = module
    return module


@pytest.fixture
def open_endpoint(settings, urls):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, **OPEN_ENDPOINT}


def client(**options):
    return MCPClient(mcp_path="/mcp", **options)


def token_queries(queries):
    return [query for query in queries.captured_queries if "authtoken_token" in query["sql"]]


def test_an_open_endpoint_hands_over_whom_the_views_classes_accepted(open_endpoint, alice):
    # Whether alice sees the tool is asked of the view's own classes; the view then gets
    # that answer, and reads the token once, as a direct request does.
    mcp = client(headers={"Authorization": f"Token {alice.token}"})
    with CaptureQueriesContext(connection) as queries:
        result = mcp.call_tool("handover_whoami")
    assert result["structuredContent"] == {
        "user": "alice",
        "authenticator": "ForcedAuthentication",
    }
    assert len(token_queries(queries)) == 1


def test_a_caller_the_views_classes_refuse_is_not_handed_over(open_endpoint, alice):
    # No credentials: no one to hand over, and the tool is hidden, as its view refuses.
    with pytest.raises(MCPError, match="Unknown tool: handover_whoami"):
        client().call_tool("handover_whoami")


def test_an_anonymous_caller_is_never_handed_over(open_endpoint):
    # Its view admits anyone to read: it runs, and its own classes find no credentials, so
    # a refusal further in is a direct call's (401 with its challenge, not 403).
    result = client().call_tool("handover_anyone_reads")
    assert result["structuredContent"] == {"user": "", "authenticator": "NoneType"}


def test_a_view_that_picks_its_authenticators_authenticates_for_itself(open_endpoint, alice):
    # Its authenticators were picked for a request of the endpoint's making: the request it
    # runs on may pick others, so they run again on it.
    mcp = client(headers={"Authorization": f"Token {alice.token}"})
    result = mcp.call_tool("handover_picks_token")
    assert result["structuredContent"] == {"user": "alice", "authenticator": "TokenAuthentication"}


def test_as_view_authentication_classes_are_the_views_own(urls, alice):
    # The class declares the endpoint's classes, its mount only the session's: a token
    # caller is not handed over (a direct call with the token is refused), a session is.
    token = client(headers={"Authorization": f"Token {alice.token}"})
    with pytest.raises(MCPError, match="Unknown tool: handover_session_mount"):
        token.call_tool("handover_session_mount")
    direct = client(headers={"Authorization": f"Token {alice.token}"})
    assert direct.get("/session-mount/").status_code == 403
    session = client(enforce_csrf_checks=False)
    session.force_login(alice)
    assert session.call_tool("handover_session_mount")["structuredContent"] == {
        "user": "alice",
        "authenticator": "ForcedAuthentication",  # the endpoint's session, handed over
    }


def test_as_view_permission_classes_decide_who_sees_the_tool(urls, alice):
    # Its class asks IsAuthenticated, as the whoami tool's does; its mount asks for staff.
    mcp = client(headers={"Authorization": f"Token {alice.token}"})
    names = {tool["name"] for tool in mcp.list_tools()}
    assert "handover_whoami" in names
    assert "handover_admin_mount" not in names
    alice.is_staff = True
    alice.save()
    staff = client(headers={"Authorization": f"Token {alice.token}"})
    assert "handover_admin_mount" in {tool["name"] for tool in staff.list_tools()}


@pytest.mark.django_db(transaction=True)
def test_the_python_sdk_on_an_open_endpoint_is_the_views_user(open_endpoint, live_server, alice):
    async def run():
        async with connect(f"{live_server.url}/mcp", token=alice.token) as client:
            return await client.call_tool("handover_whoami", {})

    result = anyio.run(run)
    assert result.is_error is False
    assert result.structured_content == {
        "user": "alice",
        "authenticator": "ForcedAuthentication",
    }


def test_a_class_that_reads_the_path_authenticates_on_the_views_request(open_endpoint, alice):
    # Its key is good on /mcp, where visibility asked it: not on the view's path, where a
    # direct call is refused. The view is not handed alice; its class refuses, as directly.
    mcp = client(headers={"X-Key": "k"})
    direct = mcp.get("/path-key/")
    assert direct.status_code == 401
    result = mcp.call_tool("handover_path_key")
    assert result["isError"] is True
    assert result["content"][0]["text"] == direct.content.decode()


def test_each_view_is_asked_with_its_own_classes_in_one_request(open_endpoint, alice):
    # One tools/list asks four views of one method: the settings' classes and a set of the
    # token's accept the token; a list and a set of the session's alone don't.
    mcp = client(headers={"Authorization": f"Token {alice.token}"})
    names = {tool["name"] for tool in mcp.list_tools()}
    assert "handover_whoami" in names
    assert "handover_session_mount" not in names
    assert "handover_set_token" in names
    assert "handover_set_mount" not in names
    assert mcp.get("/set-mount/").status_code == 403


def test_a_session_write_on_an_open_endpoint_passes_the_csrf_check(open_endpoint, alice):
    # DRF's CSRF check reads the body's form fields: the copy of the /mcp request that
    # visibility asks parses its JSON, as the endpoint's own request does.
    token = get_token(RequestFactory().get("/"))
    session = client(enforce_csrf_checks=True, headers={"X-CSRFToken": token})
    session.force_login(alice)
    session.cookies["csrftoken"] = token
    result = session.call_tool("handover_session_write")
    assert result["structuredContent"] == {
        "user": "alice",
        "authenticator": "ForcedAuthentication",
    }
    without = client(enforce_csrf_checks=True)
    without.force_login(alice)
    with pytest.raises(MCPError, match="Unknown tool: handover_session_write"):
        without.call_tool("handover_session_write")


def test_why_a_caller_is_refused_names_the_classes_of_the_views_mount(urls, alice):
    # What admin's Try it says of a hidden tool: the session class its mount names, not the
    # classes of its class (which accept the token).
    from mcp_tools.catalog.visibility import Reason, explain
    from mcp_tools.endpoint.exchange import Exchange

    request = RequestFactory().post("/mcp", headers={"Authorization": f"Token {alice.token}"})
    endpoint = MCPView(registry=registry)
    exchange = Exchange(request, endpoint.authenticate(request), endpoint)
    tool = exchange.catalog.tools["handover_session_mount"]
    reasons = explain(exchange.visibility, tool, exchange.catalog.rule(tool.name))
    assert reasons == [Reason("authentication", ("SessionAuthentication",))]


def test_a_path_reading_class_before_the_one_that_accepts_runs_on_the_views_request(
    open_endpoint, alice
):
    # On /mcp the tenant's class says nothing and the token's accepts; on the view's URL
    # the tenant's refuses the key, as it does a direct call: the view is handed nobody.
    mcp = client(headers={"Authorization": f"Token {alice.token}", "X-Tenant-Key": "wrong"})
    direct = mcp.get("/tenant/first/")
    assert direct.status_code == 403
    result = mcp.call_tool("handover_tenant_first")
    assert result["isError"] is True
    assert result["content"][0]["text"] == direct.content.decode()


def test_a_task_is_not_made_for_a_credential_only_the_views_request_can_check(open_endpoint, alice):
    # The key a class binds to a URL can't be checked again by a worker: an optional task
    # tool runs inline (its view refuses the key, as directly), a required one is refused.
    from mcp_tools.models import ToolTask

    mcp = client(headers={"X-Key": "k"}, protocol_version=MODERN, client_capabilities=EXTENSION)
    inline = mcp.call_tool("handover_path_key_optional")
    assert inline["isError"] is True
    assert inline["content"][0]["text"] == mcp.get("/path-key-task/").content.decode()
    with pytest.raises(MCPError) as refused:
        mcp.call_tool("handover_path_key_required")
    assert refused.value.code == -32602
    assert "can't run as a task with this credential (MountedAtMCPKey)" in refused.value.message
    assert not ToolTask.objects.exists()


def test_a_task_carries_whom_header_reading_classes_accepted(open_endpoint, alice):
    # The token a view's own pick of classes accepted is a row a worker finds again: the
    # task runs its view as alice (answered inline: the suite's tasks run at once).
    mcp = client(
        headers={"Authorization": f"Token {alice.token}"},
        protocol_version=MODERN,
        client_capabilities=EXTENSION,
    )
    result = mcp.call_tool("handover_picks_token_task")
    assert result["structuredContent"] == {"user": "alice", "authenticator": "ForcedAuthentication"}


def test_the_hand_over_follows_a_views_classes_patched_at_run_time(urls, alice, monkeypatch):
    mcp = client(headers={"Authorization": f"Token {alice.token}"})
    assert mcp.call_tool("handover_patched")["structuredContent"]["user"] == "alice"
    monkeypatch.setattr(PatchedView, "authentication_classes", [SessionAuthentication])
    assert mcp.get("/patched/").status_code == 403
    with pytest.raises(MCPError, match="Unknown tool: handover_patched"):
        mcp.call_tool("handover_patched")
