"""One tool invocation: arguments checked, the view run as the caller, its answer formatted."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from . import arguments, output_schemas
from .authentication import Caller
from .conf import mcp_settings
from .context import ToolCallContext
from .dispatch import call_view, release
from .inner_requests import build_inner_request
from .processors import run_processors
from .results import ToolResult
from .tools import Tool


def run_tool(
    request: HttpRequest,
    caller: Caller,
    tool: Tool,
    params: dict[str, Any],
    args: dict[str, Any],
    *,
    notifier: Any = None,
) -> ToolResult:
    """Validate the arguments, run the view as the caller and format what it answered.

    ``notifier`` receives the view's progress and log notifications (SSE); None drops them.
    """
    lines, split = arguments.prepare(tool, args)
    if lines:
        return finish(ToolResult.error("\n".join(lines)), tool, None)
    context = ToolCallContext(params=params, tool_name=tool.name, notifier=notifier)
    try:
        inner = build_inner_request(
            request,
            tool,
            split,
            context,
            identity=caller.identity_for(tool.view_class),
        )
    except ValueError as exc:
        return finish(ToolResult.error(f"Invalid arguments: $: {exc}"), tool, None)
    formatter = mcp_settings.FORMATTER_CLASS()
    try:
        response = call_view(tool, inner)
    except Exception as exc:
        result = formatter.format_exception(exc, inner, tool)
    else:
        try:
            result = formatter.format_response(response, inner, tool)
        finally:
            release(response)
    return finish(result, tool, inner)


def finish(result: ToolResult, tool: Tool, request: HttpRequest | None) -> ToolResult:
    """Run the result processors, then enforce the output schema (DESIGN §3, §4.5)."""
    result = run_processors(result, tool, request)
    return output_schemas.enforce(tool, result)
