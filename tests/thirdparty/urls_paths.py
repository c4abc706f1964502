"""djoser's and dj-rest-auth's URLs, every view under them a tool (``EXPOSE_PATHS``)."""

from dj_rest_auth.views import LogoutView
from django.urls import include, path
from djoser.views import TokenCreateView, TokenDestroyView, UserViewSet
from rest_framework.permissions import AllowAny

from mcp_tools import expose
from mcp_tools.views import MCPView

# A declaration still wins for its options: signing up and logging in get the tag of the
# public endpoint.
expose(UserViewSet, actions=["create"], tags=["account"])
expose(TokenCreateView, name="token_login", tags=["account"])
# Logging out takes no body (the views read none, and say nothing of it).
expose(TokenDestroyView, name="token_logout", input_schema={"type": "object"})
expose(LogoutView, methods=["POST"], input_schema={"type": "object"})

urlpatterns = [
    path("auth/", include("djoser.urls")),
    path("auth/", include("djoser.urls.authtoken")),
    path("rest-auth/", include("dj_rest_auth.urls")),
    path(
        "mcp/public",
        MCPView.as_view(tags=["account"], permission_classes=[AllowAny]),
        name="public-mcp",
    ),
    path("", include("mcp_tools.urls")),
]
