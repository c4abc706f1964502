"""Definitions a model gets right the first time: every argument explained from what DRF and
the model know, and descriptions that say what a call needs and returns (docs/tools.md)."""

from __future__ import annotations

import json

import pytest
from django.urls import path
from rest_framework import generics, pagination, permissions, serializers, throttling, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from mcp_tools.schemas.validators import argument_validator, error_message
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from tests.schema_app.models import Gadget, Tag
from tests.tools.test_registry import urlconf


class GadgetSerializer(serializers.ModelSerializer):
    class Meta:
        model = Gadget
        fields = ["id", "name", "kind", "price", "stock", "active", "maker", "tags"]


class TagSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tag
        fields = ["id", "slug"]


def gadget_tools(**attributes):
    registry = ToolRegistry()
    gadgets = mcp_tool(registry=registry)(
        type(
            "GadgetViewSet",
            (viewsets.ModelViewSet,),
            {"queryset": Gadget.objects.all(), "serializer_class": GadgetSerializer, **attributes},
        )
    )
    tags = mcp_tool(registry=registry, actions=["list"])(
        type(
            "TagViewSet",
            (viewsets.ModelViewSet,),
            {"queryset": Tag.objects.all(), "serializer_class": TagSerializer},
        )
    )
    router = SimpleRouter()
    router.register("gadgets", gadgets, basename="gadget")
    router.register("tags", tags, basename="tag")
    return registry.tools(urlconf(*router.urls))


def test_every_argument_is_described():
    for tool in gadget_tools():
        properties = tool.input_schema["properties"]
        assert all(prop.get("description") for prop in properties.values()), tool.name


def test_a_foreign_key_names_its_model_and_the_tool_that_lists_it():
    properties = gadget_tools().get("gadget_create").input_schema["properties"]
    # Auto-increment keys count from 1: no signed 64-bit bounds, no negative ids.
    assert properties["maker"] == {
        "type": ["integer", "null"],
        "minimum": 1,
        "description": "The id of a tag; tag_list lists them.",
    }
    assert properties["tags"] == {
        "type": "array",
        "items": {"type": "integer", "minimum": 1},
        "description": "Ids of tags; tag_list lists them.",
    }


def test_a_foreign_key_no_tool_lists_still_names_its_model():
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class GadgetList(generics.CreateAPIView):
        queryset = Gadget.objects.all()
        serializer_class = GadgetSerializer

    (tool,) = registry.tools(urlconf(path("gadgets/", GadgetList.as_view())))
    assert tool.input_schema["properties"]["maker"]["description"] == "The id of a tag."


def test_a_path_key_counts_from_one():
    pk = gadget_tools().get("gadget_retrieve").input_schema["properties"]["pk"]
    assert pk == {
        "type": "integer",
        "minimum": 1,
        "description": "The gadget's id, as gadget_list returns it.",
    }


def test_choices_are_typed_labelled_and_carry_the_models_default():
    kind = gadget_tools().get("gadget_create").input_schema["properties"]["kind"]
    assert kind == {
        "type": "string",
        "oneOf": [
            {"const": "tool", "title": "Tool"},
            {"const": "toy", "title": "Toy"},
            {"const": "gizmo", "title": "Gizmo"},
        ],
        "default": "tool",
        "description": "Kind.",
    }
    validator = argument_validator({"type": "object", "properties": {"kind": kind}})
    assert validator.is_valid({"kind": "toy"})
    [refused] = validator.iter_errors({"kind": "Toy"})
    assert error_message(refused) == '"Toy" is not one of ["tool", "toy", "gizmo"]'


def test_booleans_and_numbers_carry_the_models_defaults():
    properties = gadget_tools().get("gadget_create").input_schema["properties"]
    assert (properties["active"]["default"], properties["stock"]["default"]) == (True, 0)
    assert "default" not in properties["name"]  # the model gives none: required
    # A partial update changes only what it is given: the defaults stay out of its required.
    partial = gadget_tools().get("gadget_partial_update").input_schema
    assert partial["required"] == ["pk"]


def test_a_decimal_is_described_and_refused_in_words():
    price = gadget_tools().get("gadget_create").input_schema["properties"]["price"]
    assert price["description"] == (
        "A decimal number with at most 4 digits before the point and 2 after, as a number or "
        "a string."
    )
    validator = argument_validator({"type": "object", "properties": {"price": price}})
    for value in ("1.999", "12345", 12345.5, 0.291, "1e3"):
        errors = [error_message(error) for error in validator.iter_errors({"price": value})]
        assert errors, value
        assert all(
            "is not a decimal number with at most 4 digits before the point and 2 after" in each
            for each in errors
        ), errors
    assert validator.is_valid({"price": "1234.56"})


@pytest.mark.parametrize(
    ("serializer_field", "words"),
    [
        (
            serializers.DecimalField(max_digits=5, decimal_places=0),
            "a whole number of at most 5 digits",
        ),
        (
            serializers.DecimalField(max_digits=None, decimal_places=3),
            "a decimal number with at most 3 digits after the point",
        ),
    ],
)
def test_decimal_words_follow_the_fields_digits(serializer_field, words):
    from mcp_tools.schemas.fields import field_schema

    schema = field_schema(serializer_field)
    assert schema["description"].startswith(words[:1].upper() + words[1:])


def test_a_long_choice_list_stays_a_typed_enum():
    from mcp_tools.schemas.fields import MAX_LABELLED_CHOICES, field_schema

    choices = [(f"c{n}", f"Choice {n}") for n in range(MAX_LABELLED_CHOICES + 1)]
    schema = field_schema(serializers.ChoiceField(choices=choices))
    assert schema == {"type": "string", "enum": [value for value, _ in choices]}


def test_a_nullable_labelled_choice_takes_null():
    from mcp_tools.schemas.fields import field_schema

    schema = field_schema(serializers.ChoiceField(choices=[(1, "One")], allow_null=True))
    assert schema == {
        "type": ["integer", "null"],
        "oneOf": [{"const": 1, "title": "One"}, {"const": None, "title": "None"}],
    }
    validator = argument_validator({"type": "object", "properties": {"n": schema}})
    assert validator.is_valid({"n": None}) and not validator.is_valid({"n": 2})


def test_a_description_says_what_a_call_needs_and_returns():
    tools = gadget_tools(
        permission_classes=[permissions.IsAuthenticated, permissions.DjangoModelPermissions],
        throttle_classes=[throttling.UserRateThrottle],
    )
    assert tools.get("gadget_retrieve").description == (
        "Get one gadget by id. Needs IsAuthenticated, DjangoModelPermissions. Throttled: "
        "UserRateThrottle. Returns the gadget: id, name, kind, price, stock, active, maker, tags."
    )
    assert tools.get("gadget_destroy").description.endswith(" Returns a confirmation.")


class Pages(pagination.PageNumberPagination):
    page_size = 5


class Hourly(throttling.UserRateThrottle):
    rate = "100/hour"


def test_a_paginated_list_says_its_page_shape_and_how_to_go_on():
    tools = gadget_tools(permission_classes=[], throttle_classes=[Hourly], pagination_class=Pages)
    assert tools.get("gadget_list").description == (
        "List gadgets. Throttled: Hourly (100/hour). Returns a page of gadgets (count, "
        "next, previous, results) with id, name, kind, price, stock, active, maker, tags. To go "
        "on, call again with the page the result names."
    )


def test_a_declared_description_is_left_as_declared():
    registry = ToolRegistry()

    @mcp_tool(registry=registry, description="Say hello.")
    class Hello(APIView):
        def get(self, request):
            return Response({"hello": "world"})

    (tool,) = registry.tools(urlconf(path("hello/", Hello.as_view())))
    assert tool.description == "Say hello."


def test_an_action_and_an_api_view_keep_their_docstrings_first():
    registry = ToolRegistry()

    @mcp_tool(registry=registry, actions=["archive"])
    class Gadgets(viewsets.ModelViewSet):
        queryset = Gadget.objects.all()
        serializer_class = GadgetSerializer
        permission_classes = [permissions.AllowAny]

        @action(detail=True, methods=["post"])
        def archive(self, request, pk=None):
            """Archive a gadget."""
            return Response()

    router = SimpleRouter()
    router.register("gadgets", Gadgets, basename="gadget")
    (tool,) = registry.tools(urlconf(*router.urls))
    # AllowAny restricts nothing: not named. The action's serializer is the ViewSet's.
    assert tool.description == (
        "Archive a gadget. Returns the gadget: id, name, kind, price, stock, active, maker, tags."
    )


@pytest.mark.django_db
def test_an_argument_names_no_listing_tool_the_caller_cannot_see(settings, alice, monkeypatch):
    # tag_list is for staff (IsAdminUser): alice does not see it, so no description she reads
    # may name it (a hidden tool's existence is not told to those it is hidden from).
    import sys
    import types

    from mcp_tools.test import MCPClient
    from mcp_tools.views import MCPView

    registry = ToolRegistry()
    gadgets = mcp_tool(registry=registry)(
        type(
            "GadgetViewSet",
            (viewsets.ModelViewSet,),
            {"queryset": Gadget.objects.all(), "serializer_class": GadgetSerializer},
        )
    )
    tags = mcp_tool(registry=registry, actions=["list"])(
        type(
            "TagViewSet",
            (viewsets.ModelViewSet,),
            {
                "queryset": Tag.objects.all(),
                "serializer_class": TagSerializer,
                "permission_classes": [permissions.IsAdminUser],
            },
        )
    )
    router = SimpleRouter()
    router.register("gadgets", gadgets, basename="gadget")
    router.register("tags", tags, basename="tag")
    module = types.ModuleType("related_hidden_urls")
    module.urlpatterns = [*router.urls, path("mcp", MCPView.as_view(registry=registry))]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    settings.ROOT_URLCONF = module.__name__
    client = MCPClient(mcp_path="/mcp", headers={"Authorization": f"Token {alice.token}"})
    tools = {tool["name"]: tool for tool in client.list_tools()}
    assert "tag_list" not in tools and "gadget_create" in tools
    assert "tag_list" not in json.dumps(tools)
    # Staff see tag_list: to them the argument says where its ids come from.
    alice.is_staff = True
    alice.save()
    tools = {tool["name"]: tool for tool in client.list_tools()}
    tags = tools["gadget_create"]["inputSchema"]["properties"]["tags"]
    assert "tag_list lists them." in tags["description"]
