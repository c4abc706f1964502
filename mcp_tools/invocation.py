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
) -> ToolResult:
    """Validate the arguments, run the view as the caller and format what it answered."""
    inner, refused = prepare(request, caller, tool, params, args)
    return refused if inner is None else execute(tool, inner)


def prepare(
    request: HttpRequest,
    caller: Caller,
    tool: Tool,
    params: dict[str, Any],
    args: dict[str, Any],
) -> tuple[HttpRequest, None] | tuple[None, ToolResult]:
    """Check the arguments and build the view's request: ``(inner, None)``, or the refusal.

    Done on the /mcp request's thread, also for streamed calls: the outer request (its
    session, its lazy user) is not touched again once its response has left.
    """
    lines, split = arguments.prepare(tool, args)
    if lines:
        return None, finish(ToolResult.error("\n".join(lines)), tool, None)
    context = ToolCallContext(params=params, tool_name=tool.name)
    try:
        inner = build_inner_request(
            request, tool, split, context, identity=caller.identity_for(tool.view_class)
        )
    except ValueError as exc:
        return None, finish(ToolResult.error(f"Invalid arguments: $: {exc}"), tool, None)
    return inner, None


def execute(tool: Tool, inner: HttpRequest) -> ToolResult:
    """Run the view with its prepared request and format what it answered."""
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
