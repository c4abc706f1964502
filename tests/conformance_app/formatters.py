"""The conformance server's formatter: the product's, except for one fault it lets through.

The suite's ``protocol_error_job`` must end in a protocol error (a failed task with a
JSON-RPC error), where every failure of a view is a tool result (docs/errors.md). What the
product answers with -32603 is a fault of the endpoint itself, a formatter that raises
among them: this one raises for ``EndpointFault`` only.
"""

from __future__ import annotations

from mcp_tools.pipeline.formatters import ResponseFormatter


class EndpointFault(Exception):
    """Raised by a fixture view to stand for a fault of the endpoint's own."""


class ConformanceFormatter(ResponseFormatter):
    def format_exception(self, exc, request, tool):
        if isinstance(exc, EndpointFault):
            raise exc
        return super().format_exception(exc, request, tool)
