"""The conformance server's URLconf: the fixture tools (the tasks extension's too), the
fixture resources and the MCP endpoint only."""

from django.urls import include, path

urlpatterns = [
    path("c/", include("tests.conformance_app.urls")),
    path("c/tasks/", include("tests.conformance_app.task_urls")),
    path("c/resources/", include("tests.conformance_app.resource_urls")),
    path("", include("mcp_tools.urls")),
]
