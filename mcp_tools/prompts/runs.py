"""A prompt's ``prompts/get``: a row's messages filled in, or a code prompt's function run.

A code prompt asks for input as a view does (``mcp_tools.inputs.asks``): its request
carries a ``ToolCallContext``. At 2026-07-28 it holds this round's ``Inputs``, and an ask
without its answer ends the run with an input-required result whose signed state is bound
to the prompt, its arguments and the caller (docs/input.md). In the handshake era a
``prompts/get`` is answered as JSON until its function asks: the ask ends that run
(``StreamNeeded``), and the ``PromptRun`` starts it again on an SSE stream, where the ask
goes out to the client as a view's does.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping
from typing import Any

from django.http import HttpRequest

from ..auth.caller import Caller
from ..conf import mcp_settings
from ..core import errors
from ..core.context import Notifier, ToolCallContext, attach_context
from ..exceptions import InputUnavailable, ToolError
from ..inputs import request_state
from ..inputs.asks import InputRequired, StreamNeeded, receive
from ..inputs.request_state import Binding
from ..models import Prompt
from ..pipeline.invocation import Run, send_refused, send_tool_called
from ..protocol.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, MISSING_CAPABILITY, JSONRPCError
from ..protocol.results import InputRequiredResult
from . import messages
from .served import ServedPrompt
from .static import read_static

__all__ = [
    "BINDING_PREFIX",
    "PromptRun",
    "caller_request",
    "get_messages",
    "logged_messages",
    "report_refused",
]

#: What a prompt's signed state is bound to: never a tool's name, which has no colon.
BINDING_PREFIX = "prompt:"


def get_messages(
    prompt: ServedPrompt,
    values: dict[str, str],
    *,
    request: HttpRequest,
    caller: Caller,
    params: Mapping[str, Any],
    capabilities: Mapping[str, object] | None,
    stream_on_ask: str | None = None,
    notifier: Notifier | None = None,
    read_resource: Callable[[str], list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]] | InputRequiredResult:
    """Return ``prompt``'s wire messages for ``values``, or the input its function asks for.

    ``capabilities`` is the client's ``clientCapabilities`` (2026-07-28), None in the
    handshake era. There, ``stream_on_ask`` (the version of a request not streamed yet
    whose client reads streams) makes a first ask raise ``StreamNeeded``; ``notifier`` is
    the stream a run started again on asks on. ``read_resource`` reads a row's resource of
    the site as the caller (``resources.methods.read_contents``).
    """
    if prompt.row is not None:
        # A row saved past the admin's form (a shell, a fixture) is checked as it is served:
        # the site's fault, logged under a reference, not a KeyError deep in the rendering.
        messages.check_messages(prompt.row.messages)
        return messages.render(prompt.row.messages, prompt.arguments, values, _image, read_resource)
    assert prompt.code is not None
    inputs = None
    if capabilities is not None:
        binding = Binding.of(BINDING_PREFIX + prompt.name, values, caller)
        inputs = receive(params, capabilities, binding)
    own = caller_request(request, caller)
    context = ToolCallContext(
        params=dict(params),
        tool_name=prompt.name,
        endpoint_path=request.path_info,
        inputs=inputs,
        notifier=notifier,
        stream_on_ask=stream_on_ask if notifier is None else None,
    )
    attach_context(own, context)
    try:
        returned = prompt.code.function(own, **values)
    except StreamNeeded:
        raise  # the run starts again on a stream (PromptRun)
    except InputRequired as asked:
        assert inputs is not None, "only a round that can ask raises InputRequired"
        state = request_state.issue(inputs.binding, inputs.used, list(asked.requests))
        return InputRequiredResult(asked.requests, state)
    except InputUnavailable as exc:
        required = exc.required_capabilities
        if required is not None:
            raise JSONRPCError(
                MISSING_CAPABILITY,
                f"Missing required client capability: {', '.join(required)}",
                data={"requiredCapabilities": required},
                status=400,
            ) from None
        raise JSONRPCError(
            INVALID_PARAMS,
            f"Prompt {prompt.name} asks the user for input, which this request can't: {exc.detail}",
        ) from None
    except ToolError as exc:
        raise JSONRPCError(INVALID_PARAMS, f"Prompt {prompt.name}: {exc.detail}") from None
    items = [returned] if isinstance(returned, str) else list(returned)
    return [messages.wire_message(item) for item in items]


def logged_messages(
    call: Any, prompt: ServedPrompt, values: dict[str, str], **options: Any
) -> list[dict[str, Any]] | InputRequiredResult:
    """``get_messages`` for ``call``'s caller, its end sent as ``tool_called`` of kind
    ``"prompt"`` (the call log keeps it as its mode says, docs/calllog.md): a get that
    finished or failed; not one that asks its client, which ends in a later round."""
    began, started = time.time(), time.perf_counter()
    try:
        messages = get_messages(prompt, values, request=call.request, caller=call.caller, **options)
    except StreamNeeded:
        raise  # run again on a stream, where this is called again
    except JSONRPCError as error:
        reference = error.data.get("errorRef") if isinstance(error.data, dict) else None
        _report(call, prompt, values, began, started, error.message, reference)
        raise
    except Exception as exc:
        # The site's fault: logged under a reference the client's answer and the call log
        # share, as a tool's masked error is (docs/errors.md).
        reference = errors.report("Prompt %s failed", prompt.name, exc=exc, request=call.request)
        detail = None if mcp_settings.mask_errors else f"{type(exc).__name__}: {exc}"
        message = f"Internal server error (reference {reference})"
        _report(call, prompt, values, began, started, message, reference)
        raise JSONRPCError.internal(reference, detail) from None
    if not isinstance(messages, InputRequiredResult):
        _report(call, prompt, values, began, started)
    return messages


def _report(
    call: Any,
    prompt: ServedPrompt,
    values: dict[str, str],
    began: float,
    started: float,
    error: str | None = None,
    reference: str | None = None,
) -> None:
    send_tool_called(
        call,
        Prompt,
        prompt.name,
        values,
        began,
        started,
        result_type="complete",
        status=None,
        is_error=error is not None,
        error_ref=reference,
        outcome="ok" if error is None else "error",
        error_message=error or "",
        kind="prompt",
    )


def report_refused(call: Any, name: str, started: float, message: str, refusal: str) -> None:
    """Log a get of the prompt ``name`` the endpoint refused (``hidden``, ``throttled``)
    before it ran, as a refused tool call is."""
    send_refused(call, Prompt, name, {}, started, message, refusal, "prompt")


class PromptRun(Run):
    """A handshake-era ``prompts/get`` whose function asked before its answer was streamed:
    run again, from the start, on an SSE stream that carries its asks, as a tool call's
    ``Invocation`` is (``endpoint.streaming``)."""

    def __init__(
        self, call: Any, prompt: ServedPrompt, values: dict[str, str], params: Mapping[str, Any]
    ) -> None:
        self.call = call
        self.prompt = prompt
        self.values = values
        self.params = params

    @property
    def name(self) -> str:
        return self.prompt.name

    def run(self, notifier: Notifier | None = None) -> dict[str, Any]:
        """Run the function again, its asks on ``notifier``; return the ``GetPromptResult``."""
        messages = logged_messages(
            self.call,
            self.prompt,
            self.values,
            params=self.params,
            capabilities=None,
            notifier=notifier,
        )
        assert not isinstance(messages, InputRequiredResult), "the handshake era never gives one"
        return result_of(self.prompt, messages)

    def timed_out(self, timeout: float) -> JSONRPCError:
        """Return the error a run answers past ``CALL_TIMEOUT``."""
        return JSONRPCError(
            INTERNAL_ERROR, f"Prompt {self.prompt.name} timed out after {timeout:g} s"
        )


def result_of(prompt: ServedPrompt, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the ``GetPromptResult`` of ``prompt`` with ``messages``."""
    result: dict[str, Any] = {"messages": messages}
    if prompt.description:
        result["description"] = prompt.description
    return result


def caller_request(request: HttpRequest, caller: Caller) -> HttpRequest:
    """Return the request a prompt's function (or completion function) is given: the /mcp
    request, copied (a batch's messages share it), with the endpoint's caller as its
    authentication found them (a token's user, not the session's) as ``user`` and ``auth``."""
    own = copy.copy(request)
    own.user, own.auth = caller.user, caller.auth  # type: ignore[attr-defined]
    return own


def _image(path: str) -> bytes:
    data = read_static(path)
    if data is None:
        # The site's fault, not the client's: logged under a reference (an internal error).
        raise FileNotFoundError(f"A prompt's image, the static file {path}, is gone")
    if len(data) > messages.MAX_IMAGE_BYTES:  # replaced by a larger file since it was saved
        raise ValueError(f"A prompt's image, the static file {path}, is too large now")
    return data
