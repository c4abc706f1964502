"""Tools of the OAuth test project, in a registry of their own (tests/oauth_app/urls.py).

Each reads the caller's DOT access token as a DRF view would; the notes tools need scopes
(``required_scopes`` read by DOT's ``TokenHasScope``), the report needs staff as well.
"""

from oauth2_provider.contrib.rest_framework.permissions import TokenHasScope
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool
from mcp_tools.contrib.oauth.authentication import OAuth2ResourceAuthentication
from mcp_tools.tools.registry import ToolRegistry

registry = ToolRegistry()

#: The endpoint's classes: a view with exactly these gets the caller handed over.
ENDPOINT_AUTHENTICATION = [OAuth2ResourceAuthentication]


@mcp_tool("whoami", registry=registry)
class WhoAmIView(APIView):
    """Name the signed-in user and the token's scopes."""

    authentication_classes = ENDPOINT_AUTHENTICATION
    permission_classes = [IsAuthenticated]

    def get(self, request):
        return Response({"username": request.user.username, "scope": request.auth.scope})


@mcp_tool("whoami_again", registry=registry)
class WhoAmIAgainView(WhoAmIView):
    """Name the signed-in user, authenticating the token again (other classes)."""

    authentication_classes = [OAuth2ResourceAuthentication, SessionAuthentication]


@mcp_tool("notes_list", registry=registry)
class NotesListView(APIView):
    """List the notes (scope notes:read)."""

    authentication_classes = ENDPOINT_AUTHENTICATION
    permission_classes = [TokenHasScope]
    required_scopes = ["notes:read"]

    def get(self, request):
        return Response([{"id": 1, "text": "Buy milk"}])


@mcp_tool("notes_create", registry=registry)
class NotesCreateView(APIView):
    """Write a note (scope notes:write)."""

    authentication_classes = ENDPOINT_AUTHENTICATION
    permission_classes = [TokenHasScope]
    required_scopes = ["notes:write"]

    def post(self, request):
        return Response({"id": 2, "text": str(request.data.get("text", ""))}, status=201)


@mcp_tool("notes_report", registry=registry)
class NotesReportView(APIView):
    """Count the notes (staff, and scope notes:read)."""

    authentication_classes = ENDPOINT_AUTHENTICATION
    permission_classes = [IsAdminUser & TokenHasScope]
    required_scopes = ["notes:read"]

    def get(self, request):
        return Response({"notes": 1})
