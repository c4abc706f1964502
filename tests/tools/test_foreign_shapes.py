"""An API this project didn't write, exposed whole, never stops the project (docs/checks.md).

tests/netbox_app has the shapes of NetBox's API that crashed ``check``, stopped the project
or answered 500 under ``EXPOSE_PATHS = ["api/"]``: a lazily translated docstring
(drf-spectacular's schema view has one), two custom API root views that derive one tool
name, an action whose body repeats the URL's ``id``, choices grouped under lazy labels in a
filter, a serializer naming a reverse relation, and a default permission class that reads
a view's queryset.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.core import checks
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy
from rest_framework.permissions import DjangoModelPermissions, IsAuthenticated

from mcp_tools import expose
from mcp_tools.checks import check_endpoint_authentication, check_endpoint_policy, check_tools
from mcp_tools.endpoint import handlers
from mcp_tools.test import MCPClient, MCPError
from mcp_tools.tools import naming
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.tools.registry import registry as default_registry
from tests.helpers import MODERN
from tests.netbox_app import views
from tests.netbox_app.models import Device, Site

pytestmark = pytest.mark.django_db

DEFAULT_PERMISSION = "tests.netbox_app.views.TokenPermissions"
SCHEMA_CLASS = "tests.netbox_app.schema.NetBoxAutoSchema"
ACTIONS = ("list", "retrieve", "create", "update", "partial_update", "destroy")


@pytest.fixture(autouse=True)
def netbox(settings):
    settings.ROOT_URLCONF = "tests.netbox_app.urls"
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "EXPOSE_PATHS": ["api/"]}
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_PERMISSION_CLASSES": [DEFAULT_PERMISSION],
        "DEFAULT_SCHEMA_CLASS": SCHEMA_CLASS,
    }
    default_registry.clear()
    yield
    default_registry.clear()


def ids(messages):
    return sorted(message.id for message in messages if message.id != "mcp_tools.I001")


def test_check_leaves_out_what_it_cant_serve_and_stops_nothing():
    messages = check_tools()
    assert not [m for m in messages if m.level >= checks.ERROR], messages
    left_out = [m for m in messages if m.id == "mcp_tools.W009"]
    assert len(left_out) == 3, left_out  # device_sync, and both api_root views
    texts = " ".join(str(m.msg) for m in left_out)
    assert "EXPOSE_PATHS" in texts and "'device_sync'" in texts and "'api_root'" in texts
    assert "(The check was mcp_tools.E004: " in " ".join(m.hint for m in left_out)
    # The reverse relation no longer drops the whole body (W002), nothing else is unread.
    assert not [m for m in messages if m.id in ("mcp_tools.W002", "mcp_tools.W008")], messages


def test_the_tools_are_the_apis_and_no_schema_or_root_view():
    names = {tool.name for tool in default_registry.tools()}
    assert names == {
        "connected_device_view_set_list",
        *(f"{model}_{action}" for model in ("site", "device") for action in ACTIONS),
    }


def test_a_reverse_relation_is_a_body_field():
    site_create = default_registry.tools().get("site_create")
    properties = site_create.input_schema["properties"]
    assert properties["devices"]["type"] == "array"
    assert {"name", "slug", "status"} <= set(properties)


def test_a_lazy_docstring_is_read_and_stays_lazy():
    class Described:
        __doc__ = gettext_lazy("Lists   the\n  sites.")

    read = naming.docstring(Described)
    assert isinstance(read, Promise) and str(read) == "Lists the sites."


def test_grouped_lazy_choices_are_their_options(alice):
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=MODERN)
    tools = {tool["name"]: tool for tool in client.list_tools()}
    status = tools["site_list"]["inputSchema"]["properties"]["status"]
    assert [choice["const"] for choice in status["items"]["oneOf"]] == [
        "active",
        "staged",
        "retired",
    ]


def test_the_endpoint_stands_aside_a_default_that_needs_a_queryset(alice):
    listed = MCPClient(headers={"Authorization": f"Token {alice.token}"}).list_tools()
    assert listed  # not a 500: TokenPermissions needs a queryset the endpoint hasn't
    with pytest.raises(MCPError) as refused:
        MCPClient().list_tools()
    assert refused.value.status == 401  # what it asks before the model: a user
    message = [m for m in check_endpoint_policy() if m.id == "mcp_tools.I040"]
    assert len(message) == 1 and "IsAuthenticated in place of TokenPermissions" in message[0].msg


def test_a_class_chosen_for_the_endpoint_that_needs_a_queryset_is_an_error(settings):
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"],
    }
    errors = [m for m in check_endpoint_authentication() if m.id == "mcp_tools.E041"]
    assert len(errors) == 1 and "DjangoModelPermissions" in errors[0].msg


def test_a_view_that_raises_while_read_costs_its_tool_alone(monkeypatch):
    describe = naming.default_description

    def failing(operation, *args, **kwargs):
        if operation.view_class is views.SiteViewSet and operation.action == "list":
            raise RuntimeError("the docstring's translation is broken")
        return describe(operation, *args, **kwargs)

    monkeypatch.setattr(naming, "default_description", failing)
    default_registry.clear()
    messages = check_tools()
    unread = [m for m in messages if m.id == "mcp_tools.W008"]
    assert len(unread) == 1 and "RuntimeError: the docstring's translation" in unread[0].msg
    names = {tool.name for tool in default_registry.tools()}
    assert "site_list" not in names and "site_create" in names


def test_a_definition_that_is_no_json_is_left_out_of_the_page(alice, monkeypatch, caplog):
    project = handlers.project_tool

    def unwritable(definition, version):
        projected = project(definition, version)
        if projected["name"] == "device_list":  # a value JSON has no form for
            return {**projected, "annotations": {"title": 1j}}
        return projected

    monkeypatch.setattr(handlers, "project_tool", unwritable)
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    names = [tool["name"] for tool in client.list_tools()]
    assert "device_list" not in names and "device_create" in names
    assert "Tool device_list is left out of tools/list" in caplog.text


class TestExposeOfAWholeClass:
    """``expose()`` of a whole class leaves out what fails; naming the action keeps the error."""

    @pytest.fixture(autouse=True)
    def no_paths(self, settings):
        settings.MCP_TOOLS = {k: v for k, v in settings.MCP_TOOLS.items() if k != "EXPOSE_PATHS"}

    def test_the_whole_class(self):
        registry = ToolRegistry()
        expose(views.DeviceViewSet, registry=registry)
        messages = check_tools(registry=registry)
        assert "mcp_tools.W009" in ids(messages) and "mcp_tools.E004" not in ids(messages)
        assert "expose(DeviceViewSet)" in " ".join(str(m.msg) for m in messages)
        assert "device_sync" not in {tool.name for tool in registry.tools()}

    def test_the_action_named(self):
        registry = ToolRegistry()
        expose(views.DeviceViewSet, actions=["sync"], registry=registry)
        assert "mcp_tools.E004" in ids(check_tools(registry=registry))


def test_the_stand_in_is_what_the_class_asks_first():
    from mcp_tools.auth import policy

    assert policy.for_endpoint([views.TokenPermissions]) == [IsAuthenticated]
    assert policy.needs_model(DjangoModelPermissions) and not policy.needs_model(IsAuthenticated)


def test_exclude_tools_leaves_out_tools_nobody_named_silently(settings):
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "EXCLUDE_TOOLS": ["device_sync", "api_*", "*_destroy"],
    }
    default_registry.clear()
    assert not [m for m in check_tools() if m.id == "mcp_tools.W009"]
    names = {tool.name for tool in default_registry.tools()}
    assert not {"site_destroy", "device_destroy", "device_sync", "api_root"} & names
    assert {"site_list", "device_update"} <= names


def test_exclude_tools_narrows_expose_of_a_whole_class_not_a_named_action():
    registry = ToolRegistry(exclude_tools=["device_*"])
    expose(views.DeviceViewSet, registry=registry)
    expose(views.SiteViewSet, actions=["list"], registry=registry)
    assert {tool.name for tool in registry.tools()} == {"site_list"}
    named = ToolRegistry(exclude_tools=["device_*"])
    expose(views.DeviceViewSet, actions=["list"], registry=named)
    assert {tool.name for tool in named.tools()} == {"device_list"}
    # Excluded whole, the class is still reached: no "no URL pattern routes to it" (W001).
    assert "mcp_tools.W001" not in ids(check_tools(registry=registry))


# -- A definition a model can afford (#39): lookup variants folded, single objects --------


@pytest.fixture
def reader(alice):
    """alice, allowed to read sites (TokenPermissions asks view_site of a GET)."""
    alice.user_permissions.add(Permission.objects.get(codename="view_site"))
    return MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=MODERN)


def listed(client):
    return {tool["name"]: tool for tool in client.list_tools()}


def test_lookup_variants_are_one_rule_of_the_description(reader):
    site_list = listed(reader)["site_list"]
    properties = site_list["inputSchema"]["properties"]
    assert list(properties) == ["id", "name", "slug", "status", "kind", "brief"]
    assert site_list["description"].endswith(
        " Filters also take lookups, written filter__lookup (e.g. id__gt): id: gt, lt; "
        "name: n (not), ic (icontains), nic (not icontains), ie (iexact), isw (istartswith), "
        "regex; slug: icontains, istartswith; status: n (not)."
    )
    # The choices are said once, by the base filter, which keeps its enum and words.
    assert [choice["const"] for choice in properties["status"]["items"]["oneOf"]] == [
        "active",
        "staged",
        "retired",
    ]
    assert json.dumps(site_list).count('"retired"') == 2  # status and kind, not status__n


def test_a_folded_lookup_is_still_an_argument_typed_as_its_filter(reader):
    Site.objects.create(name="Alpha", slug="alpha", status="active")
    Site.objects.create(name="Beta", slug="beta", status="retired")

    def names(arguments):
        result = reader.call_tool("site_list", arguments)
        assert not result.get("isError"), result
        return [site["name"] for site in result["structuredContent"]]

    assert names({"name__ic": "ALP"}) == ["Alpha"]
    assert names({"status__n": ["active"]}) == ["Beta"]
    beta = Site.objects.get(slug="beta").pk
    assert names({"id__gt": str(beta - 1)}) == ["Beta"]  # "…" read as its filter's integer
    refused = reader.call_tool("site_list", {"status__n": ["gone"]})
    assert refused["isError"] and "$.status__n[0]" in refused["content"][0]["text"]


def test_all_lists_every_lookup_variant(settings, reader):
    folded = listed(reader)["site_list"]
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "FILTER_LOOKUPS": "all"}
    every = listed(reader)["site_list"]
    assert {"name__ic", "name__n", "status__n", "slug__icontains", "id__gt"} <= set(
        every["inputSchema"]["properties"]
    )
    assert len(every["inputSchema"]["properties"]) == 17
    assert "Filters also take lookups" not in every["description"]
    # The definition's size, as a client lists it (the figures of docs/tools.md#lookup-variants).
    assert (len(json.dumps(folded)), len(json.dumps(every))) == (1293, 2248)


def test_a_single_object_action_is_not_told_of_the_list(reader):
    tools = listed(reader)
    assert tools["site_list"]["description"].startswith("List sites. Get a list of site objects.")
    for name, sentence in [
        ("site_retrieve", "Get one site by id."),
        ("site_update", "Replace a site."),
        ("site_partial_update", "Change some fields of a site."),
        ("site_destroy", "Delete a site."),
    ]:
        description = tools[name]["description"]
        assert description.startswith(f"{sentence} Needs "), description
        assert "list" not in description.lower(), description


class TestTheProjectsSchemaClass:
    """drf-spectacular read as NetBox configured it: its ``NetBoxAutoSchema`` runs on the
    view's real serializer, and what it answers is what the tools take."""

    @pytest.fixture
    def client(self, alice):
        alice.user_permissions.add(*Permission.objects.filter(codename__endswith="_device"))
        return MCPClient(headers={"Authorization": f"Token {alice.token}"})

    def test_it_reads_without_a_warning(self):
        messages = check_tools()
        assert "mcp_tools.W006" not in ids(messages), messages

    def test_its_descriptions_are_the_tools(self):
        tools = default_registry.tools()
        # A view without a docstring: the description NetBoxAutoSchema works out.
        assert tools.get("device_list").description.startswith("Get a list of device objects.")
        assert tools.get("device_retrieve").description.startswith("Get a device object.")
        # With one, it passes on spectacular's own: this package's default stands.
        assert not tools.get("site_list").description.startswith("The sites of the network.")

    def test_a_nested_related_object_is_written_by_its_id(self, client):
        site = Site.objects.create(name="Oslo", slug="oslo")
        tools = {tool["name"]: tool for tool in client.list_tools()}
        for name in ("device_create", "device_update", "device_partial_update"):
            assert tools[name]["inputSchema"]["properties"]["site"]["type"] == "integer", name
        # What it renders is still the brief object (the view's own serializer).
        assert "site" in tools["device_create"]["inputSchema"]["required"]
        result = client.call_tool("device_create", {"name": "sw1", "site": site.pk})
        assert result["isError"] is False, result
        assert result["structuredContent"]["site"] == {
            "id": site.pk,
            "name": "Oslo",
            "slug": "oslo",
        }
        assert Device.objects.get(name="sw1").site == site

    def test_its_own_parameters_come_through(self, client):
        tools = {tool["name"]: tool for tool in client.list_tools()}
        assert tools["device_list"]["inputSchema"]["properties"]["brief"] == {
            "type": "boolean",
            "description": "Return only brief fields.",
        }
        assert "brief" not in tools["device_create"]["inputSchema"]["properties"]

    def test_a_list_declares_its_required_parameters(self, client):
        site = Site.objects.create(name="Oslo", slug="oslo")
        Device.objects.create(name="core1", site=site)
        locator = {tool["name"]: tool for tool in client.list_tools()}[
            "connected_device_view_set_list"
        ]
        schema = locator["inputSchema"]
        assert {"peer_device", "peer_interface", "brief"} <= set(schema["properties"])
        assert schema["required"] == ["peer_device", "peer_interface"]
        missing = client.call_tool("connected_device_view_set_list", {"peer_device": "core1"})
        assert missing["isError"] is True
        found = client.call_tool(
            "connected_device_view_set_list", {"peer_device": "core1", "peer_interface": "eth0"}
        )
        assert found["structuredContent"]["name"] == "core1"

    def test_a_fault_in_it_costs_what_that_method_answers_alone(self, monkeypatch):
        # NetBox's get_description falls back to the view's queryset, which a locator hasn't.
        monkeypatch.setattr(views.ConnectedDeviceViewSet, "__doc__", None)
        default_registry.clear()
        unread = [m for m in check_tools() if m.id == "mcp_tools.W006"]
        assert [m.msg for m in unread] == [
            "Tool 'connected_device_view_set_list': drf-spectacular's annotations of its view "
            "could not be read (tests.netbox_app.schema.NetBoxAutoSchema.get_description raised "
            "AttributeError: 'ConnectedDeviceViewSet' object has no attribute 'queryset'), so "
            "the tool is built without what get_description() would declare."
        ]
        assert unread[0].hint == (
            "Make tests.netbox_app.schema.NetBoxAutoSchema.get_description answer for this "
            "operation as drf-spectacular's generator calls it (the view set up for a "
            "synthetic anonymous request, swagger_fake_view set), or declare the tool "
            "yourself: @mcp_tool(input_schema=..., description=...), or expose(View, ...) "
            "for a view you don't own."
        )
        # Its parameters are still read: the locator can still be called.
        locator = default_registry.tools().get("connected_device_view_set_list")
        assert locator.input_schema["required"] == ["peer_device", "peer_interface"]


def test_bulk_edits_are_left_out_by_a_default_a_site_can_change(settings):
    """NetBox's bulk_update, bulk_partial_update and bulk_destroy take a list of objects,
    which no tool's arguments say: EXCLUDE_TOOLS leaves them out by default."""
    bulk = {"site_bulk_update", "site_bulk_partial_update", "site_bulk_destroy"}
    names = {tool.name for tool in default_registry.tools()}
    assert not bulk & names
    assert {"site_list", "site_create", "site_update"} <= names
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "EXCLUDE_TOOLS": []}
    default_registry.clear()
    assert bulk <= {tool.name for tool in default_registry.tools()}


@pytest.mark.parametrize(
    ("to_field_name", "same_as"),
    [
        ("pk", (Device, None)),  # Nautobot's filters on a related object's UUID
        ("site__slug", (Site, "slug")),  # and on a lookup across a relation
    ],
)
def test_a_model_choice_filter_may_name_a_lookup_as_its_field(to_field_name, same_as):
    from django.forms import ModelMultipleChoiceField

    from mcp_tools.schemas.queries import form_field_schema

    model, field_name = same_as
    expected = form_field_schema(
        ModelMultipleChoiceField(model.objects.all(), to_field_name=field_name)
    )
    field = ModelMultipleChoiceField(Device.objects.all(), to_field_name=to_field_name)
    assert form_field_schema(field) == expected


def test_a_model_choice_filter_on_what_no_field_types_takes_a_string():
    from django.forms import ModelChoiceField

    from mcp_tools.schemas.queries import form_field_schema

    field = ModelChoiceField(Device.objects.all(), to_field_name="name__lower")
    assert form_field_schema(field) == {"type": "string"}


def test_a_view_that_reads_the_negotiated_media_type_is_read(monkeypatch):
    # Nautobot's serializer context (and NetBox's paginator) look for text/csv in
    # request.accepted_media_type, which DRF sets in initial(), before any handler.
    context = views.SiteViewSet.get_serializer_context

    def csv_aware(view):
        assert view.request.accepted_media_type == "application/json"
        return {
            **context(view),
            "depth": 0 if "text/csv" in view.request.accepted_media_type else 1,
        }

    monkeypatch.setattr(views.SiteViewSet, "get_serializer_context", csv_aware)
    default_registry.clear()
    messages = check_tools()
    assert not [m for m in messages if m.id in ("mcp_tools.W002", "mcp_tools.W006")], messages
    properties = default_registry.tools().get("site_create").input_schema["properties"]
    assert {"name", "slug", "status"} <= set(properties)


def test_a_view_whose_instance_computes_its_classes_is_listed_and_called(reader, monkeypatch):
    # Nautobot's TokenViewSet: ``authentication_classes`` a property that adds Basic to the
    # defaults; on the class it is the property itself, no list of classes.
    from rest_framework.authentication import BasicAuthentication
    from rest_framework.settings import api_settings

    def authentication_classes(view):
        return [*api_settings.DEFAULT_AUTHENTICATION_CLASSES, BasicAuthentication]

    def permission_classes(view):
        return list(api_settings.DEFAULT_PERMISSION_CLASSES)

    monkeypatch.setattr(
        views.SiteViewSet, "authentication_classes", property(authentication_classes)
    )
    monkeypatch.setattr(views.SiteViewSet, "permission_classes", property(permission_classes))
    Site.objects.create(name="Alpha", slug="alpha", status="active")
    assert "site_list" in listed(reader)
    result = reader.call_tool("site_list", {})
    assert not result.get("isError"), result
    assert [site["name"] for site in result["structuredContent"]] == ["Alpha"]
