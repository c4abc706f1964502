"""Nautobot's URLs with the MCP endpoint (/mcp) in front of them, and the same tools in
discovery mode (/mcp-discovery)."""

from django.urls import include, path
from nautobot.core.urls import urlpatterns as nautobot_urlpatterns

from mcp_tools.views import MCPView

urlpatterns = [
    path("", include("mcp_tools.urls")),
    path("mcp-discovery", MCPView.as_view(discovery="always")),
    *nautobot_urlpatterns,
]
