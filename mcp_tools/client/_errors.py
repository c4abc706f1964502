"""The exceptions an adapted tool raises instead of returning an output."""

from __future__ import annotations

from typing import Any, ClassVar

TOOL_ERROR_MESSAGE = "MCP tool returned an error"
UNSUPPORTED_CONTENT_MESSAGE = "Unsupported MCP tool result content type"
PUBLIC_ERROR_MESSAGE = "The tool failed."


class McpToolError(Exception):
    """Signal a tool result with ``isError: true``.

    ``message`` is the remote text: it may name servers, paths, arguments or upstream
    details, so show it to the model or a log, never to a browser. ``public_message`` is a
    constant that is safe to show anyone.
    """

    public_message: ClassVar[str] = PUBLIC_ERROR_MESSAGE

    def __init__(self, message: str = TOOL_ERROR_MESSAGE, *, result: Any = None) -> None:
        super().__init__(message)
        self.message = message
        #: The ``CallToolResult`` (or wire dict) that carried the error, for debugging.
        self.result = result


class UnsupportedContentError(McpToolError):
    """Signal a content block that a plain tool output can't carry (``audio``, ``resource_link``).

    A subclass of ``McpToolError`` so that one ``except`` in an agent loop catches every
    failed call; ``content_type`` names the block type that was refused.
    """

    def __init__(self, content_type: str, *, result: Any = None) -> None:
        super().__init__(UNSUPPORTED_CONTENT_MESSAGE, result=result)
        self.content_type = content_type


class InputRequiredError(McpToolError):
    """Signal a tool call that needs input the caller did not give.

    The server answered with an input-required result and no ``on_input_required``
    handler answered it (there was none, it left a request out, or the rounds ran out).
    ``requests`` holds what was asked, key → ``{"method", "params"}``.
    """

    def __init__(
        self,
        requests: dict[str, Any],
        *,
        result: Any = None,
        unanswered: bool = False,
        rounds: int | None = None,
    ) -> None:
        asked = "; ".join(_describe(key, request) for key, request in requests.items())
        if rounds is not None:
            message = f"The tool still needed input after {rounds} rounds"
        elif unanswered:
            message = f"on_input_required left these requests unanswered: {asked}"
        else:
            message = f"The tool needs input: {asked}; pass on_input_required to answer it"
        super().__init__(message, result=result)
        self.requests = requests


def _describe(key: str, request: Any) -> str:
    method = request.get("method") if isinstance(request, dict) else None
    params = request.get("params") if isinstance(request, dict) else None
    text = params.get("message") if isinstance(params, dict) else None
    return f"{key} ({method}: {text!r})" if isinstance(text, str) else f"{key} ({method})"
