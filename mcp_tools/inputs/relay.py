"""Requests the server sends its client in the handshake era, and their responses.

A view that asks for input in a 2025-06-18 or 2025-11-25 call (``elicit``,
``request_input``, ``confirm``) sends the client a JSON-RPC request on the call's SSE
stream and waits for the answer. The client POSTs its response to the endpoint, and any
worker of any host may receive it: the response travels to the worker holding the stream
through the shared cache (``MCP_TOOLS["CACHE"]``; with a per-process cache, the database:
``mcp_tools.core.shared_cache``), under the request's id, which is random, single-use and bound
to the caller that made the call (docs/input.md). A response that reaches the process
holding the stream is handed over in memory.

The asking side reads and writes the shared cache on a thread of its own (``_relay``), never
on the view's: a view asks inside its own transaction (``ATOMIC_REQUESTS``), where a write
to a database cache would stay unseen by the worker that takes the answer until the view
has finished.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

from django.core.cache.backends.base import BaseCache
from django.db import close_old_connections

from ..conf import mcp_settings
from ..core.shared_cache import shared_cache
from ..protocol.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, JSONRPCError

logger = logging.getLogger("mcp_tools")

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


@dataclass(eq=False)
class Pending:
    """A request of this process's, open until its view stops waiting."""

    caller: str
    arrived: threading.Event = field(default_factory=threading.Event)
    #: The response, when it was POSTed to this process.
    response: dict[str, Any] | None = None


_lock = threading.Lock()
_waiting: dict[str, Pending] = {}
#: The one thread that does the asking side's reads and writes of the shared cache, with a
#: database connection of its own (outside any view's transaction).
_relay = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-tools-relay")


def _cache() -> BaseCache:
    return shared_cache()


P = ParamSpec("P")
T = TypeVar("T")


def _on_relay(operation: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run one shared-cache operation on the relay thread and return what it returns."""

    def run() -> T:
        close_old_connections()  # as around a request: an obsolete or broken one is replaced
        try:
            return operation(*args, **kwargs)
        finally:
            close_old_connections()

    return _relay.submit(run).result()


def open_request(caller: str, timeout: float) -> str:
    """Return the id of a new request made on behalf of ``caller``, open for ``timeout``
    seconds: only a response from that caller, with that id, answers it."""
    request_id = ID_PREFIX + secrets.token_urlsafe(16)
    with _lock:
        _waiting[request_id] = Pending(caller)
    try:
        _on_relay(_cache().set, PREFIX + request_id, caller, timeout=timeout + SLACK)
    except Exception:
        # The answer can still reach this process; another one would refuse it.
        logger.warning(
            "The handshake-era request %s could not be shared with the other workers: only "
            "this process can take its answer",
            request_id,
            exc_info=True,
        )
    return request_id


def close_request(request_id: str) -> None:
    """Forget the request: a later response to it is refused."""
    with _lock:
        _waiting.pop(request_id, None)
    keys = [PREFIX + request_id, PREFIX + request_id + ":response"]
    try:
        _on_relay(_cache().delete_many, keys)
    except Exception:  # the keys expire by themselves
        logger.warning("The handshake-era request %s outlives its wait", request_id)


def deliver(value: dict[str, object], caller: str) -> None:
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
    with _lock:
        local = _waiting.get(request_id)
    if local is not None:  # this process asked: handed over in memory
        if local.caller != caller:
            raise JSONRPCError(INVALID_REQUEST, REFUSED, status=400)
        response = _response(value)
        with _lock:
            if local.response is not None or _waiting.get(request_id) is not local:
                raise JSONRPCError(INVALID_REQUEST, REFUSED, status=400)
            local.response = response
        local.arrived.set()
        return
    cache = _cache()
    if cache.get(PREFIX + request_id) != caller:
        raise JSONRPCError(INVALID_REQUEST, REFUSED, status=400)
    # The first response counts: one atomic add, so two workers can't both deliver.
    if not cache.add(
        PREFIX + request_id + ":response", _response(value), timeout=mcp_settings.INPUT_TIMEOUT
    ):
        raise JSONRPCError(INVALID_REQUEST, REFUSED, status=400)


def _response(value: dict[str, object]) -> dict[str, Any]:
    """Return what a POSTed response carries to its waiter: its result, or its error.

    Raises ``JSONRPCError`` (HTTP 400) for a result larger than ``MAX_INPUT_BYTES`` or not
    an object."""
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
        return {"result": result}
    error = value.get("error")
    return {"error": error if isinstance(error, dict) else {}}


def wait(request_id: str, deadline: float, stopped: threading.Event) -> dict[str, Any] | None:
    """Return the response to ``request_id`` (``{"result": ...}`` or ``{"error": ...}``),
    or None when ``deadline`` (``time.monotonic()``) passes or ``stopped`` is set first."""
    with _lock:
        pending = _waiting.get(request_id) or Pending("")
    key = PREFIX + request_id + ":response"
    poll = 0.02
    cache = _cache()
    while not stopped.is_set():
        if pending.response is not None:
            return dict(pending.response)
        try:
            response = _on_relay(cache.get, key)
        except Exception:  # read again at the next poll; a POST to this process still counts
            logger.warning("Reading the answer to %s failed", request_id, exc_info=True)
            response = None
        if response is not None:
            return dict(response)
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        pending.arrived.wait(min(poll, left))
        poll = min(poll * 2, MAX_POLL)
    return None
