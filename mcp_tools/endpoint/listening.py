"""A listener's SSE stream: ``subscriptions/listen``'s answer, or the handshake era's GET.

The stream holds one of the process's held streams (``core.holds``: ``MAX_STREAMS``, of
which ``MAX_STREAMS_PER_CALLER`` per caller) for as long as its client reads; past either
bound it is refused at once, never queued (``refused``). It holds no thread of
its own: the watcher (``subscriptions.watcher``) puts its notifications in its channel,
and the server's own thread (WSGI) or event loop (ASGI) sends them, with a comment every
``KEEP_ALIVE`` seconds by which a client that left is found (docs/subscriptions.md).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse

from ..core.holds import NoRoom, holds
from ..protocol import jsonrpc
from ..protocol.jsonrpc import THROTTLED, JSONRPCError
from ..protocol.versions import SERVER_INFO_META_KEY
from ..subscriptions.listeners import Listener, Listening
from ..subscriptions.watcher import watcher
from .handlers import server_info
from .server import Answer
from .streaming import EVENT_STREAM, KEEP_ALIVE_COMMENT, Channel, Event, sse_event

__all__ = ["refused", "stream"]

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
#: Seconds a quiet stream waits before it sends a comment: proxies end idle responses, and
#: under WSGI only a write finds that the client left (the second one after it did), which
#: gives its held stream back.
KEEP_ALIVE = 5.0
#: Seconds a refused client is told to wait before it tries again.
RETRY_AFTER = 15


class ListenerResponse(StreamingHttpResponse):
    """The stream's response: closed by the server however it ends (sent, cut, or never
    started), which lets the listener go and gives its held stream back."""

    def __init__(self, events: Any, end: Callable[[], None]) -> None:
        super().__init__(events, content_type=EVENT_STREAM)
        self["Cache-Control"] = "no-cache, no-transform"
        self["X-Accel-Buffering"] = "no"  # proxies (nginx) would hold events back
        self._end = end

    def close(self) -> None:
        self._end()  # first: a stream read on another thread (a test's) stops at once
        super().close()


def refused(listening: Listening, full: NoRoom) -> HttpResponse:
    """Answer a listener past the held streams' budget, at once: a ``subscriptions/listen``
    429 (-32029, ``Retry-After``); a GET 405, as the transport says a server answers that
    offers no stream (clients carry on without one: a 429 would fail their connection)."""
    message = (
        f"Too many held streams: this server holds as many as it allows ({full.setting}: "
        f"{full.limit}); try again later"
    )
    status = 405 if listening.on_get else 429
    answer = Answer.error(listening.request_id, JSONRPCError(THROTTLED, message))
    response = HttpResponse(answer.body.encode(), status=status, content_type="application/json")
    if status == 405:
        response["Allow"] = "POST"
    else:
        response["Retry-After"] = str(RETRY_AFTER)
    return response


def stream(request: HttpRequest, listening: Listening) -> HttpResponseBase:
    """Open ``listening``'s stream: its acknowledgement first (listen), then what the
    watcher hears for it, until its client leaves."""
    try:
        holds.acquire(listening.holder)
    except NoRoom as full:
        return refused(listening, full)
    channel = Channel()
    subscription = listening.request_id

    def send(method: str, params: dict[str, Any]) -> bool:
        if not listening.on_get:
            params = {**params, "_meta": {SUBSCRIPTION_ID: subscription}}
        data = jsonrpc.notification_envelope(method, params)
        return channel.put(Event(data), time.monotonic())  # behind: dropped, never waited

    def finish() -> None:
        """End the stream as its server stops: a listen with its result, which tells its
        client the subscription ended gracefully (it listens again elsewhere)."""
        if listening.on_get:
            channel.close()  # the GET stream ends: its client opens another
            return
        meta = {SUBSCRIPTION_ID: subscription, SERVER_INFO_META_KEY: server_info()}
        result = {"resultType": "complete", "_meta": meta}
        channel.put(Event(jsonrpc.result_envelope(subscription, result), final=True))

    listener = Listener(
        listening.audience,
        listening.wants,
        send,
        dict(listening.stamps),
        listening.subscriber,
        finish=finish,
    )
    lock = threading.Lock()
    ended: list[bool] = []

    def end() -> None:
        """Let the listener go and give its held stream back: once, whoever asks first."""
        with lock:
            if ended:
                return
            ended.append(True)
        watcher.remove(listener)
        channel.close()
        holds.release(listening.holder)

    try:
        if listening.honored is not None:
            send("notifications/subscriptions/acknowledged", {"notifications": listening.honored})
        events: Iterator[bytes] | AsyncIterator[bytes]
        if isinstance(request, ASGIRequest):
            events = _async_events(channel, end)
        else:
            events = _sync_events(channel, end)
        response = ListenerResponse(events, end)
        watcher.add(listener)
    except BaseException:
        end()
        raise
    # A response Django drops unsent (its client left under ASGI before the view returned,
    # a middleware's exception replaced it) is never closed: it gives its stream back when
    # it is collected.
    weakref.finalize(response, end)
    let_go_of_databases()
    return response


def let_go_of_databases() -> None:
    """Close the request thread's database connections before its stream is held: a
    listener may be held for hours, and each connection it kept would be one fewer for
    the site (outside a transaction only; the view's request is done with them)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def _relay(item: Event | None, channel: Channel) -> tuple[bytes | None, bool]:
    """Return what to send for ``item`` (None: ``KEEP_ALIVE`` passed, or the stream was
    closed), and whether the stream ends: closed, or its final event (a listen's result)."""
    if item is not None:
        return sse_event(item.data), item.final
    if channel.closed:
        return None, True
    return KEEP_ALIVE_COMMENT, False


def _sync_events(channel: Channel, end: Callable[[], None]) -> Iterator[bytes]:
    """Yield the stream to a WSGI server: a write that fails (the client left) closes it.

    A WSGI server sends the status and headers with the first bytes it is given: a stream
    with nothing to say yet (the handshake era's GET) starts with a comment, or its client
    would see it open only at its first event or keep-alive."""
    try:
        if not channel.size:
            yield KEEP_ALIVE_COMMENT
        done = False
        while not done:
            chunk, done = _relay(channel.get(KEEP_ALIVE, until_closed=True), channel)
            if chunk is not None:
                yield chunk
    finally:
        end()


async def _async_events(channel: Channel, end: Callable[[], None]) -> AsyncIterator[bytes]:
    """Yield the stream to an ASGI server; Django cancels it when the client disconnects."""
    try:
        done = False
        while not done:
            chunk, done = _relay(await channel.aget(KEEP_ALIVE), channel)
            if chunk is not None:
                yield chunk
    finally:
        end()
