"""Input a server asks for mid-call: answered by ``on_input_required``, or a clear error.

A 2026-07-28 server that needs the user's answer (a confirmation, a form, a sampled
message, the client's roots) answers a ``tools/call`` with an input-required result; the
client retries the call with the answers. ``on_input_required`` gives them: it receives one
round's requests as wire dicts, key → ``{"method", "params"}``, and returns the results by
key (an ``ElicitResult`` such as ``{"action": "accept", "content": {...}}``, a
``CreateMessageResult``, a ``ListRootsResult``), synchronously or as an awaitable.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._errors import InputRequiredError

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp_types import CallToolResult

#: One round's requests → the client's results, by key (a plain or an async callable).
InputHandler = Callable[
    [dict[str, dict[str, Any]]], "Mapping[str, Any] | Awaitable[Mapping[str, Any]]"
]

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
LIST_ROOTS = "roots/list"
INPUT_METHODS = (ELICIT, SAMPLE, LIST_ROOTS)
#: Rounds of one call before the adapter gives up (the SDK's own default).
MAX_INPUT_ROUNDS = 10


async def call_with_input(
    session: ClientSession,
    name: str,
    arguments: dict[str, Any] | None,
    handler: InputHandler | None,
    *,
    max_rounds: int = MAX_INPUT_ROUNDS,
) -> CallToolResult:
    """Call a tool, answering each input-required round with ``handler`` and retrying.

    Raises ``InputRequiredError`` when there is no handler, when it leaves a request
    unanswered, or after ``max_rounds`` rounds.
    """
    from mcp_types import CallToolResult, InputRequiredResult

    result = await session.call_tool(name, arguments, allow_input_required=True)
    rounds = 0
    while isinstance(result, InputRequiredResult):
        if rounds == max_rounds:
            raise InputRequiredError({}, result=result, rounds=max_rounds)
        rounds += 1
        requests = {
            key: request.model_dump(by_alias=True, mode="json", exclude_unset=True)
            for key, request in (result.input_requests or {}).items()
        }
        if handler is None:
            raise InputRequiredError(requests, result=result)
        responses: dict[str, Any] | None = None
        if requests:  # a round of state alone is retried as it is
            responses = await answer(handler, requests)
            missing = {key: request for key, request in requests.items() if key not in responses}
            if missing:
                raise InputRequiredError(missing, result=result, unanswered=True)
        result = await session.call_tool(
            name,
            arguments,
            allow_input_required=True,
            input_responses=responses,  # type: ignore[arg-type]  # validated by the SDK
            request_state=result.request_state,
        )
    if not isinstance(result, CallToolResult):
        raise TypeError(f"tools/call returned {type(result).__name__}, not a CallToolResult")
    return result


async def answer(handler: InputHandler, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Return the handler's answers to ``requests`` as a plain dict."""
    answers = handler(requests)
    if inspect.isawaitable(answers):
        answers = await answers
    if not isinstance(answers, Mapping):
        raise TypeError(f"on_input_required must return a dict, not {type(answers).__name__}")
    return {key: _plain(value) for key, value in answers.items() if key in requests}


def input_callbacks(
    handler: InputHandler, methods: Iterable[str] = INPUT_METHODS
) -> dict[str, Any]:
    """Return the ``mcp.Client`` callbacks that declare ``methods`` and answer through ``handler``.

    ``Client(transport, **input_callbacks(ask))`` tells every server which input this client
    can give (its capabilities), and answers the requests a handshake-era server sends on
    its own through the same handler, one request per round, keyed ``"request"``.
    """
    import mcp_types as types

    chosen = set(methods)
    unknown = chosen - set(INPUT_METHODS)
    if unknown:
        raise ValueError(f"input_methods: unknown methods {sorted(unknown)}")

    async def one(method: str, params: Any) -> Any:
        dumped = params.model_dump(by_alias=True, mode="json", exclude_unset=True) if params else {}
        try:
            answers = await answer(handler, {"request": {"method": method, "params": dumped}})
        except Exception as exc:
            return types.ErrorData(code=types.INTERNAL_ERROR, message=str(exc) or "Input failed")
        if "request" not in answers:
            return types.ErrorData(code=types.INVALID_REQUEST, message="No answer was given")
        return answers["request"]

    async def elicitation(context: Any, params: Any) -> Any:
        value = await one(ELICIT, params)
        return (
            value
            if isinstance(value, types.ErrorData)
            else types.ElicitResult.model_validate(value)
        )

    async def sampling(context: Any, params: Any) -> Any:
        value = await one(SAMPLE, params)
        if isinstance(value, types.ErrorData):
            return value
        return types.CreateMessageResult.model_validate(value)

    async def roots(context: Any) -> Any:
        value = await one(LIST_ROOTS, None)
        if isinstance(value, types.ErrorData):
            return value
        return types.ListRootsResult.model_validate(value)

    callbacks: dict[str, Any] = {}
    if ELICIT in chosen:
        callbacks["elicitation_callback"] = elicitation
    if SAMPLE in chosen:
        callbacks["sampling_callback"] = sampling
    if LIST_ROOTS in chosen:
        callbacks["list_roots_callback"] = roots
    return callbacks


def in_thread(handler: InputHandler) -> InputHandler:
    """Wrap a blocking handler so it runs in a worker thread, off the connection's event loop."""
    import anyio

    async def threaded(requests: dict[str, dict[str, Any]]) -> Mapping[str, Any]:
        answers = await anyio.to_thread.run_sync(handler, requests)
        if inspect.isawaitable(answers):
            answers = await answers
        return answers  # type: ignore[return-value]

    return threaded


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(by_alias=True, mode="json", exclude_none=True)
    return value
