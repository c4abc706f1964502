"""One tool invocation: arguments checked, the view run as the caller, its answer formatted."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from . import arguments
from .authentication import Caller
from .conf import mcp_settings
from .context import ToolCallContext
from .dispatch import call_view, release
from .inner_requests import build_inner_request
from .results import ToolResult
from .tools import Tool


def run_tool(
    request: HttpRequest,
    caller: Caller,
    tool: Tool,
    params: dict[str, Any],
    args: dict[str, Any],
) -> ToolResult:
    """Validate the arguments, run the view as the caller and format what it answered."""
    lines = arguments.problems(tool, args)
    if lines:
        return ToolResult.error("\n".join(lines))
    context = ToolCallContext(params=params, tool_name=tool.name)
    try:
        inner = build_inner_request(
            request,
            tool,
            arguments.split(tool, args),
            context,
            identity=caller.identity_for(tool.view_class),
        )
    except ValueError as exc:
        return ToolResult.error(f"Invalid arguments: $: {exc}")
    formatter = mcp_settings.FORMATTER_CLASS()
    try:
        response = call_view(tool, inner)
    except Exception as exc:
        return formatter.format_exception(exc, inner, tool)
    try:
        return formatter.format_response(response, inner, tool)
    finally:
        release(response)
