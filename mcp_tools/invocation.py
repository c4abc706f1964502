"""One tool invocation: arguments checked, the view run as the caller, its answer formatted.

``prepare`` runs on the /mcp request's thread (arguments, the view's request); what it
returns runs the view there or in a streaming worker, and the result passes through the
same ``finish`` either way: result processors, then output-schema enforcement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from . import arguments
from .authentication import Caller
from .context import ToolCallContext, attach_notifier
from .dispatch import call_view, release
from .enforcement import enforce
from .formatters import BaseFormatter
from .inner_requests import build_inner_request
from .processors import run_processors
from .protocol.results import ToolResult
from .tools import Tool


@dataclass(frozen=True)
class PreparedCall:
    """A tool call whose arguments passed: the view's request, ready to run."""

    tool: Tool
    inner: HttpRequest
    formatter: BaseFormatter

    def run(self, notifier: Any = None) -> ToolResult:
        """Run the view (sending notifications to ``notifier``) and format its answer."""
        if notifier is not None:
            attach_notifier(self.inner, notifier)
        try:
            response = call_view(self.tool, self.inner)
        except Exception as exc:
            result = self.formatter.format_exception(exc, self.inner, self.tool)
        else:
            try:
                result = self.formatter.format_response(response, self.inner, self.tool)
            finally:
                release(response)
        return finish(result, self.tool, self.inner)


def prepare(
    request: HttpRequest,
    caller: Caller,
    tool: Tool,
    params: dict[str, Any],
    args: dict[str, Any],
    formatter: BaseFormatter,
) -> PreparedCall | ToolResult:
    """Check the arguments and build the view's request; a refusal is the finished result.

    Done on the /mcp request's thread, also for streamed calls: the outer request (its
    session, its lazy user) is not touched again once its response has left.
    """
    lines, split = arguments.prepare(tool, args)
    if lines:
        return finish(ToolResult.error("\n".join(lines)), tool, None)
    context = ToolCallContext(params=params, tool_name=tool.name)
    try:
        inner = build_inner_request(
            request, tool, split, context, identity=caller.identity_for(tool.view_class)
        )
    except ValueError as exc:
        return finish(ToolResult.error(f"Invalid arguments: $: {exc}"), tool, None)
    return PreparedCall(tool, inner, formatter)


def timeout_result(seconds: float) -> ToolResult:
    """Return the result of a call that ran past ``CALL_TIMEOUT``."""
    return ToolResult.error(f"Tool call timed out after {seconds:g} s")


def finish(result: ToolResult, tool: Tool, request: HttpRequest | None) -> ToolResult:
    """Run the result processors, then enforce the output schema (docs/results.md)."""
    return enforce(tool, run_processors(result, tool, request))
