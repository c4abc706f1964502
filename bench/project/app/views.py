"""The views the benchmarks call, directly and as tools."""

import time

from rest_framework import mixins, viewsets
from rest_framework.authentication import TokenAuthentication
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from .models import Item
from .serializers import ItemSerializer
from .tooling import mcp_tool


@mcp_tool("trivial")
@api_view(["GET"])
@permission_classes([AllowAny])
def trivial(request):
    """Return a three-key object."""
    return Response({"status": "ok", "count": 3, "items": ["a", "b"]})


@mcp_tool()
class ItemViewSet(mixins.CreateModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The token user's items: one read by id (a database row), one created per call."""

    serializer_class = ItemSerializer
    queryset = Item.objects.all()
    authentication_classes = [TokenAuthentication]
    permission_classes = [IsAuthenticated]

    def get_queryset(self):
        # Each caller sees only their own items, over HTTP and over MCP alike.
        return super().get_queryset().filter(owner=self.request.user)

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)

    def retrieve(self, request, *args, **kwargs):
        """Get one item by id."""
        return super().retrieve(request, *args, **kwargs)

    def create(self, request, *args, **kwargs):
        """Create an item for the token's user."""
        return super().create(request, *args, **kwargs)


@mcp_tool(
    "slow",
    input_schema={
        "type": "object",
        "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 30}},
    },
)
@api_view(["GET"])
@permission_classes([AllowAny])
def slow(request):
    """Take ``seconds`` to answer (bench/faults.py: a slow view holds only its own worker)."""
    seconds = float(request.query_params.get("seconds", "1"))
    time.sleep(seconds)
    return Response({"slept": seconds})


@mcp_tool(
    "progress",
    stream=True,
    input_schema={
        "type": "object",
        "properties": {
            "note": {"type": "string"},
            "echo": {"type": "string", "enum": ["none", "progress", "log"]},
        },
    },
)
@api_view(["POST"])
@permission_classes([AllowAny])
def progress(request):
    """Report progress 50 times; ``echo`` puts ``note`` in each progress or log message.

    bench/streams.py: the memory of streams whose clients never read.
    """
    from mcp_tools import log_message, report_progress

    note = request.data.get("note", "")
    echo = request.data.get("echo", "none")
    for step in range(50):
        report_progress(request, step, 50, note if echo == "progress" else None)
        if echo == "log":
            log_message(request, "info", note)
    return Response({"steps": 50})
