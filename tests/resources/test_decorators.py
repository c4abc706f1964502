"""``@mcp_resource`` and ``expose(..., resource=...)``: what they declare, and what they refuse."""

from __future__ import annotations

import pytest
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from django.urls import include, path
from rest_framework import serializers, viewsets
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from mcp_tools import expose, mcp_resource
from mcp_tools.checks import check_resources
from mcp_tools.resources.registry import ResourceRegistry
from tests.tools.test_registry import urlconf


class ItemSerializer(serializers.Serializer):
    name = serializers.CharField()


class ItemViewSet(viewsets.ViewSet):
    """Items."""

    serializer_class = ItemSerializer

    def list(self, request):
        return Response([])

    def retrieve(self, request, pk=None):
        return Response({"name": pk})

    def create(self, request):
        return Response({}, status=201)


def routed(viewset):
    router = SimpleRouter()
    router.register("items", viewset, basename="item")
    return urlconf(path("api/", include(router.urls)))


def addresses(registry, conf):
    return {each.name: (each.address, each.is_template) for each in registry.resources(conf)}


def test_a_viewset_is_a_listed_resource_and_a_template_and_never_its_writes():
    registry = ResourceRegistry()
    mcp_resource(registry=registry)(ItemViewSet)
    assert addresses(registry, routed(ItemViewSet)) == {
        "item_list": ("site://api/items", False),
        "item_retrieve": ("site://api/items/{pk}", True),
    }


def test_expose_names_the_action_a_resource_template_is_made_of():
    registry = ResourceRegistry()
    expose(ItemViewSet, resource="items://{pk}", actions=["retrieve"], registry=registry)
    assert addresses(registry, routed(ItemViewSet)) == {"item_retrieve": ("items://{pk}", True)}


def test_expose_without_resource_still_makes_tools():
    from mcp_tools.tools.registry import ToolRegistry

    tools = ToolRegistry()
    expose(ItemViewSet, actions=["list"], registry=tools)
    assert [tool.name for tool in tools.tools(routed(ItemViewSet))] == ["item_list"]


@pytest.mark.parametrize(
    "address", ["file:///etc/passwd", "FILE://x/{pk}", "file:/etc/x", "File:etc/{pk}"]
)
def test_a_file_uri_is_refused(address):
    with pytest.raises(ImproperlyConfigured, match="never uses file:"):
        mcp_resource(address, registry=ResourceRegistry())(ItemViewSet)


def test_a_template_whose_variables_are_not_the_urls_is_refused():
    class One(APIView):
        def get(self, request, pk):
            return Response({})

    registry = ResourceRegistry()
    mcp_resource("things://{id}", registry=registry)(One)
    with pytest.raises(ImproperlyConfigured, match=r"must be the URL's parameters \(pk\)"):
        registry.resources(urlconf(path("things/<int:pk>/", One.as_view())))


def test_a_resource_uri_matches_its_own_uris_only():
    class One(APIView):
        def get(self, request, pk):
            return Response({})

    registry = ResourceRegistry()
    mcp_resource("things://{pk}", registry=registry)(One)
    (resource,) = registry.resources(urlconf(path("things/<int:pk>/", One.as_view())))
    assert resource.match("things://42") == {"pk": "42"}
    assert resource.match("things://a%20b") == {"pk": "a b"}
    assert resource.match("things://4/2") is None
    assert resource.match("other://42") is None


def test_a_resource_that_cant_be_built_is_a_check_error_with_a_hint():
    class One(APIView):
        def get(self, request, pk):
            return Response({})

    registry = ResourceRegistry()
    mcp_resource("things://{id}", registry=registry)(One)
    conf = urlconf(path("things/<int:pk>/", One.as_view()))
    with override_settings(ROOT_URLCONF=conf):
        assert check_resources(registry=registry) == [
            checks.Error(
                "Resources can't be served: @mcp_resource('things://{id}') on "
                "test_a_resource_that_cant_be_built_is_a_check_error_with_a_hint.<locals>.One: "
                "its variables must be the URL's parameters (pk)",
                hint="Fix the @mcp_resource (or expose(..., resource=...)) it names: a "
                "template's variables are its URL's parameters, a URL without parameters has "
                "a fixed URI (docs/resources.md).",
                id="mcp_tools.E110",
            )
        ]
    assert check_resources() == []  # the test project's
