"""The trivial view, as a ListAPIView: django-mcp-server publishes only DRF mixin views."""

from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny
from rest_framework.response import Response


class Trivial(ListAPIView):
    """Return a three-key object."""

    permission_classes = [AllowAny]

    def list(self, request, *args, **kwargs):
        return Response({"status": "ok", "count": 3, "items": ["a", "b"]})
