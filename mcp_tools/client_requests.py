"""Requests the server sends its client in the handshake era, and their responses.

A view that asks for input in a 2025-06-18 or 2025-11-25 call (``elicit``,
``request_input``, ``confirm``) sends the client a JSON-RPC request on the call's SSE
stream and waits for the answer. The client POSTs its response to the endpoint, and any
worker of any host may receive it: the response travels to the worker holding the stream
through the shared cache (``MCP_TOOLS["CACHE"]``), under the request's id, which is
random, single-use and bound to the caller that made the call (docs/input.md).

With a per-process cache (``LocMemCache``, ``DummyCache``) the database carries the
response instead (``mcp_tools.shared_cache``).
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from typing import Any

from .conf import mcp_settings
from .protocol.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, JSONRPCError
from .shared_cache import shared_cache

#: Every id of a request the server sent starts so; the rest is random (128 bits).
ID_PREFIX = "mcp-tools-"
ID_PATTERN = re.compile(re.escape(ID_PREFIX) + r"[A-Za-z0-9_-]{22}")
#: The shared cache's keys: the request's caller, then the response once it came.
PREFIX = "mcp_tools:client-request:"
#: The longest wait between two reads of the shared cache, in seconds; a response that
#: reaches this process (its own POST) wakes the waiter at once.
MAX_POLL = 0.25
#: Seconds a request's keys outlive its wait: a response that comes just too late is
#: refused as expired, never misread.
SLACK = 5

REFUSED = "Invalid Request: no request of this server awaits this response"

_lock = threading.Lock()
_waiting: dict[str, threading.Event] = {}


def _cache() -> Any:
    return shared_cache()


def open_request(caller: str, timeout: float) -> str:
    """Return the id of a new request made on behalf of ``caller``, open for ``timeout``
    seconds: only a response from that caller, with that id, answers it."""
    request_id = ID_PREFIX + secrets.token_urlsafe(16)
    with _lock:
        _waiting[request_id] = threading.Event()
    _cache().set(PREFIX + request_id, caller, timeout=timeout + SLACK)
    return request_id


def close_request(request_id: str) -> None:
    """Forget the request: a later response to it is refused."""
    with _lock:
        _waiting.pop(request_id, None)
    _cache().delete_many([PREFIX + request_id, PREFIX + request_id + ":response"])


def deliver(value: dict[str, Any], caller: str) -> None:
    """Hand a response the client POSTed to the worker waiting for it.

    Raises ``JSONRPCError`` (HTTP 400) for a response to no open request of this caller's
    (an unknown, expired or already answered id, or another caller's: one answer for all,
    which tells nothing of the others' requests), and for a result larger than
    ``MAX_INPUT_BYTES`` or not an object.
    """
    request_id = value.get("id")
    # Only an id of ours reaches the cache (whose backend may refuse long or odd keys).
    if not isinstance(request_id, str) or not ID_PATTERN.fullmatch(request_id):
        raise JSONRPCError(INVALID_REQUEST, REFUSED, status=400)
    cache = _cache()
    if cache.get(PREFIX + request_id) != caller:
        raise JSONRPCError(INVALID_REQUEST, REFUSED, status=400)
    if "result" in value:
        result = value["result"]
        if not isinstance(result, dict):
            raise JSONRPCError(
                INVALID_PARAMS, "Invalid params: result must be an object", status=400
            )
        limit = mcp_settings.MAX_INPUT_BYTES
        if len(json.dumps(result, ensure_ascii=False).encode()) > limit:
            raise JSONRPCError(
                INVALID_PARAMS, f"Invalid params: the result exceeds {limit} bytes", status=400
            )
        response: dict[str, Any] = {"result": result}
    else:
        error = value.get("error")
        response = {"error": error if isinstance(error, dict) else {}}
    # The first response counts: one atomic add, so two workers can't both deliver.
    if not cache.add(
        PREFIX + request_id + ":response", response, timeout=mcp_settings.INPUT_TIMEOUT
    ):
        raise JSONRPCError(INVALID_REQUEST, REFUSED, status=400)
    with _lock:
        event = _waiting.get(request_id)
    if event is not None:
        event.set()


def wait(request_id: str, deadline: float, stopped: threading.Event) -> dict[str, Any] | None:
    """Return the response to ``request_id`` (``{"result": ...}`` or ``{"error": ...}``),
    or None when ``deadline`` (``time.monotonic()``) passes or ``stopped`` is set first."""
    with _lock:
        event = _waiting.get(request_id) or threading.Event()
    key = PREFIX + request_id + ":response"
    poll = 0.02
    cache = _cache()
    while not stopped.is_set():
        response = cache.get(key)
        if response is not None:
            return dict(response)
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        event.wait(min(poll, left))
        poll = min(poll * 2, MAX_POLL)
    return None
