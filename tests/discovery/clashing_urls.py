"""A project tool named as discovery mode's own, at an endpoint of its own."""

from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView

registry = ToolRegistry()


@mcp_tool("search_tools", registry=registry)
class SiteSearch(APIView):
    """Search the site's pages for words; returns their titles."""

    def get(self, request):
        return Response([])


urlpatterns = [
    path("search/", SiteSearch.as_view()),
    path("mcp", MCPView.as_view(registry=registry)),
]
