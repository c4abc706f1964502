"""Output schemas (docs/results.md, output schemas): resolution, switches and checks.

Enforcing them on each result is tests/pipeline/test_enforcement.py's.
"""

import logging
import types

import pytest
from django.core import checks
from django.urls import path
from rest_framework import generics, serializers, viewsets
from rest_framework.pagination import BasePagination, LimitOffsetPagination, PageNumberPagination
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from mcp_tools.checks import check_message, check_tools
from mcp_tools.schemas import output_schema
from mcp_tools.schemas.fields import openapi_to_json_schema
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry


class Item(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(max_length=5)
    note = serializers.CharField(required=False, allow_null=True)
    price = serializers.DecimalField(max_digits=5, decimal_places=2)
    password = serializers.CharField(write_only=True)


ITEM_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "note": {"type": ["string", "null"]},
        "price": {"type": "string"},
    },
    "required": ["id", "name", "price"],
}


class Order(serializers.Serializer):
    items = Item(many=True)
    owner = Item(allow_null=True)


def tools_of(settings, registry, *routes):
    module = types.ModuleType("output_schema_urls")
    module.urlpatterns = list(routes)
    settings.ROOT_URLCONF = module
    return {tool.name: tool for tool in registry.tools()}


def api_view_class(name, method="get", **attributes):
    def handler(self, request, *args, **kwargs):
        return Response({})

    return type(name, (APIView,), {method: handler, "__doc__": "A view.", **attributes})


def resolved(settings, view_class, **options):
    registry = ToolRegistry()
    mcp_tool("t", registry=registry, **options)(view_class)
    return tools_of(settings, registry, path("x/", view_class.as_view()))["t"]


class ItemViewSet(viewsets.ViewSet):
    """Items."""

    serializer_class = Item

    def get_serializer_class(self):
        return self.serializer_class

    def list(self, request):
        return Response([])

    def retrieve(self, request, pk=None):
        return Response({})

    def destroy(self, request, pk=None):
        return Response(status=204)


class Pages(PageNumberPagination):
    page_size = 2


class BarePages(BasePagination):
    """A paginator that keeps BasePagination's page schema: the array itself."""


RESOLUTION = [
    (
        "decorator dict",
        api_view_class("A"),
        {"output_schema": {"type": "integer"}},
        {"type": "integer"},
    ),
    ("decorator serializer class", api_view_class("B"), {"output_schema": Item}, ITEM_SCHEMA),
    (
        "decorator serializer instance, many",
        api_view_class("C"),
        {"output_schema": Item(many=True)},
        {"type": "array", "items": ITEM_SCHEMA},
    ),
    (
        "the view's serializer",
        type("D", (generics.RetrieveAPIView,), {"serializer_class": Item}),
        {},
        ITEM_SCHEMA,
    ),
    (
        "a list view's array",
        type("E", (generics.ListAPIView,), {"serializer_class": Item}),
        {},
        {"type": "array", "items": ITEM_SCHEMA},
    ),
    (
        "a list view's page",
        type("F", (generics.ListAPIView,), {"serializer_class": Item, "pagination_class": Pages}),
        {},
        {
            "type": "object",
            "required": ["count", "results"],
            "properties": {
                "count": {"type": "integer"},
                "next": {"type": ["string", "null"], "format": "uri"},
                "previous": {"type": ["string", "null"], "format": "uri"},
                "results": {"type": "array", "items": ITEM_SCHEMA},
            },
        },
    ),
    (
        "a paginator with DRF's default page schema",
        type(
            "F2", (generics.ListAPIView,), {"serializer_class": Item, "pagination_class": BarePages}
        ),
        {},
        {"type": "array", "items": ITEM_SCHEMA},
    ),
    ("a view without a serializer", api_view_class("G"), {}, None),
    (
        "DELETE answers 204",
        type("H", (generics.DestroyAPIView,), {"serializer_class": Item}),
        {},
        None,
    ),
    (
        "a serializer read with the synthetic anonymous request",
        type(
            "I",
            (generics.RetrieveAPIView,),
            {"get_serializer_class": lambda self: self.request.user and Item},
        ),
        {},
        ITEM_SCHEMA,
    ),
    (
        "a serializer that needs a real user",
        type(
            "I2",
            (generics.RetrieveAPIView,),
            {"get_serializer_class": lambda self: self.request.user.profile and Item},
        ),
        {},
        None,
    ),
]


@pytest.mark.parametrize(
    ("case", "view_class", "options", "expected"), RESOLUTION, ids=[c[0] for c in RESOLUTION]
)
def test_the_output_schema_comes_from_the_decorator_else_the_view(
    settings, case, view_class, options, expected
):
    tool = resolved(settings, view_class, **options)
    declared = options.get("output_schema")
    schema = output_schema.resolve_output_schema(declared, tool.operation)
    assert schema == expected
    advertised = resolved(settings, view_class, include_output_schema=True, **options)
    assert advertised.output_schema == expected


def test_viewset_actions_resolve_their_own_shapes(settings):
    registry = ToolRegistry()
    mcp_tool(registry=registry)(ItemViewSet)
    router = SimpleRouter()
    router.register("items", ItemViewSet, basename="item")
    settings.MCP_TOOLS = {"INCLUDE_OUTPUT_SCHEMA": True}
    tools = tools_of(settings, registry, *router.urls)
    assert tools["item_list"].output_schema == {"type": "array", "items": ITEM_SCHEMA}
    assert tools["item_retrieve"].output_schema == ITEM_SCHEMA
    assert tools["item_destroy"].output_schema is None


def test_limit_offset_pages_are_plain_json_schema():
    paginator = LimitOffsetPagination()
    schema = openapi_to_json_schema(paginator.get_paginated_response_schema({"type": "array"}))
    assert "nullable" not in str(schema) and "example" not in str(schema)
    assert schema["properties"]["next"]["type"] == ["string", "null"]


def test_nested_serializers_render_their_readable_fields():
    schema = output_schema.serializer_output_schema(Order())
    assert schema["properties"]["items"] == {"type": "array", "items": ITEM_SCHEMA}
    assert schema["properties"]["owner"]["type"] == ["object", "null"]
    assert schema["required"] == ["items", "owner"]


def test_a_bad_output_schema_type_is_a_clear_error(settings):
    tool = resolved(settings, api_view_class("J"), output_schema=42, include_output_schema=True)
    with pytest.raises(TypeError):
        output_schema.resolve_output_schema(42, tool.operation)
    (problem,) = [p for p in tool.problems if p.id == "mcp_tools.E020"]
    assert check_message(problem).msg.startswith(
        "output_schema of tool t must be a JSON Schema dict"
    )
    assert "outputSchema" not in tool.definition()  # tools/list still answers


SWITCHES = [
    # (setting, decorator include_output_schema, advertised?)
    ({}, None, False),
    ({}, True, True),
    ({"INCLUDE_OUTPUT_SCHEMA": True}, None, True),
    ({"INCLUDE_OUTPUT_SCHEMA": True}, False, False),
]


@pytest.mark.parametrize(("setting", "declared", "advertised"), SWITCHES)
def test_include_output_schema_from_the_decorator_else_the_setting(
    settings, setting, declared, advertised
):
    settings.MCP_TOOLS = setting
    tool = resolved(
        settings, api_view_class("K"), output_schema=ITEM_SCHEMA, include_output_schema=declared
    )
    assert ("outputSchema" in tool.definition()) is advertised
    if advertised:
        assert tool.definition()["outputSchema"] == ITEM_SCHEMA


def test_include_output_schema_forces_structured_content_with_a_warning(settings, caplog):
    caplog.set_level(logging.WARNING, "mcp_tools")
    tool = resolved(
        settings,
        api_view_class("L"),
        output_schema=ITEM_SCHEMA,
        include_output_schema=True,
        include_structured_content=False,
    )
    assert tool.include_structured_content is True
    assert tool.include_structured_content is True
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["Tool t: include_output_schema forces include_structured_content on"]


def test_without_an_output_schema_structured_content_can_be_off(settings):
    tool = resolved(settings, api_view_class("M"), include_structured_content=False)
    assert tool.include_structured_content is False


def test_the_system_check_names_the_tool(settings):
    registry = ToolRegistry()
    forced = mcp_tool(
        "forced",
        registry=registry,
        output_schema=ITEM_SCHEMA,
        include_output_schema=True,
        include_structured_content=False,
    )(api_view_class("N"))
    unknown = mcp_tool("unknown", registry=registry, include_output_schema=True)(
        api_view_class("O")
    )
    bad = mcp_tool("bad", registry=registry, output_schema="x", include_output_schema=True)(
        api_view_class("P")
    )
    tools_of(
        settings,
        registry,
        path("n/", forced.as_view()),
        path("o/", unknown.as_view()),
        path("p/", bad.as_view()),
    )
    output_checks = {"mcp_tools.E020", "mcp_tools.W020", "mcp_tools.W021"}
    messages = {m.id: m for m in check_tools(registry=registry) if m.id in output_checks}
    assert sorted(messages) == ["mcp_tools.E020", "mcp_tools.W020", "mcp_tools.W021"]
    assert messages["mcp_tools.W020"].msg.startswith("Tool forced: include_output_schema forces")
    assert messages["mcp_tools.W020"].hint
    assert messages["mcp_tools.W021"].msg.startswith("Tool unknown: include_output_schema is on")
    assert isinstance(messages["mcp_tools.E020"], checks.Error)


def test_a_plain_apiviews_serializer_class_is_its_input_not_a_promise_of_its_output(settings):
    # DRF's generic views render with their serializer; a plain APIView answers whatever it
    # builds, so its serializer_class says what it reads and nothing of what it returns.
    class Quote(serializers.Serializer):
        item = serializers.CharField()

    view = api_view_class("Quoting", method="post", serializer_class=Quote)
    tool = resolved(settings, view, include_output_schema=True)
    assert list(tool.input_schema["properties"]) == ["item"]
    assert tool.output_schema is None
