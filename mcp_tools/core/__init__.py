"""What every capability stands on: the call's context, routes, the shared cache, errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .exports import lazy_exports

__all__ = [
    "BODY_METHODS",
    "Route",
    "ToolCallContext",
    "get_context",
    "get_tool_call",
    "is_mcp_request",
    "iter_routes",
    "mcp_output",
    "report",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "ToolCallContext": ".context",
        "get_context": ".context",
        "get_tool_call": ".context",
        "is_mcp_request": ".context",
        "mcp_output": ".context",
        "BODY_METHODS": ".routes",
        "Route": ".routes",
        "iter_routes": ".routes",
        "report": ".errors",
    },
)

if TYPE_CHECKING:
    from .context import ToolCallContext, get_context, get_tool_call, is_mcp_request, mcp_output
    from .errors import report
    from .routes import BODY_METHODS, Route, iter_routes
