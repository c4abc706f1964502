"""URLs of the MCP endpoint: ``path("", include("mcp_tools.urls"))`` serves ``/mcp``."""

from django.urls import path

from .views import MCPView

app_name = "mcp_tools"

urlpatterns = [
    path("mcp", MCPView.as_view(), name="endpoint"),
]
