import time

from django.db.models import Count, Q
from rest_framework import viewsets
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool, report_progress

from .models import Todo
from .serializers import ExportSerializer, TodoSerializer


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


@mcp_tool("todo_export", title="Export todos (slow)", task="optional")
class TodoExportView(APIView):
    """Export the signed-in user's todos, slowly (a few seconds), reporting its progress.

    Declared task="optional": a client that declares the MCP tasks extension gets a task
    at once and polls it while `make demo`'s worker (db_worker) runs this view; any other
    client waits for the answer inline (docs/tasks.md).
    """

    serializer_class = ExportSerializer

    def post(self, request):
        serializer = self.serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        todos = list(Todo.objects.filter(owner=request.user))
        steps = 5
        for step in range(steps):
            time.sleep(serializer.validated_data["seconds"] / steps)
            report_progress(request, step + 1, steps, f"Exporting: {step + 1} of {steps} steps")
        exported = TodoSerializer(todos, many=True).data
        return Response({"count": len(exported), "todos": exported})
