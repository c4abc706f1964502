"""A project that serves a second registry from an endpoint of its own.

``/partner/mcp`` serves the tools of ``partner``, a ``ToolRegistry`` other than the default
one (``MCPView.as_view(registry=partner)``); ``/mcp`` serves the default registry's, as
tests.urls mounts it, and Django admin is at ``/admin/``.
"""

from django.contrib import admin
from django.urls import include, path
from rest_framework.decorators import api_view
from rest_framework.response import Response

from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView

partner = ToolRegistry()


@mcp_tool(
    "partner_quote",
    registry=partner,
    title="A partner's quote",
    annotations={"readOnlyHint": True},
)
@api_view(["GET"])
def partner_quote(request, pk):
    """Quote the price of one item to a partner."""
    return Response({"pk": pk, "price": pk * 10, "user": request.user.username})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("partner/quotes/<int:pk>/", partner_quote),
    path("partner/mcp", MCPView.as_view(registry=partner), name="partner-mcp"),
    path("", include("tests.urls")),
]
