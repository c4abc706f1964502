"""The tutorial's ViewSets (part 6), each with ``@mcp_tool()`` added, and nothing else.

Two more views in the shapes DRF's guides show: a ViewSet that finds its rows with
``get_queryset()`` alone (the filtering guide), and a plain ``APIView`` naming its
``serializer_class``.
"""

from django.contrib.auth.models import User
from pygments import highlight
from pygments.formatters.html import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from rest_framework import permissions, renderers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool

from .models import Snippet
from .permissions import IsOwnerOrReadOnly
from .serializers import PreviewSerializer, SnippetSerializer, UserSerializer


@mcp_tool()
class SnippetViewSet(viewsets.ModelViewSet):
    """Code snippets, highlighted; everyone may read them, their owners change them."""

    queryset = Snippet.objects.all()
    serializer_class = SnippetSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly]

    @action(detail=True, renderer_classes=[renderers.StaticHTMLRenderer])
    def highlight(self, request, *args, **kwargs):
        """Show a snippet highlighted, as an HTML page."""
        return Response(self.get_object().highlighted)

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)


@mcp_tool()
class UserViewSet(viewsets.ReadOnlyModelViewSet):
    """The users and the snippets each of them wrote."""

    queryset = User.objects.all()
    serializer_class = UserSerializer


@mcp_tool()
class MySnippetViewSet(viewsets.ReadOnlyModelViewSet):
    """The signed-in user's own snippets."""

    serializer_class = SnippetSerializer

    def get_queryset(self):
        return Snippet.objects.filter(owner=self.request.user)


@mcp_tool()
class PreviewView(APIView):
    """Highlight a piece of code without saving it: returns the HTML Pygments makes of it."""

    serializer_class = PreviewSerializer

    def post(self, request):
        preview = self.serializer_class(data=request.data)
        preview.is_valid(raise_exception=True)
        lexer = get_lexer_by_name(preview.validated_data["language"])
        html = highlight(preview.validated_data["code"], lexer, HtmlFormatter())
        return Response({"html": html})
