"""The views the benchmarks call, directly and as tools."""

from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from mcp_tools import mcp_tool


@mcp_tool("trivial")
@api_view(["GET"])
@permission_classes([AllowAny])
def trivial(request):
    """Return a three-key object."""
    return Response({"status": "ok", "count": 3, "items": ["a", "b"]})
