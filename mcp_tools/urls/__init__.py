"""URLs of the MCP endpoint: ``path("", include("mcp_tools.urls"))`` serves ``/mcp``.

``mcp_tools.urls.well_known`` serves the endpoints' OAuth metadata (RFC 9728) from the host
root: ``path("", include("mcp_tools.urls.well_known"))`` (docs/oauth.md).
"""

from django.urls import path

from ..views import MCPView

app_name = "mcp_tools"

urlpatterns = [
    path("mcp", MCPView.as_view(), name="endpoint"),
]
