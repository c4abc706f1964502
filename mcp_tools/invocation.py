"""One tool invocation: arguments checked, the view run as the caller, its answer formatted.

An ``Invocation`` is made on the /mcp request's thread, where ``prepare`` checks the
arguments and builds the view's request. ``run`` then runs the view there or in a streaming
worker. Whether refused or run, every call ends in ``finish``: result processors, output
schema enforcement, and the ``tool_called`` signal (the call log is one receiver).
"""

from __future__ import annotations

import time
from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from . import arguments
from .authentication import Caller
from .context import ToolCallContext, attach_notifier
from .dispatch import call_view, release
from .enforcement import enforce
from .formatters import BaseFormatter
from .inner_requests import build_inner_request
from .processors import run_processors
from .protocol.results import ToolResult
from .routes import NoPath
from .signals import tool_called
from .tools import Tool


class Invocation:
    """One ``tools/call`` of one tool, from its arguments to its finished result."""

    def __init__(
        self,
        request: HttpRequest,
        caller: Caller,
        tool: Tool,
        params: dict[str, Any],
        args: dict[str, Any],
        formatter: BaseFormatter,
        *,
        protocol_version: str = "",
        client_name: str = "",
    ) -> None:
        self.request = request
        self.caller = caller
        self.tool = tool
        self.params = params
        self.args = args
        self.formatter = formatter
        self.protocol_version = protocol_version
        self.client_name = client_name
        self.started_at = timezone.now()
        self._started = time.perf_counter()
        self.inner: HttpRequest | None = None

    def prepare(self) -> ToolResult | None:
        """Check the arguments and build the view's request; return the refusal, if any.

        Done on the /mcp request's thread, also for streamed calls: the outer request (its
        session, its lazy user) is not touched again once its response has left.
        """
        lines, split = arguments.prepare(self.tool, self.args)
        if lines:
            return self.finish(ToolResult.error("\n".join(lines)))
        context = ToolCallContext(params=self.params, tool_name=self.tool.name)
        identity = self.caller.identity_for(self.tool.view_class)
        try:
            self.inner = build_inner_request(
                self.request, self.tool, split, context, identity=identity
            )
        except NoPath as exc:
            return self.finish(ToolResult.error(f"Invalid arguments: {exc.json_path}: {exc}"))
        return None

    def run(self, notifier: Any = None) -> ToolResult:
        """Run the view (its notifications to ``notifier``) and return its finished result."""
        inner = self.inner
        assert inner is not None, "prepare() refused this call"
        if notifier is not None:
            attach_notifier(inner, notifier)
        status = None
        try:
            response = call_view(self.tool, inner)
        except Exception as exc:
            result = self.formatter.format_exception(exc, inner, self.tool)
        else:
            status = response.status_code
            try:
                result = self.formatter.format_response(response, inner, self.tool)
            finally:
                release(response)
        return self.finish(result, status)

    def timed_out(self, seconds: float) -> ToolResult:
        """Return the result of this call past ``CALL_TIMEOUT`` (built before it starts)."""
        result = ToolResult.error(f"Tool call timed out after {seconds:g} s")
        return enforce(self.tool, run_processors(result, self.tool, None))

    def finish(self, result: ToolResult, status: int | None = None) -> ToolResult:
        """Run the result processors, enforce the output schema, report the call."""
        result = enforce(self.tool, run_processors(result, self.tool, self.inner))
        user = self.caller.user if self.caller.is_authenticated else None
        tool_called.send(
            sender=self.tool.view_class,
            tool=self.tool.name,
            user=user,
            started_at=self.started_at,
            duration_ms=(time.perf_counter() - self._started) * 1000,
            status=status,
            is_error=result.is_error,
            error_ref=result.error_reference,
            arguments=self.args,
            protocol_version=self.protocol_version,
            client_name=self.client_name,
            request=self.request,
        )
        return result
