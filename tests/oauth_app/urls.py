"""The OAuth test project: django-oauth-toolkit as the authorization server at the root,
the MCP endpoints as its resource server, and the RFC 9728 documents."""

from django.contrib.auth.views import LoginView
from django.urls import include, path
from rest_framework.permissions import IsAuthenticated

from mcp_tools.views import MCPView

from . import views

endpoint = MCPView.as_view(
    registry=views.registry,
    authentication_classes=views.ENDPOINT_AUTHENTICATION,
    permission_classes=[IsAuthenticated],
)
notes_endpoint = MCPView.as_view(
    registry=views.registry,
    authentication_classes=views.ENDPOINT_AUTHENTICATION,
    permission_classes=[IsAuthenticated],
    oauth_scopes=["notes:read", "notes:write"],
)

urlpatterns = [
    # Before DOT's own metadata routes, which would answer the same path.
    path("", include("mcp_tools.urls.well_known")),
    path("accounts/login/", LoginView.as_view()),
    path("", include(([path("mcp", endpoint, name="endpoint")], "mcp_tools"))),
    path("notes/mcp", notes_endpoint),
    path("t/notes/", views.NotesListView.as_view()),
    path("t/notes/new", views.NotesCreateView.as_view()),
    path("t/whoami", views.WhoAmIView.as_view()),
    path("t/whoami-again", views.WhoAmIAgainView.as_view()),
    path("t/report", views.NotesReportView.as_view()),
    # DOT at the root: its issuer is the origin, its metadata at
    # /.well-known/oauth-authorization-server, /authorize/, /token/, /register/, ...
    path("", include("oauth2_provider.urls")),
]
