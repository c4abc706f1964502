"""djoser's and dj-rest-auth's URLs, and their views made tools with ``expose()``."""

from dj_rest_auth.views import PasswordChangeView, UserDetailsView
from django.urls import include, path
from djoser.views import TokenCreateView, TokenDestroyView, UserViewSet
from rest_framework.permissions import AllowAny

from mcp_tools import expose
from mcp_tools.views import MCPView

# Signing up and logging in: for the public endpoint (tagged "account").
expose(UserViewSet, actions=["create"], tags=["account"])
expose(TokenCreateView, name="token_login", tags=["account"])
# The rest wants a token.
expose(UserViewSet, actions=["me"])
expose(TokenDestroyView, name="token_logout", input_schema={"type": "object"})
expose(UserDetailsView)
expose(PasswordChangeView)

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
