"""Views for the tests of live changes: a tool registry, a resource registry, and the
endpoint whole, by tags and by toolset (tests/subscriptions)."""

from __future__ import annotations

from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.endpoint.view import MCPView
from mcp_tools.resources.decorators import mcp_resource
from mcp_tools.resources.registry import ResourceRegistry
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry

tools = ToolRegistry()
resources = ResourceRegistry()

NOTES = {1: "Buy tea", 2: "Bake a cake"}


@mcp_tool(registry=tools, tags=["notes"])
class NoteList(APIView):
    """List the notes."""

    def get(self, request):
        return Response(NOTES)


@mcp_tool(registry=tools)
class Weather(APIView):
    """Tell the weather."""

    def get(self, request):
        return Response({"sky": "blue"})


@mcp_resource("notes://{pk}", title="A note", registry=resources)
class NoteDetail(APIView):
    """One note by its number."""

    def get(self, request, pk):
        if pk not in NOTES:
            return Response({"detail": "Not found."}, status=404)
        return Response({"text": NOTES[pk]})


urlpatterns = [
    path("api/notes/", NoteList.as_view()),
    path("api/weather/", Weather.as_view()),
    path("api/notes/<int:pk>/", NoteDetail.as_view()),
    path("mcp", MCPView.as_view(registry=tools, resource_registry=resources)),
    path(
        "mcp/notes",
        MCPView.as_view(registry=tools, resource_registry=resources, tags=["notes"]),
    ),
    path(
        "mcp/toolsets/<str:toolset>",
        MCPView.as_view(registry=tools, resource_registry=resources),
    ),
]
