"""N trivial tools for the tools/list figures, built with ``type()`` (``BENCH_TOOLS=N``)."""

import os

from django.urls import URLPattern, path
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from .tooling import mcp_tool


class Everyone(BasePermission):
    """Admit everyone, as AllowAny does, but as a project's own class: asked tool by tool."""

    def has_permission(self, request, view):
        return True


#: ``BENCH_TOOLS_PERMISSION=own`` gives the generated tools a project's own permission class.
PERMISSION = Everyone if os.environ.get("BENCH_TOOLS_PERMISSION") == "own" else AllowAny


def _get(self, request, *args, **kwargs):
    """Return the tool's fixed answer."""
    return Response({"status": "ok"})


def generated_urlpatterns(count: int) -> list[URLPattern]:
    """Declare ``count`` APIView classes as tools ``tool_0``... and route each one."""
    patterns = []
    for index in range(count):
        view = type(
            f"Generated{index}View",
            (APIView,),
            {
                "__doc__": f"Generated tool number {index}, for the tools/list benchmark.",
                "__module__": __name__,
                "get": _get,
                "permission_classes": [PERMISSION],
            },
        )
        mcp_tool(f"tool_{index}")(view)
        patterns.append(path(f"api/generated/{index}/", view.as_view()))
    return patterns
