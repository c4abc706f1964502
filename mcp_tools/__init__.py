"""django-mcp-tools: expose Django REST framework views as Model Context Protocol tools.

The public API is importable before ``django.setup()``: names load on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core.exports import lazy_exports

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
    "mcp_prompt",
    "mcp_resource",
    "mcp_tool",
    "report_progress",
    "request_input",
    "resource_updated",
    "warm_up",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "ClientDisconnected": ".exceptions",
        "InputUnavailable": ".exceptions",
        "ToolError": ".exceptions",
        "MCPView": ".endpoint.view",
        "get_tool_call": ".core.context",
        "is_mcp_request": ".core.context",
        "mcp_output": ".core.context",
        "log_message": ".pipeline.notifications",
        "report_progress": ".pipeline.notifications",
        "mcp_tool": ".tools.decorators",
        "mcp_prompt": ".prompts.decorators",
        "expose": ".resources.decorators",
        "mcp_resource": ".resources.decorators",
        "resource_updated": ".resources.stamps",
        "warm_up": ".endpoint.startup",
        "elicit": ".inputs.asks",
        "request_input": ".inputs.asks",
    },
)

if TYPE_CHECKING:
    from .core.context import get_tool_call, is_mcp_request, mcp_output
    from .endpoint.startup import warm_up
    from .endpoint.view import MCPView
    from .exceptions import ClientDisconnected, InputUnavailable, ToolError
    from .inputs.asks import elicit, request_input
    from .pipeline.notifications import log_message, report_progress
    from .prompts.decorators import mcp_prompt
    from .resources.decorators import expose, mcp_resource
    from .resources.stamps import resource_updated
    from .tools.decorators import mcp_tool
