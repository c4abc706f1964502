"""django-mcp-tools: expose Django REST framework views as Model Context Protocol tools.

The public API is importable before ``django.setup()``: names load on first access.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0.dev0"

__all__ = [
    "ClientDisconnected",
    "InputUnavailable",
    "MCPView",
    "ToolError",
    "elicit",
    "expose",
    "get_tool_call",
    "is_mcp_request",
    "log_message",
    "mcp_output",
    "mcp_tool",
    "report_progress",
    "request_input",
    "warm_up",
]

_LOCATIONS = {
    "ClientDisconnected": "mcp_tools.exceptions",
    "InputUnavailable": "mcp_tools.exceptions",
    "ToolError": "mcp_tools.exceptions",
    "MCPView": "mcp_tools.endpoint.view",
    "get_tool_call": "mcp_tools.core.context",
    "is_mcp_request": "mcp_tools.core.context",
    "mcp_output": "mcp_tools.core.context",
    "log_message": "mcp_tools.pipeline.notifications",
    "report_progress": "mcp_tools.pipeline.notifications",
    "mcp_tool": "mcp_tools.tools.decorators",
    "expose": "mcp_tools.tools.decorators",
    "warm_up": "mcp_tools.endpoint.startup",
    "elicit": "mcp_tools.inputs.asks",
    "request_input": "mcp_tools.inputs.asks",
}

if TYPE_CHECKING:
    from .core.context import get_tool_call, is_mcp_request, mcp_output
    from .endpoint.startup import warm_up
    from .endpoint.view import MCPView
    from .exceptions import ClientDisconnected, InputUnavailable, ToolError
    from .inputs.asks import elicit, request_input
    from .pipeline.notifications import log_message, report_progress
    from .tools.decorators import expose, mcp_tool


def __getattr__(name: str) -> Any:
    if name in _LOCATIONS:
        value = getattr(import_module(_LOCATIONS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mcp_tools' has no attribute {name!r}")
