"""Input requests: a view asks the client for input (``request_input``, ``elicit``, ``confirm``).

In 2026-07-28 a server never sends the client a request of its own: a call that needs an
answer it does not have ends with an input-required result, and the client retries it with
the answers (multi round-trip requests). So an ask returns the answer when the retry
carries it; otherwise it raises ``InputRequired``, which ends the view's run, and the view
runs again from the start on the retry. Earlier rounds' answers come back signed in the
``requestState`` (``mcp_tools.inputs.request_state``).

In the handshake era a call asks over its SSE stream instead: the view's thread waits in
the ask for the client's response (``mcp_tools.inputs.relay``) and goes on where it
asked. A call answered without a stream so far ends its run at the first ask
(``StreamNeeded``) and starts again on a stream. Where the client can't answer (no
``text/event-stream`` in its ``Accept``, a batch, an undeclared capability, outside a tool
call) the asks raise ``InputUnavailable``; a confirmation follows ``CONFIRM_UNASKABLE``
(docs/input.md).
"""

from __future__ import annotations

import copy
import json
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import gettext_lazy as _

from ..conf import mcp_settings
from ..core.context import Notifier, ToolCallContext, get_context
from ..exceptions import InputUnavailable
from ..protocol import inputs
from ..protocol.jsonrpc import INVALID_PARAMS, MISSING_CAPABILITY, JSONRPCError
from ..tools.tool import Tool
from .request_state import Binding, Confirmation, State, read

#: Keys the package asks under itself; a view's own keys may not start with it.
RESERVED_PREFIX = "django-mcp-tools/"
CONFIRM_KEY = RESERVED_PREFIX + "confirm"
CANCELLED = "Cancelled by the user"
#: A confirmation is a yes or no: the client's accept or decline, with nothing to fill in.
CONFIRM_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
#: Characters of each argument value a default confirmation message shows.
MAX_SHOWN_VALUE = 200
#: What a confirmed tool does where its client can't be asked (``CONFIRM_UNASKABLE``).
UNASKABLE_MODES = ("refuse", "run")
UNASKABLE = "This tool needs the user's confirmation, which this client cannot ask for"
NOT_CONFIRMED = "Not confirmed: the user did not answer in time"
NOT_ASKED = (
    "Not confirmed: this server already holds as many unanswered questions as it allows "
    "({bound}); try again once one is answered"
)
#: Times one key is asked over a stream before a client whose answers never fit is given up.
MAX_ASKS = 3


class NoAnswer(InputUnavailable):
    """The client did not answer an input request within ``INPUT_TIMEOUT``."""

    default_detail = _("This tool asked the user for input, and no answer came in time")
    default_code = "input_unavailable"


class Busy(InputUnavailable):
    """The process already holds as many streams waiting on clients as it allows
    (``MAX_STREAMS``, or the caller's ``MAX_STREAMS_PER_CALLER``): a handshake-era ask is
    refused at once, before it is sent, rather than hold a server thread
    (docs/deployment.md#held-streams)."""

    default_detail = _(
        "This tool asked the user for input, and this server already holds as many "
        "unanswered questions as it allows"
    )
    default_code = "input_unavailable"

    @classmethod
    def past(cls, setting: str, limit: int) -> Busy:
        """Return the refusal of an ask past ``setting`` (``limit``), naming both."""
        busy = cls(f"{cls.default_detail} ({setting}: {limit}); try again once one is answered")
        busy.bound = f"{setting}: {limit}"
        return busy

    #: The bound that was reached, as the message names it.
    bound = "MAX_STREAMS"


class InputRequired(BaseException):
    """End the view's run: the client must answer ``requests`` before the call can go on.

    A ``BaseException``, like ``asyncio.CancelledError``: a view's ``except Exception``
    (and DRF's exception handling) must not swallow it, or the view would go on without
    the answer it asked for.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(", ".join(requests))
        self.requests = requests


class StreamNeeded(InputRequired):
    """End a handshake-era run that asks without a stream: the call starts again on one,
    where the ask goes out to the client (docs/input.md). The run's atomic block rolls back
    as for any exception, and nothing of it is reported."""


@dataclass
class Inputs:
    """What one round of a 2026-07-28 tool call can ask its client, and the answers it has."""

    #: The ``clientCapabilities`` of this request's ``_meta``.
    capabilities: Mapping[str, object]
    #: The answers of earlier rounds (from the state), then this round's ``inputResponses``.
    answers: dict[str, object]
    #: What the state is bound to, to sign the next round's.
    binding: Binding
    #: The answers the view has read in this run: what the next round's state carries.
    used: dict[str, object] = field(default_factory=dict)
    #: The accepted confirmation among ``answers``, named by the state that asked for it.
    confirmation: Confirmation | None = None
    #: The confirmation this run holds (``Confirmation.hold``): given back if it asks again.
    held: Confirmation | None = None


def receive(
    params: Mapping[str, Any], capabilities: Mapping[str, object] | None, binding: Binding
) -> Inputs:
    """Return the ``Inputs`` of a 2026-07-28 ``tools/call`` from its params.

    Raises ``JSONRPCError`` (-32602) unless ``inputResponses`` is a valid ``InputResponses``
    object within ``MAX_INPUT_BYTES`` and a ``requestState`` is one this server signed for
    this tool, these arguments and this caller, not expired.

    A retry's answer replaces an earlier round's for the same key. An answer may come before
    its question (the view's ask checks it against what it asks), except an ``accept`` of
    the confirmation: taken only from the retry of the round that put it to the user, while
    a ``decline`` or ``cancel`` stands whenever it comes.
    """
    state = read(params["requestState"], binding) if "requestState" in params else State()
    responses: dict[str, Any] = {}
    if "inputResponses" in params:
        try:
            responses = inputs.check_responses(params["inputResponses"])
        except ValueError as exc:
            raise JSONRPCError(INVALID_PARAMS, f"Invalid params: {exc}") from None
        limit = mcp_settings.MAX_INPUT_BYTES
        if len(json.dumps(responses, ensure_ascii=False).encode()) > limit:
            raise JSONRPCError(
                INVALID_PARAMS, f"Invalid params: inputResponses exceed {limit} bytes"
            )
    if CONFIRM_KEY not in state.asked and _accepted(responses.get(CONFIRM_KEY)):
        # A "yes" to a question never put to the user is no answer; a "no" stands.
        responses = {key: value for key, value in responses.items() if key != CONFIRM_KEY}
    answers = {**state.answers, **responses}
    confirmation = state.confirmation
    if CONFIRM_KEY in responses:
        confirmation = Confirmation(state.id, state.issued_at)
    if confirmation is None or confirmation.expired():
        answers.pop(CONFIRM_KEY, None)  # asked again, with a state of its own
        confirmation = None
    return Inputs(dict(capabilities or {}), answers, binding, confirmation=confirmation)


def request_input(request: HttpRequest, requests: Mapping[str, Any]) -> dict[str, Any]:
    """Ask the client for input; return ``{key: the client's result}``.

    ``requests`` maps keys to ``{"method": "elicitation/create" | "sampling/createMessage" |
    "roots/list", "params": {...}}``. Every key not answered yet is asked in one round: the
    call ends with an input-required result and the view runs again, from the start, when
    the client retries with the answers, so code before the ask must be safe to repeat.
    Raises ``InputUnavailable`` outside a tool call or where the client can't answer, and
    ``ValueError`` for a malformed request.
    """
    checked = inputs.check_requests(requests)
    for key in checked:
        if key.startswith(RESERVED_PREFIX):
            raise ValueError(f"request_input: keys starting with {RESERVED_PREFIX!r} are reserved")
    return _ask(request, checked)


def elicit(
    request: HttpRequest, key: str, message: str, requested_schema: Mapping[str, Any]
) -> dict[str, Any]:
    """Ask the user to fill in a form; return ``{"action": ..., "content": ...}``.

    ``action`` is ``accept`` (with ``content`` matching ``requested_schema``), ``decline``
    or ``cancel``. The one-elicitation form of ``request_input``.
    """
    params = {"message": message, "requestedSchema": dict(requested_schema)}
    answer = request_input(request, {key: {"method": inputs.ELICIT, "params": params}})[key]
    return {"action": answer["action"], "content": answer.get("content")}


def _ask(request: HttpRequest, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
    context = get_context(request)
    if context is None:
        raise InputUnavailable()
    channel = _channel(context)
    if channel is None:
        version = context.stream_on_ask if context.notifier is None else None
        if version and all(can_ask_on_stream(version, asked) for asked in requests.values()):
            raise StreamNeeded(requests)
        return _ask_over_stream(context.notifier, requests)
    for asked in requests.values():
        if not inputs.declares(channel.capabilities, asked):
            unavailable = InputUnavailable()
            unavailable.required_capabilities = inputs.required_capabilities(asked)
            context.unavailable = unavailable
            raise unavailable
    answered: dict[str, Any] = {}
    pending: dict[str, dict[str, Any]] = {}
    for key, asked in requests.items():
        answer = channel.answers.get(key)
        if isinstance(answer, dict) and inputs.answers(asked, answer):
            answered[key] = answer
        else:
            pending[key] = asked
    channel.used.update(answered)
    if pending:
        raise InputRequired(pending)
    return copy.deepcopy(answered)


def _ask_over_stream(
    notifier: Notifier | None, requests: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Ask ``requests`` on a handshake-era call's stream; return the client's results.

    Raises ``InputUnavailable`` when the call can't ask (not streamed, a version without
    the request) or the client answers with an error (-32601: it does not support it),
    ``Busy`` at once where the process holds all the asks it allows, ``NoAnswer`` past
    ``INPUT_TIMEOUT``, and ``ClientDisconnected`` once the client left.
    An answer that does not fit what was asked is asked again, as in 2026-07-28.
    """
    if notifier is None or not all(notifier.can_ask(asked) for asked in requests.values()):
        raise InputUnavailable()
    answered: dict[str, Any] = {}
    pending = dict(requests)
    for _attempt in range(MAX_ASKS):
        for key, response in notifier.ask(pending).items():
            result = response.get("result")
            if result is None:
                raise InputUnavailable()  # the client can't (or won't) answer this request
            if inputs.answers(pending[key], result):
                answered[key] = result
        pending = {key: asked for key, asked in pending.items() if key not in answered}
        if not pending:
            return copy.deepcopy(answered)
    raise InputUnavailable("The client's answers did not fit what this tool asked for")


def unavailable_error(
    request: HttpRequest, outcome: HttpResponseBase | BaseException
) -> JSONRPCError | None:
    """Return the -32021 error a call answers when its view failed for want of a capability.

    ``outcome`` is what the view produced: its response (DRF's rendering of the
    ``InputUnavailable`` an ask raised) or the exception that escaped it. A view that
    caught the ``InputUnavailable`` and answered otherwise is answered as usual.
    """
    context = get_context(request)
    unavailable = context.unavailable if context is not None else None
    if unavailable is None or unavailable.required_capabilities is None:
        return None
    if isinstance(outcome, BaseException):
        if outcome is not unavailable:
            return None
    else:
        if not getattr(outcome, "exception", False) or outcome.status_code != 400:
            return None
        data = getattr(outcome, "data", None)
        detail = data.get("detail") if isinstance(data, dict) else None
        if getattr(detail, "code", None) != InputUnavailable.default_code:
            return None
    required = unavailable.required_capabilities
    return JSONRPCError(
        MISSING_CAPABILITY,
        f"Missing required client capability: {', '.join(required)}",
        data={"requiredCapabilities": required},
        status=400,
    )


# Confirmation of destructive tools ----------------------------------------------------------


def confirmation(tool: Tool) -> str | None:
    """Return the message template of ``tool``'s confirmation, or None when it needs none.

    ``@mcp_tool(confirm=...)`` decides; left unset, ``CONFIRM_DESTRUCTIVE`` asks before
    every tool whose annotations say it is destructive.
    """
    confirm = tool.options.confirm
    if confirm is None:
        annotations = tool.annotations
        confirm = bool(
            mcp_settings.CONFIRM_DESTRUCTIVE
            and annotations.get("destructiveHint")
            and not annotations.get("readOnlyHint")
        )
    if confirm is False:
        return None
    return confirm if isinstance(confirm, str) else ""


def confirmation_message(template: str, tool: Tool, arguments: Mapping[str, Any]) -> str:
    """Return the question put to the user: ``template`` formatted with the arguments.

    A ``{name}`` the arguments lack stays as written; without a template, the message names
    the tool and its arguments.
    """
    if template:
        try:
            return _Formatter().vformat(template, (), dict(arguments))
        except (ValueError, TypeError, LookupError, AttributeError):
            return template
    if not arguments:
        return f"Run {tool.name}?"
    shown = ", ".join(f"{name}={_shown(value)}" for name, value in arguments.items())
    return f"Run {tool.name} with {shown}?"


def confirm(request: HttpRequest, message: str) -> str | None:
    """Ask the user to allow this call; return None to run the view, else why it must not.

    In 2026-07-28 an acceptance runs the view once: it is held for this run in the shared
    cache, and a second run on the same acceptance (a replayed retry) asks the user again.
    In the handshake era the question goes out on the call's stream and its answer is
    taken once, unless the process already holds all the asks it allows: then the call is
    refused at once (``NOT_ASKED``). Where the client can't be asked, ``CONFIRM_UNASKABLE``
    decides: ``refuse`` (the default) or ``run``.
    """
    context = get_context(request)
    params = {"message": message, "requestedSchema": copy.deepcopy(CONFIRM_SCHEMA)}
    asked: dict[str, Any] = {"method": inputs.ELICIT, "params": params}
    if context is None:
        return _unaskable()
    channel = _channel(context)
    if channel is None:
        notifier = context.notifier
        if notifier is None or not notifier.can_ask(asked):
            return _unaskable()
        try:
            answer = _ask_over_stream(notifier, {CONFIRM_KEY: asked})[CONFIRM_KEY]
        except NoAnswer:
            return NOT_CONFIRMED
        except Busy as busy:  # the client could be asked: CONFIRM_UNASKABLE does not apply
            return NOT_ASKED.format(bound=busy.bound)
        except InputUnavailable:  # the client answered that it can't elicit
            return _unaskable()
        return None if _accepted(answer) else CANCELLED
    if not inputs.declares(channel.capabilities, asked):
        return _unaskable()
    acceptance = channel.confirmation
    if acceptance is not None and _accepted(channel.answers.get(CONFIRM_KEY)):
        if acceptance.hold():
            channel.held = acceptance
        else:  # another run has taken (or spent) this acceptance: ask the user again
            channel.answers.pop(CONFIRM_KEY)
            channel.confirmation = None
    return None if _accepted(_ask(request, {CONFIRM_KEY: asked})[CONFIRM_KEY]) else CANCELLED


def _channel(context: ToolCallContext) -> Inputs | None:
    """Return what this round can ask, which ``pipeline.invocation`` put on the context."""
    return context.inputs if isinstance(context.inputs, Inputs) else None


def _unaskable() -> str | None:
    return None if mcp_settings.CONFIRM_UNASKABLE == "run" else UNASKABLE


def can_confirm_over_stream(version: str) -> bool:
    """Return whether a handshake-era client of ``version`` can be asked to confirm, once
    its call is streamed (elicitation exists since 2025-06-18)."""
    params = {"message": "", "requestedSchema": CONFIRM_SCHEMA}
    return inputs.handshake_supports(version, {"method": inputs.ELICIT, "params": params})


def can_ask_on_stream(version: str, request: Mapping[str, Any]) -> bool:
    """Return whether a handshake-era call of ``version`` can send ``request`` on its
    stream: whether the version has it."""
    return inputs.handshake_supports(version, request)


def _accepted(answer: object) -> bool:
    return isinstance(answer, dict) and answer.get("action") == "accept"


class _Formatter(string.Formatter):
    def get_value(self, key: int | str, args: Any, kwargs: Any) -> Any:
        if isinstance(key, str) and key not in kwargs:
            return "{" + key + "}"
        return super().get_value(key, args, kwargs)


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_SHOWN_VALUE else text[: MAX_SHOWN_VALUE - 1] + "…"
