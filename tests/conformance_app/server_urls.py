"""The conformance server's URLconf: the fixture tools and the MCP endpoint only."""

from django.urls import include, path

urlpatterns = [
    path("c/", include("tests.conformance_app.urls")),
    path("", include("mcp_tools.urls")),
]
