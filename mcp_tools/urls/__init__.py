"""URLs of the MCP endpoint: ``path("", include("mcp_tools.urls"))`` serves ``/mcp``.

``mcp_tools.urls.well_known`` serves the endpoints' OAuth metadata (RFC 9728) from the host
root: ``path("", include("mcp_tools.urls.well_known"))`` (docs/oauth.md).
"""

from django.urls import path

from ..views import MCPView

app_name = "mcp_tools"

endpoint = MCPView.as_view()

urlpatterns = [
    path("mcp", endpoint, name="endpoint"),
    # The same endpoint for one toolset of the admin's (docs/tools.md#toolsets).
    path("mcp/toolsets/<slug:toolset>", endpoint, name="toolset"),
]
