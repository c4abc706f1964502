"""The tool-call context stored on the view's request, and the override a view can set.

The endpoint attaches a ``ToolCallContext`` to the inner request; views read it through
``get_tool_call`` and ``is_mcp_request`` and write an override through ``mcp_output``.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from django.http import HttpRequest, HttpResponseBase

from ..exceptions import InputUnavailable
from ..protocol.content import check_annotations, check_block

ATTRIBUTE = "_mcp_tool_call"


class Keep(enum.Enum):
    """The type of ``KEEP``: an enum of one, so that type checkers narrow on ``is KEEP``."""

    KEEP = "keep"

    def __repr__(self) -> str:
        return "<keep>"


#: "Leave this part of the result as derived" (``None`` is a meaningful value).
KEEP: Final = Keep.KEEP


class Notifier(Protocol):
    """Where a running call's notifications go and through which its view asks the client:
    a streamed call's (``endpoint.streaming.Notifier``) or a task's (``tasks.runs``)."""

    #: The view was stopped by the call's time limit.
    @property
    def expired(self) -> bool: ...

    #: When the call reaches its time limit, on ``time.monotonic()``.
    @property
    def deadline(self) -> float: ...

    #: The call's time limit in seconds.
    @property
    def timeout(self) -> float: ...

    def progress(self, progress: float, total: float | None, message: str | None) -> None: ...

    def log(self, level: str, data: object) -> None: ...

    def can_ask(self, request: dict[str, Any]) -> bool: ...

    def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]: ...


@dataclass
class Override:
    """What ``mcp_output`` stored: each field replaces what the formatter derives."""

    content: list[dict[str, Any]] | Keep = KEEP
    structured_content: object = KEEP
    meta: Mapping[str, object] | None | Keep = KEEP
    annotations: dict[str, Any] | None = None


@dataclass
class ToolCallContext:
    """The state of one tool call, attached to the view's request."""

    params: dict[str, Any]
    tool_name: str
    override: Override | None = None
    #: Sends notifications to the client while the view runs; None when nothing listens.
    notifier: Notifier | None = None
    #: The path of the endpoint that received the call (its OAuth resource, docs/oauth.md).
    endpoint_path: str | None = None
    #: What the view may ask the client (``mcp_tools.inputs.asks.Inputs``, which reads it);
    #: None where it can ask nothing (the handshake era).
    inputs: object = None
    #: The protocol version of a handshake-era call answered without a stream so far, whose
    #: client reads one: its first ask ends the run, and the call starts again on a stream
    #: (docs/input.md). None for any other call.
    stream_on_ask: str | None = None
    #: The ``InputUnavailable`` an ask raised for lack of a declared client capability.
    unavailable: InputUnavailable | None = None
    #: What the view raised, held while the middleware chain returns (``pipeline.chain``).
    escaped: Exception | None = None
    #: The view as the call plan wrapped it for its transaction (``plans.CallPlan.view``);
    #: None: wrapped at the call.
    view: Callable[..., HttpResponseBase] | None = None

    def pop_override(self) -> Override | None:
        """Return the override once; a second formatting pass sees none."""
        override, self.override = self.override, None
        return override


def http_request(request: HttpRequest) -> HttpRequest:
    # A DRF Request wraps the HttpRequest; state lives on the HttpRequest, where both see it.
    inner: HttpRequest = getattr(request, "_request", request)
    return inner


def get_context(request: HttpRequest) -> ToolCallContext | None:
    """Return the tool-call context of ``request`` (DRF or Django), or None."""
    context: ToolCallContext | None = getattr(http_request(request), ATTRIBUTE, None)
    return context


def attach_context(http_request: HttpRequest, context: ToolCallContext) -> None:
    """Mark ``http_request`` as the inner request of a tool call."""
    setattr(http_request, ATTRIBUTE, context)


def attach_notifier(request: HttpRequest, notifier: Notifier) -> None:
    """Send this call's progress and log notifications to ``notifier`` (a streamed call)."""
    context = get_context(request)
    if context is not None:
        context.notifier = notifier


def is_mcp_request(request: HttpRequest) -> bool:
    """Return whether ``request`` is the inner request of an MCP tool call."""
    return get_context(request) is not None


def get_tool_call(request: HttpRequest) -> dict[str, Any] | None:
    """Return the ``tools/call`` params (``name``, ``arguments`` as received, ``_meta``)."""
    context = get_context(request)
    return copy.deepcopy(context.params) if context is not None else None


def mcp_output(
    request: HttpRequest,
    *,
    content: list[dict[str, Any]] | tuple[dict[str, Any], ...] | Keep = KEEP,
    structured_content: object = KEEP,
    meta: Mapping[str, object] | None | Keep = KEEP,
    annotations: dict[str, Any] | None = None,
) -> None:
    """Store an override of this tool call's MCP result on ``request``.

    Each given field replaces what the formatter would derive; ``structured_content=None``
    removes the structured content. A second call replaces the first whole. A no-op when
    ``request`` is not an MCP tool call.
    """
    if content is not KEEP:
        if not isinstance(content, list | tuple):
            raise ValueError("mcp_output: content must be a list of content blocks")
        for block in content:
            check_block(block)
        content = [dict(block) for block in content]
    if meta is not KEEP and meta is not None and not isinstance(meta, dict):
        raise ValueError("mcp_output: meta must be a dict")
    if annotations is not None:
        check_annotations(annotations)
        annotations = dict(annotations)
        if "audience" in annotations:
            annotations["audience"] = list(annotations["audience"])
    context = get_context(request)
    if context is None:
        return
    context.override = Override(content, structured_content, meta, annotations)
