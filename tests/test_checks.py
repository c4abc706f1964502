"""System checks report misconfiguration at start-up, with ids and hints."""

from django.core import checks
from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.checks import check_tools
from mcp_tools.decorators import mcp_tool
from mcp_tools.registry import ToolRegistry


def test_the_test_project_passes_every_check():
    assert checks.run_checks(tags=["mcp_tools"]) == []


def test_a_name_clash_is_an_error_with_a_hint(settings):
    import types

    registry = ToolRegistry()
    a = mcp_tool(registry=registry)(type("A", (APIView,), {"get": lambda s, r: Response()}))
    b = mcp_tool(registry=registry)(type("B", (APIView,), {"get": lambda s, r: Response()}))
    module = types.ModuleType("clash_urls")
    module.urlpatterns = [path("a/", a.as_view(), name="same"), path("b/", b.as_view(), name="same")]
    settings.ROOT_URLCONF = module
    assert check_tools(registry=registry) == [
        checks.Error(
            "Tool name 'same' is used by several views (/a/, /b/); pass name= to @mcp_tool to "
            "tell them apart",
            hint="Give each tool a unique name of 1-64 characters of [A-Za-z0-9_.-] with "
            "@mcp_tool(name=...), or choose one route with path=.",
            id="mcp_tools.E001",
        )
    ]


def test_an_unrouted_declaration_is_a_warning():
    registry = ToolRegistry()

    class Orphan(APIView):
        def get(self, request):
            return Response()

    mcp_tool(registry=registry)(Orphan)
    assert check_tools(registry=registry) == [
        checks.Warning(
            f"{Orphan.__qualname__} is decorated with @mcp_tool but no URL pattern routes to it, "
            "so it is not a tool.",
            hint="Include the view (or its router) in the URLconf, or remove the decorator.",
            obj=Orphan,
            id="mcp_tools.W001",
        )
    ]
