from django.db.models import Count, Q
from rest_framework import viewsets
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool

from .models import Todo
from .serializers import TodoSerializer


@mcp_tool()
class TodoViewSet(viewsets.ModelViewSet):
    """The signed-in user's todos."""

    serializer_class = TodoSerializer
    queryset = Todo.objects.all()

    def get_queryset(self):
        # Each caller sees only their own todos, over HTTP and over MCP alike.
        return super().get_queryset().filter(owner=self.request.user)

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)

    def list(self, request, *args, **kwargs):
        """List the signed-in user's todos, oldest first."""
        return super().list(request, *args, **kwargs)

    def retrieve(self, request, *args, **kwargs):
        """Get one todo by id."""
        return super().retrieve(request, *args, **kwargs)

    def create(self, request, *args, **kwargs):
        """Create a todo for the signed-in user."""
        return super().create(request, *args, **kwargs)

    def update(self, request, *args, **kwargs):
        """Replace a todo's title, done flag and due date."""
        return super().update(request, *args, **kwargs)

    def partial_update(self, request, *args, **kwargs):
        """Change some fields of a todo, e.g. mark it done."""
        return super().partial_update(request, *args, **kwargs)

    # A client that can elicit asks its user first (2026-07-28 by a retry, 2025-06-18 and
    # 2025-11-25 on the call's stream); the view runs only once they accept. A client that
    # can't be asked is refused, unless CONFIRM_UNASKABLE is "run" (settings.py,
    # docs/input.md).
    @mcp_tool(confirm="Delete todo {pk}? This cannot be undone.")
    def destroy(self, request, *args, **kwargs):
        """Delete a todo."""
        return super().destroy(request, *args, **kwargs)


@mcp_tool("todo_stats", title="Todo statistics (staff)")
class TodoStatsView(APIView):
    """Count every user's todos, open and done: for staff only.

    Its permission class hides it from everyone else: a non-staff caller's tools/list does
    not name it, and calling it answers "Unknown tool", as if it did not exist.
    """

    permission_classes = [IsAdminUser]

    def get(self, request):
        counts = Todo.objects.aggregate(total=Count("pk"), done=Count("pk", filter=Q(done=True)))
        return Response({**counts, "open": counts["total"] - counts["done"]})
