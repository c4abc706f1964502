"""``Reading``: a ``resources/read`` run as a tool call is, through ``Invocation``.

The same caller, middleware, authentication, permissions, throttles, masking, result
processors and call log as ``tools/call`` (docs/resources.md); only three things differ:
the call log records it as ``kind="resource"``, a redirect is never followed (a URI names
one resource), and the formatter's reading of the response's media type is kept for the
contents.
"""

from __future__ import annotations

import copy
from typing import Any

from django.http import HttpRequest, HttpResponseBase

from ..pipeline.formatters import BaseFormatter, media_type
from ..pipeline.invocation import CallT, Invocation
from ..protocol.results import ToolResult
from ..tools.tool import Tool

__all__ = ["Reading"]


class _Noting(BaseFormatter):
    """The endpoint's formatter, noting the media type of the response it formats."""

    def __init__(self, formatter: BaseFormatter) -> None:
        # A copy: get_formatter() may return one instance its tool calls share, and
        # those must keep formatting a file's body as they did.
        formatter = copy.copy(formatter)
        formatter.binary_as_resource = True  # a file's body is the resource's blob
        self.formatter = formatter
        self.media_type: str | None = None

    def format_response(
        self, response: HttpResponseBase, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        self.media_type = media_type(response)[0] or None
        return self.formatter.format_response(response, request, tool)

    def format_exception(self, exc: BaseException, request: HttpRequest, tool: Tool) -> ToolResult:
        return self.formatter.format_exception(exc, request, tool)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.formatter, name)


class Reading(Invocation[CallT]):
    """One ``resources/read`` of one resource's view."""

    kind = "resource"

    def __init__(self, call: CallT, *args: Any, **kwargs: Any) -> None:
        super().__init__(call, *args, **kwargs)
        self.noted = _Noting(self.formatter)
        self.formatter = self.noted
        #: The view's HTTP status once it answered (None: it raised, or never ran).
        self.status: int | None = None
        #: Why the endpoint stopped the read, if it did (``"invalid_arguments"``, ...).
        self.refusal: str | None = None

    @property
    def media_type(self) -> str | None:
        """The media type of the view's response, once it answered."""
        return self.noted.media_type

    def follow(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is formatted as it is: "Redirect to ... was not followed"

    def finish(
        self, result: ToolResult, status: int | None = None, refusal: str | None = None
    ) -> ToolResult:
        self.status, self.refusal = status, refusal
        return super().finish(result, status, refusal)
