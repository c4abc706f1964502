"""Views read as resources by tests/resources: a fresh resource registry, its own endpoint."""

from __future__ import annotations

import io

from django.contrib import admin
from django.http import FileResponse, HttpResponse, HttpResponseRedirect
from django.urls import path
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from mcp_tools.endpoint.view import MCPView
from mcp_tools.resources.decorators import mcp_resource
from mcp_tools.resources.registry import ResourceRegistry
from mcp_tools.tools.registry import ToolRegistry

resources = ResourceRegistry()
tools = ToolRegistry()

ORDERS = {1: {"id": 1, "title": "Tea", "secret": "s3cr3t"}, 2: {"id": 2, "title": "Cake"}}
#: PNG signature and a few bytes: an image body.
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(32))
PDF = b"%PDF-1.4 binary \x00\x01\x02"
#: How many times each view ran, by name (a test asserts a view did not run).
RAN: dict[str, int] = {}


def ran(name: str) -> None:
    RAN[name] = RAN.get(name, 0) + 1


@mcp_resource("orders://{pk}", title="An order", mime_type="application/json", registry=resources)
class OrderDetail(APIView):
    """One order by its number."""

    def get(self, request, pk):
        ran("order")
        if pk == 3:
            return Response({"detail": "You do not have permission."}, status=403)
        if pk == 4:
            return Response({"detail": "Request was throttled."}, status=429)
        if pk not in ORDERS:
            return Response({"detail": "Not found."}, status=404)
        return Response(ORDERS[pk])


@mcp_resource(uri="shop://banner", registry=resources)
class Banner(APIView):
    """The shop's banner image."""

    def get(self, request):
        ran("banner")
        return HttpResponse(PNG, content_type="image/png")


@mcp_resource(registry=resources)
class Report(APIView):
    """The monthly report, a PDF file."""

    def get(self, request):
        ran("report")
        return FileResponse(io.BytesIO(PDF), content_type="application/pdf")


@mcp_resource(uri="shop://moved", registry=resources)
class Moved(APIView):
    """A view that redirects."""

    def get(self, request):
        ran("moved")
        return HttpResponseRedirect("/api/elsewhere/")


@mcp_resource(uri="shop://staff", registry=resources)
class StaffOnly(APIView):
    """For staff only."""

    permission_classes = [IsAdminUser]

    def get(self, request):
        ran("staff")
        return Response({"staff": True})


@mcp_resource(uri="shop://big", registry=resources)
class Big(APIView):
    """A large body."""

    def get(self, request):
        return Response({"text": "x" * 5000})


@mcp_resource(uri="shop://limited", registry=resources)
class Limited(APIView):
    """Throttled by its own scope."""

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "limited"

    def get(self, request):
        return Response({"ok": True})


class OncePerMinute(UserRateThrottle):
    """The endpoint's own throttle of ``mcp/throttled``: a batch's further reads count."""

    rate = "1/minute"
    scope = "mcp-resources-tests"


class SharedFormatting(MCPView):
    """An endpoint whose get_formatter() returns one instance to every call it serves."""

    def get_formatter(self):
        return SHARED_FORMATTER


SHARED_FORMATTER = MCPView().get_formatter()

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/orders/<int:pk>/", OrderDetail.as_view()),
    path("api/banner/", Banner.as_view()),
    path("api/report/", Report.as_view()),
    path("api/moved/", Moved.as_view()),
    path("api/staff/", StaffOnly.as_view()),
    path("api/big/", Big.as_view()),
    path("api/limited/", Limited.as_view()),
    path("mcp", MCPView.as_view(registry=tools, resource_registry=resources)),
    path(
        "mcp/throttled",
        MCPView.as_view(
            registry=tools, resource_registry=resources, throttle_classes=[OncePerMinute]
        ),
    ),
    path("mcp/shared", SharedFormatting.as_view(registry=tools, resource_registry=resources)),
    path(
        "mcp/tagged",
        MCPView.as_view(registry=tools, resource_registry=resources, tags=["nothing"]),
    ),
    path(
        "mcp/toolset",
        MCPView.as_view(registry=tools, resource_registry=resources, toolset="some"),
    ),
]
