"""A generated catalog of 400 tools, some hidden from non-staff, at its own endpoint: the
size EXPOSE_PATHS makes of a real API (tests/discovery/test_generated.py)."""

from django.urls import path
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView

registry = ToolRegistry()

#: Things and what is done to them: 40 × 10 tools, each named for its pair.
_THINGS = """
invoice order customer product shipment warehouse supplier refund coupon review ticket agent
campaign newsletter subscriber payment payout ledger budget forecast contract employee payslip
timesheet vacancy candidate interview laptop licence printer meeting room booking vehicle route
driver parcel pallet container vessel
"""
THINGS = tuple(_THINGS.split())
DOINGS = (
    "list",
    "show",
    "create",
    "rename",
    "archive",
    "restore",
    "export",
    "merge",
    "tag",
    "count",
)

#: One in five tools is for staff only: its permission class hides it from everyone else.
STAFF_EVERY = 5


def _get(self, request, *args, **kwargs):
    return Response({"tool": self.tool_name})


urlpatterns = []
for index, (thing, doing) in enumerate((t, d) for t in THINGS for d in DOINGS):
    name = f"{thing}_{doing}"
    view = type(
        f"{thing.title()}{doing.title()}View",
        (APIView,),
        {
            "__doc__": f"{doing.title()} the {thing} records of the back office.",
            "__module__": __name__,
            "get": _get,
            "tool_name": name,
            "permission_classes": [IsAdminUser if index % STAFF_EVERY == 0 else IsAuthenticated],
        },
    )
    mcp_tool(name, registry=registry)(view)
    urlpatterns.append(path(f"api/{thing}/{doing}/", view.as_view()))

urlpatterns.append(path("mcp", MCPView.as_view(registry=registry, discovery="auto")))
