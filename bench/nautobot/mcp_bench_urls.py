"""Nautobot's URLs with the MCP endpoint (/mcp) in front of them."""

from django.urls import include, path
from nautobot.core.urls import urlpatterns as nautobot_urlpatterns

urlpatterns = [path("", include("mcp_tools.urls")), *nautobot_urlpatterns]
