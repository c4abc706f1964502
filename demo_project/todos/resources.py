"""The demo's resource: one todo as a Markdown card, a template a client can read and
attach (``todo://{pk}``, docs/resources.md). Routed by the demo's URLconf."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from rest_framework.views import APIView

from mcp_tools import mcp_resource

from .models import Todo


@mcp_resource("todo://{pk}", title="A todo as a card", mime_type="text/markdown")
class TodoCardView(APIView):
    """One of the signed-in user's todos as a Markdown card."""

    def get(self, request, pk):
        # The caller's own todos only, as the API's: another user's is not found.
        todo = get_object_or_404(Todo, pk=pk, owner=request.user)
        done = "x" if todo.done else " "
        due = f"\n\nDue {todo.due.isoformat()}." if todo.due else ""
        card = f"# {todo.title}\n\n- [{done}] done{due}\n"
        return HttpResponse(card, content_type="text/markdown; charset=utf-8")
