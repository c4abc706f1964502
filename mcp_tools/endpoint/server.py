"""The server: one JSON-RPC message in, one answer out, whatever carries it.

As the MCP SDK's low-level server does, a message is checked, its protocol era detected
and its method looked up in the handlers' table; handlers return results or raise
``JSONRPCError``. This module turns either into an ``Answer``: projection onto the
negotiated version happens here, once, and so does the handling of any unexpected
exception (logged under an error reference, answered -32603). How the answer travels
(JSON or SSE, alone or in a batch) is the transport's business (``endpoint.view``).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

from django.http import HttpRequest

from ..auth.caller import caller_key
from ..conf import mcp_settings
from ..core import errors
from ..core.context import Notifier
from ..inputs import relay as client_requests
from ..pipeline.formatters import response_too_large
from ..pipeline.invocation import Invocation, Run
from ..protocol import versions
from ..protocol.jsonrpc import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    JSONRPCError,
    RequestId,
    clip,
    error_envelope,
    parse_message,
    result_envelope,
)
from ..protocol.projection import project
from ..protocol.results import InputRequiredResult, ToolResult
from ..subscriptions.listeners import Listening
from . import handlers, tracing
from .exchange import Call, Exchange

if TYPE_CHECKING:  # loaded with the first prompt asked for
    from ..prompts.runs import PromptRun

logger = logging.getLogger("mcp_tools")


#: The headers of an answer that is its caller's alone: no cache may keep it.
PRIVATE = {"Cache-Control": "private, no-store"}


@dataclass(frozen=True)
class Answer:
    """One JSON-RPC response, encoded, with the HTTP status it gets when it travels alone."""

    body: str
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def error(cls, request_id: RequestId, error: JSONRPCError) -> Answer:
        return cls(error_envelope(request_id, error), error.status, error.headers)


def serve_message(
    value: Any, exchange: Exchange, *, in_batch: bool = False
) -> Answer | Invocation[Call] | PromptRun | Listening | None:
    """Check one decoded message of ``exchange`` and do on this thread what answering it
    takes.

    Returns None for a notification or a response (nothing to answer), the ``Answer`` when
    the request is answered already, or the ``Invocation`` of a tool call whose view is
    still to run (``serve_invocation`` runs it).
    """
    request_id = None
    trace = tracing.NO_TRACE
    try:
        message = parse_message(value)
        if not message.is_request:
            if message.method is None:  # a response to a request of ours (an input request)
                return deliver(value, exchange, in_batch=in_batch)
            return None
        request_id = message.id
        trace = tracing.begin(message, exchange.request)
        if in_batch and (message.method == "initialize" or versions.is_modern(message)):
            raise JSONRPCError(
                INVALID_REQUEST, f"Invalid Request: {clip(message.method or '')} cannot be batched"
            )
        era = versions.detect(message, exchange.request.META)
        trace.version(era.version)
        call = Call(exchange, message, era, trace)
        table = handlers.MODERN_HANDLERS if era.modern else handlers.HANDSHAKE_HANDLERS
        handler = table.get(message.method or "")
        if handler is None:
            raise JSONRPCError(
                METHOD_NOT_FOUND,
                f"Method not found: {clip(message.method or '')}",
                # The modern era answers an unknown method at the HTTP layer too.
                status=404 if era.modern else 200,
            )
        with trace.active():
            result = handler(call)
        if isinstance(result, Listening):
            trace.end()  # the stream may last hours: the request's span is its opening
            return result
        if is_run(result):
            return result  # its span ends in serve_invocation()
        answer = complete(call, result, trace=trace)
    except JSONRPCError as error:
        trace.error(error)
        answer = Answer.error(request_id if request_id is not None else error.request_id, error)
    except Exception as exc:
        answer = internal_error(request_id, exc, exchange.request, trace)
    trace.end()
    method = value.get("method") if isinstance(value, dict) else None
    if isinstance(method, str) and method in handlers.PRIVATE_ANSWERS:
        answer = dataclasses.replace(answer, headers={**answer.headers, **PRIVATE})
    return answer


def is_run(value: object) -> TypeGuard[Invocation[Call] | PromptRun]:
    """Whether a handler left ``value`` to the transport to run (``pipeline.invocation.Run``):
    anything else it returns is its result."""
    return isinstance(value, Run)


def deliver(
    value: dict[str, object], exchange: Exchange, *, in_batch: bool = False
) -> Answer | None:
    """Hand a response the client POSTed to the worker that asked for it (docs/input.md).

    Returns None once it is handed over (answered 202), or the refusal of a response to no
    open request of this caller's (HTTP 400; left out of a batch's answers, which answer
    requests only).
    """
    try:
        if exchange.request.META.get(versions.PROTOCOL_VERSION_HEADER) in versions.MODERN_VERSIONS:
            # 2026-07-28 asks by input-required results: no request of ours to answer.
            raise JSONRPCError(
                INVALID_REQUEST,
                "Invalid Request: a 2026-07-28 server sends no requests: no response answers one",
                status=400,
            )
        client_requests.deliver(value, caller_key(exchange.caller))
    except JSONRPCError as error:
        logger.info("A response to no open request of this caller's was refused: %s", error)
        return None if in_batch else Answer.error(None, error)
    return None


def serve_invocation(
    invocation: Invocation[Call] | PromptRun,
    notifier: Notifier | None = None,
    *,
    limit: int | None = None,
) -> Answer:
    """Run the invocation's view (its notifications to ``notifier``) and answer with its
    result.

    ``limit`` bounds the answer's bytes (``MAX_RESPONSE_BYTES`` by default).
    """
    call = invocation.call
    trace = call.trace
    with trace.active():
        try:
            answer = complete(call, invocation.run(notifier), limit=limit, trace=trace)
        except JSONRPCError as error:  # a protocol fault found by running the view (-32021)
            trace.error(error)
            answer = Answer.error(call.message.id, error)
        except Exception as exc:
            answer = internal_error(call.message.id, exc, call.request, trace)
    trace.end()
    return answer


def complete(
    call: Call,
    result: ToolResult | InputRequiredResult | dict[str, Any],
    *,
    limit: int | None = None,
    trace: tracing.NoTrace = tracing.NO_TRACE,
) -> Answer:
    """Answer ``call`` with ``result``, projected onto the request's protocol version, and
    record on ``trace`` the result sent.

    A tool result whose answer, as sent, would pass ``limit`` bytes (``MAX_RESPONSE_BYTES``
    by default) is answered ``Response too large`` instead: the view's body is bounded on
    its own, but the answer carries it twice (as text and as structured content).
    """
    # Only 2026-07-28 results carry the server's info (in _meta), an in-process call's
    # (Try it, mcp_call) at that version too.
    info = handlers.server_info() if call.version in versions.MODERN_VERSIONS else None
    body = result_envelope(call.message.id, project(result, call.version, info))
    if isinstance(result, ToolResult):
        sent = result
        bound = mcp_settings.MAX_RESPONSE_BYTES if limit is None else limit
        if utf8_length_exceeds(body, bound):
            name = clip(str(call.message.params.get("name")))
            logger.warning("The answer of tool %s was larger than %d bytes: refused", name, bound)
            sent = response_too_large()
            body = result_envelope(call.message.id, project(sent, call.version, info))
        # Read once: a streamed call's timeout is answered on the request's thread while its
        # view's thread may report the call, and clear this, at the same moment.
        invocation = call.invocation
        if invocation is not None:
            invocation.answered(result, sent)
        result = sent
    trace.result(result)
    return Answer(body)


def utf8_length_exceeds(text: str, limit: int) -> bool:
    """Return whether ``text`` takes more than ``limit`` bytes in UTF-8 (encoded only if near)."""
    if len(text) > limit:
        return True
    return len(text) * 4 > limit and len(text.encode()) > limit


def internal_error(
    request_id: RequestId,
    exc: BaseException,
    request: HttpRequest,
    trace: tracing.NoTrace = tracing.NO_TRACE,
) -> Answer:
    """Answer a fault of the server itself: logged under a reference, never a traceback.

    Unmasked (``MASK_ERRORS``, or DEBUG on), ``data.detail`` says what failed.
    """
    error = fault(exc, request)
    trace.exception(exc, error.data["errorRef"])
    return Answer.error(request_id, error)


def fault(exc: BaseException, request: HttpRequest) -> JSONRPCError:
    """Log a fault of the server under a new reference and return its -32603 error."""
    reference = errors.report("The MCP endpoint failed", exc=exc, request=request)
    detail = None if mcp_settings.mask_errors else f"{type(exc).__name__}: {exc}"
    return JSONRPCError.internal(reference, detail)
