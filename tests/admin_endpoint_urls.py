"""Admin with endpoints mounted as a project might: Try it must call through them.

``mcp_tools:endpoint`` takes OAuth tokens and sessions, and serves only the tools tagged
``echoes``; ``/staff/mcp`` serves every tool to staff. ``/closed/mcp`` refuses everyone.
"""

from django.contrib import admin
from django.urls import include, path
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import BasePermission, IsAdminUser

from mcp_tools.contrib.oauth.authentication import OAuth2ResourceAuthentication
from mcp_tools.views import MCPView
from tests.urls import urlpatterns as test_patterns


class OnlyOnTuesdays(BasePermission):
    message = "Only on Tuesdays."

    def has_permission(self, request, view):
        return False


endpoint = MCPView.as_view(
    authentication_classes=[OAuth2ResourceAuthentication, SessionAuthentication],
    tags=["echoes"],
)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include(([path("mcp", endpoint, name="endpoint")], "mcp_tools"))),
    path("staff/mcp", MCPView.as_view(permission_classes=[IsAdminUser]), name="staff-mcp"),
    path("closed/mcp", MCPView.as_view(permission_classes=[OnlyOnTuesdays]), name="closed-mcp"),
    # The test project's views, without its own /mcp.
    *test_patterns[:-1],
]
