"""A tool call answered as an SSE stream: its notifications as they happen, then its result.

The view runs in a worker thread that feeds a channel; the response iterates that channel,
with a sync iterator under WSGI and an async one under ASGI, so neither server buffers the
stream (Django consumes a sync iterator whole under ASGI, and an async one under WSGI).

Every part is bounded, whether the client reads or not (docs/protocol.md): the channel
holds ``MAX_PENDING`` characters of events besides the answer, ``CALL_TIMEOUT`` stops the
view from its own side, and a response its client stopped reading ends ``DELIVERY_GRACE``
seconds later.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import math
import os
import queue
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest, StreamingHttpResponse
from django.urls import get_script_prefix, get_urlconf, set_script_prefix, set_urlconf
from django.utils import translation

from ..auth.caller import caller_key, quota_key
from ..conf import mcp_settings
from ..core import errors
from ..core.encoding import encode_value
from ..core.holds import NoRoom, holds
from ..exceptions import ClientDisconnected
from ..inputs import relay as client_requests
from ..inputs.asks import Busy, NoAnswer, can_ask_on_stream
from ..pipeline.invocation import Invocation
from ..protocol import jsonrpc
from ..protocol.projection import project_progress
from ..protocol.versions import Era, sends_log
from .exchange import Call
from .server import Answer, complete, serve_invocation
from .stream_slots import slots
from .watchdog import Alarm, watchdog

if TYPE_CHECKING:  # loaded with the first prompt asked for
    from ..prompts.runs import PromptRun

logger = logging.getLogger("mcp_tools")

EVENT_STREAM = "text/event-stream"


#: The most JSON text (in characters) a stream holds for its client besides its answer.
#: Past it, ``log_message`` waits for the client to read (until ``CALL_TIMEOUT``), and a
#: progress report replaces the one still waiting: progress says where the call is, so the
#: latest is all a client needs. ``MAX_STREAMS`` streams hold at most that many times this.
MAX_PENDING = 256 * 1024
#: Seconds past ``CALL_TIMEOUT`` a client has to take the stream's last event before the
#: stream is ended without it (a client that stopped reading).
DELIVERY_GRACE = 5.0
#: Seconds a stream may stay quiet before it sends a comment: proxies end idle responses
#: (nginx after 60 s), and a view waiting for its user's answer may be quiet for minutes.
KEEP_ALIVE = 15.0
KEEP_ALIVE_COMMENT = b": keep-alive\n\n"


@dataclass(frozen=True, slots=True)
class Event:
    """One JSON-RPC message for the stream; the final one (the answer) ends it."""

    data: str
    final: bool = False
    #: A progress notification: a later one replaces it while it waits to be sent.
    replaceable: bool = False


class Channel:
    """A bounded thread-safe queue, fed by the view's thread (``put``) and read by a thread
    (``get``) or by an event loop (``aget``).

    It holds at most ``limit`` characters of events, or one larger event alone, besides the
    final event, which it always takes: the answer is never dropped. Once closed (nobody
    reads any more) it holds nothing.
    """

    def __init__(self, limit: int = MAX_PENDING) -> None:
        self.limit = limit
        self._items: deque[Event] = deque()
        self._size = 0
        self._closed = False
        self._condition = threading.Condition()
        self._waker: Callable[[], None] | None = None

    @property
    def closed(self) -> bool:
        """Whether nobody reads any more (``close``)."""
        return self._closed

    @property
    def size(self) -> int:
        """Return the characters of the events waiting to be read."""
        return self._size

    def put(self, item: Event, deadline: float = math.inf) -> bool:
        """Queue ``item``, waiting for room until ``deadline`` (``time.monotonic()``).

        Returns False, ``item`` dropped, when the channel is closed or ``deadline`` passes
        first. A replaceable event first drops the one still queued.
        """
        with self._condition:
            if self._closed:
                return False
            if item.replaceable:
                self._drop_replaceable()
            if not item.final:
                timeout = None if deadline == math.inf else max(deadline - time.monotonic(), 0)
                fits = self._condition.wait_for(lambda: self._fits(item), timeout=timeout)
                if not fits or self._closed:
                    return False
            self._items.append(item)
            self._size += len(item.data)
            self._condition.notify_all()
            waker = self._waker
        if waker is not None:
            waker()
        return True

    def _fits(self, item: Event) -> bool:
        return self._closed or not self._items or self._size + len(item.data) <= self.limit

    def _drop_replaceable(self) -> None:
        if any(queued.replaceable for queued in self._items):
            self._items = deque(queued for queued in self._items if not queued.replaceable)
            self._size = sum(len(queued.data) for queued in self._items)

    def _pop(self) -> Event | None:
        if not self._items:
            return None
        item = self._items.popleft()
        self._size -= len(item.data)
        self._condition.notify_all()  # room for a waiting put
        return item

    def close(self) -> None:
        """Drop what is queued, and wake and refuse every ``put``: nobody reads any more."""
        with self._condition:
            self._closed = True
            self._items.clear()
            self._size = 0
            self._condition.notify_all()

    def get(self, timeout: float, *, until_closed: bool = False) -> Event | None:
        """Return the next item, or None when ``timeout`` seconds pass first (or, with
        ``until_closed``, when the channel is closed first)."""
        with self._condition:
            self._condition.wait_for(
                lambda: self._items or (until_closed and self._closed), timeout=max(timeout, 0)
            )
            return self._pop()

    async def aget(self, timeout: float) -> Event | None:
        """Return the next item without blocking the event loop, or None after ``timeout``."""
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()

        def wake() -> None:
            # The loop may have closed: then nobody is reading any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(ready.set)

        with self._condition:
            if self._items:
                return self._pop()
            self._waker = wake
        try:
            await asyncio.wait_for(ready.wait(), max(timeout, 0))
        except TimeoutError:
            pass
        finally:
            with self._condition:
                self._waker = None
        with self._condition:
            return self._pop()


class Notifier:
    """Send one tool call's progress and log notifications into its channel, until the
    stream is over: the client left, or the call reached ``CALL_TIMEOUT``.

    The time limit holds here, on the view's side, whether or not the response is being
    read: a client that stops reading can't keep the view running, nor its events queued.
    """

    def __init__(self, channel: Channel, spec: StreamSpec) -> None:
        self.channel = channel
        self.spec = spec
        self.deadline = time.monotonic() + spec.timeout
        self.closed = threading.Event()
        #: The view was stopped by the time limit: its answer is the timeout's.
        self.expired = False

    @property
    def timeout(self) -> float:
        """The call's time limit in seconds: ``CALL_TIMEOUT`` when it started."""
        return self.spec.timeout

    def close(self) -> None:
        """Mark the stream over: the client left, or the call timed out or finished."""
        self.closed.set()
        self.channel.close()

    def check(self) -> None:
        if self.closed.is_set():
            raise ClientDisconnected("The MCP client is no longer listening to this tool call")
        if time.monotonic() >= self.deadline:
            self.expire()

    def expire(self) -> NoReturn:
        self.expired = True
        raise ClientDisconnected(
            f"The tool call reached CALL_TIMEOUT ({self.spec.timeout:g} s): nobody will read "
            "what it sends"
        )

    def can_ask(self, request: dict[str, Any]) -> bool:
        """Return whether this stream can carry ``request`` to its client: a handshake-era
        call (2026-07-28 asks by input-required results) of a version that has it."""
        era = self.spec.era
        return not era.modern and can_ask_on_stream(era.version, request)

    def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Send ``requests`` (key → method and params) to the client on this stream; return
        key → its response (``{"result": ...}`` or ``{"error": ...}``).

        Raises ``NoAnswer`` when a response has not come within ``INPUT_TIMEOUT``,
        ``ClientDisconnected`` once nobody reads, and ``Busy`` at once, before anything is
        sent, when the process's held streams are all taken (``MAX_STREAMS``, or the
        caller's ``MAX_STREAMS_PER_CALLER``): the wait would hold a server thread the
        operator kept for others (docs/deployment.md#held-streams). The time spent waiting
        is the user's, not the view's: ``CALL_TIMEOUT`` holds what is left of it once the
        answers are in.
        """
        self.check()
        try:
            with holds.hold(self.spec.holder):  # released answered, timed out or left
                return self._ask(requests)
        except NoRoom as full:  # only the hold raises it: nothing was sent
            raise Busy.past(full.setting, full.limit) from None

    def _ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        timeout = mcp_settings.INPUT_TIMEOUT
        started = time.monotonic()
        left = self.deadline - started
        ids = {key: client_requests.open_request(self.spec.caller, timeout) for key in requests}
        responses: dict[str, dict[str, Any]] = {}
        try:
            self.deadline = started + timeout + left
            for key, asked in requests.items():
                envelope = jsonrpc.request_envelope(ids[key], asked["method"], asked["params"])
                self.send(Event(envelope))
            for key, request_id in ids.items():
                response = client_requests.wait(request_id, started + timeout, self.closed)
                if response is None:
                    break
                responses[key] = response
        finally:
            for request_id in ids.values():
                client_requests.close_request(request_id)
            self.deadline = time.monotonic() + left
        self.check()
        if len(responses) < len(ids):
            raise NoAnswer(
                f"This tool asked the user for input, and no answer came within "
                f"INPUT_TIMEOUT ({timeout:g} s)"
            )
        return responses

    def send(self, event: Event) -> None:
        """Queue ``event``, waiting while the client is behind; raise ``ClientDisconnected``
        when the stream ends first."""
        if not self.channel.put(event, self.deadline):
            self.check()
            self.expire()  # the deadline passed while it waited

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Queue ``notifications/progress``; raise ``ClientDisconnected`` once nobody reads."""
        for value, name in ((progress, "progress"), (total, "total")):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise TypeError(f"report_progress: {name} must be a number, not {value!r}")
        if message is not None and not isinstance(message, str):
            raise TypeError("report_progress: message must be a string")
        self.check()
        if self.spec.progress_token is None:
            return  # a stream=True tool called without a token: progress has nowhere to go
        params: dict[str, Any] = {"progressToken": self.spec.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        params = project_progress(params, self.spec.era.version)
        data = jsonrpc.notification_envelope("notifications/progress", params)
        self.send(Event(data, replaceable=True))

    def log(self, level: str, data: object) -> None:
        """Queue ``notifications/message``; raise ``ClientDisconnected`` once nobody reads."""
        self.check()
        if not sends_log(self.spec.era, level):
            return
        # Log data is whatever the view passes: encoded as results are (docs/results.md), so a
        # value with no JSON form fails in the view with a clear message.
        data_json = encode_value(data, nan=mcp_settings.JSON_NAN)
        params = {"level": level, "logger": self.spec.logger, "data": data_json}
        self.send(Event(jsonrpc.notification_envelope("notifications/message", params)))


@dataclass(frozen=True)
class StreamSpec:
    """Where a streamed call's notifications go, and how long it may run."""

    request_id: jsonrpc.RequestId
    era: Era
    progress_token: str | int | None
    logger: str
    timeout: float
    #: Who made the call (``auth.caller.caller_key``): only they may answer its asks.
    caller: str = "anonymous"
    #: Whose share of the held streams its asks draw (``auth.caller.quota_key``): an
    #: anonymous caller's client address.
    holder: str = "anonymous"


def sse_event(data: str) -> bytes:
    return f"event: message\ndata: {data}\n\n".encode()


class Worker:
    """One call run off the request thread (in ``threads``), as that request's locale,
    URLconf and script prefix."""

    def __init__(
        self, request: HttpRequest, invocation: Invocation[Call] | PromptRun, notifier: Notifier
    ) -> None:
        self.request = request
        self.invocation = invocation
        self.notifier = notifier
        self.language = translation.get_language()
        self.urlconf = get_urlconf()
        #: What reverse() puts before every URL (Django's WSGIHandler sets it per request).
        self.script_prefix = get_script_prefix()

    @property
    def name(self) -> str:
        """The name of the thread while it runs this call."""
        return f"{CALL_THREAD}{self.notifier.spec.logger}"

    def run(self) -> None:
        set_urlconf(self.urlconf)
        set_script_prefix(self.script_prefix)
        if self.language:
            translation.activate(self.language)
        else:  # the request's thread has none active (deactivate_all()): nor has this one
            translation.deactivate_all()
        try:
            answer = serve_invocation(self.invocation, self.notifier)  # never raises
            try:
                save_session(self.request)
            except Exception as exc:
                # The answer still goes out; what the view wrote to its session is lost.
                errors.report(
                    "Saving the session of streamed call %s failed",
                    self.notifier.spec.logger,
                    exc=exc,
                    request=self.request,
                )
        finally:
            # This thread's connections, closed whatever CONN_MAX_AGE says: a call thread
            # waits idle for its next call (Django's request_finished never fires here), so a
            # connection kept would stay open past CONN_MAX_AGE, one per thread (MAX_STREAMS
            # per process), and PostgreSQL refuses to drop a test database one is open to.
            # Closed before the answer is sent, so none is left once the client has it.
            # (The locale, URLconf and script prefix set above need no reset: Django keeps
            # them in context variables, and the call's context ends with it.)
            connections.close_all()
            slots.release()
        self.notifier.channel.put(Event(answer.body, final=True))


#: The name of a thread running a streamed call, followed by the tool's name; an idle one
#: is named ``IDLE_THREAD``.
CALL_THREAD = "mcp-tools-call-"
IDLE_THREAD = "mcp-tools-idle"


class CallThreads:
    """The threads streamed calls run in: started as calls need them, at most one per stream
    slot (``MAX_STREAMS``), and kept for the next calls, since starting a thread costs more
    than a trivial call.

    Daemon threads, as Django's development server runs requests in: a view still running
    at exit does not hold the process up. ``concurrent.futures.ThreadPoolExecutor`` joins
    its threads at exit, so it would.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Worker] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self.started = 0
        #: Threads done with their call and about to take the next, and the jobs queued for
        #: them; both under ``_lock``. A job is queued only for a thread that will take it.
        self._free = 0
        self._queued = 0

    def run(self, worker: Worker) -> None:
        """Run ``worker`` in an idle thread, or in a new one while there are fewer than
        ``MAX_STREAMS``; else in the first thread to finish its call (it is finishing: the
        caller took a stream slot, so a call has released one)."""
        with self._lock:
            if self._free > self._queued or self.started >= max(mcp_settings.MAX_STREAMS, 1):
                self._queued += 1
                self._jobs.put(worker)
                return
            self.started += 1
        try:
            # The new thread's first job is handed to it, never queued: a thread that can't
            # start leaves no job behind for another thread to run after its call failed.
            threading.Thread(
                target=self._serve, args=(worker,), name=IDLE_THREAD, daemon=True
            ).start()
        except BaseException:
            with self._lock:
                self.started -= 1
            raise

    def _serve(self, worker: Worker | None) -> None:
        thread = threading.current_thread()
        while True:
            assert worker is not None
            thread.name = worker.name
            try:
                # In a context of its own, as a call's own thread had and as Django's ASGI
                # handler runs each request: what a call's view activated or set (a time
                # zone, a context variable) is not the next call's, who may be another user.
                contextvars.Context().run(worker.run)
            except BaseException as exc:  # never: run() reports its own faults
                errors.report("A streamed call's thread failed", exc=exc)
            finally:
                thread.name = IDLE_THREAD
                worker = None
            with self._lock:
                self._free += 1
            worker = self._jobs.get()
            with self._lock:
                self._free -= 1
                self._queued -= 1

    def reset(self) -> None:
        """Forget the threads (a forked child has none of its parent's)."""
        self.__init__()  # type: ignore[misc]


threads = CallThreads()
os.register_at_fork(after_in_child=threads.reset)


def save_session(request: HttpRequest) -> None:
    """Save what a streamed view wrote to its session.

    SessionMiddleware saved the session when the streamed response left, before the view
    ran. The session key (and so the cookie) can't change any more: a view that logs in or
    out must not stream.
    """
    session = getattr(request, "session", None)
    if session is not None and getattr(session, "modified", False) and session.session_key:
        session.save()


def _wait(notifier: Notifier) -> float:
    """Return how long the relay may wait for the next event before it writes something."""
    return min(notifier.deadline - time.monotonic(), KEEP_ALIVE)


def _relay(
    item: Event | None, notifier: Notifier, timed_out: Callable[[], bytes]
) -> tuple[bytes | None, bool]:
    """Return what to send for ``item`` (None: nothing yet), and whether the stream ends;
    ``timed_out`` gives the answer of a call past ``CALL_TIMEOUT``."""
    if item is None:
        if time.monotonic() >= notifier.deadline:
            return timed_out(), True
        # Quiet for KEEP_ALIVE seconds (a view at work, a user thinking about a question):
        # a comment keeps proxies from ending the stream as idle; clients ignore it.
        return KEEP_ALIVE_COMMENT, False
    if item.final and notifier.expired:
        return timed_out(), True  # the view stopped for the time limit, not for the client
    return sse_event(item.data), item.final


def _grace_left(notifier: Notifier) -> float:
    """Return the seconds left before a response nobody reads is ended."""
    return notifier.deadline + DELIVERY_GRACE - time.monotonic()


def _log_ended_unread(notifier: Notifier) -> None:
    logger.info(
        "Tool %s: its stream was ended unread, %g s past CALL_TIMEOUT",
        notifier.spec.logger,
        DELIVERY_GRACE,
    )


def sync_events(
    channel: Channel,
    notifier: Notifier,
    timed_out: Callable[[], bytes],
    cut: Callable[[], None] | None = None,
) -> Iterator[bytes]:
    """Yield the stream's events to a WSGI server, as the worker produces them.

    A client that stops reading blocks the server's write of a chunk, with this generator
    suspended: ``cut`` (which closes the connection, where the server lets an application do
    that) ends the write past ``CALL_TIMEOUT`` and its grace.
    """
    alarms: list[Alarm] = []
    if cut is not None:

        def arm() -> None:
            alarms[:] = [watchdog.arm(_grace_left(notifier), end)]

        def end() -> None:
            if _grace_left(notifier) > 0:  # the deadline moved on (the user was asked)
                arm()
                return
            _log_ended_unread(notifier)
            cut()

        arm()
    try:
        done = False
        while not done:
            item = channel.get(_wait(notifier))
            chunk, done = _relay(item, notifier, timed_out)
            if chunk is not None:
                yield chunk
    finally:
        # GeneratorExit (the client left), the timeout or the end: the view's helpers stop.
        for alarm in alarms:
            alarm.cancel()
        notifier.close()


async def async_events(
    channel: Channel, notifier: Notifier, timed_out: Callable[[], bytes]
) -> AsyncIterator[bytes]:
    """Yield the stream's events to an ASGI server without blocking its event loop.

    A client that stops reading suspends the task sending the response (the server's flow
    control): past ``CALL_TIMEOUT`` and its grace that task is cancelled, as Django cancels
    it when the client disconnects.
    """
    task = asyncio.current_task()
    cutoff: list[asyncio.TimerHandle] = []
    if task is not None:
        loop = asyncio.get_running_loop()

        def end() -> None:
            left = _grace_left(notifier)
            if left > 0:  # the deadline moved on (the user was asked)
                cutoff[:] = [loop.call_later(left, end)]
                return
            _log_ended_unread(notifier)
            task.cancel()

        cutoff.append(loop.call_later(max(_grace_left(notifier), 0), end))
    try:
        done = False
        while not done:
            item = await channel.aget(_wait(notifier))
            chunk, done = _relay(item, notifier, timed_out)
            if chunk is not None:
                yield chunk
    finally:
        # CancelledError (Django cancels the response on http.disconnect) lands here too.
        for handle in cutoff:
            handle.cancel()
        notifier.close()


def connection_cutter(request: HttpRequest) -> Callable[[], None] | None:
    """Return what closes ``request``'s connection from another thread, or None.

    gunicorn hands the application its socket (``gunicorn.socket``); shutting it down ends a
    blocked write with an error gunicorn handles (the client is gone). Other WSGI servers
    keep their sockets: their own send timeouts apply.
    """
    sock = request.META.get("gunicorn.socket")
    if not isinstance(sock, socket.socket):
        return None

    def cut() -> None:
        with contextlib.suppress(OSError):  # closed already
            sock.shutdown(socket.SHUT_RDWR)

    return cut


def stream(
    request: HttpRequest, invocation: Invocation[Call] | PromptRun
) -> StreamingHttpResponse | None:
    """Start the invocation's view in a worker thread; return the SSE response that relays
    it.

    Returns None when every worker slot is taken: the caller then runs it inline.
    """
    if not slots.acquire():
        return None
    try:
        call = invocation.call
        timeout = mcp_settings.CALL_TIMEOUT

        def timed_out() -> bytes:
            if not isinstance(invocation, Invocation):  # a prompt's answer is no tool result
                error = invocation.timed_out(timeout)
                return sse_event(Answer.error(call.message.id, error).body)
            return sse_event(complete(call, invocation.timed_out(timeout)).body)

        spec = StreamSpec(
            request_id=call.message.id,
            era=call.era,
            progress_token=call.message.progress_token,
            logger=invocation.name,
            timeout=timeout,
            caller=caller_key(call.caller),
            holder=quota_key(request, call.caller),
        )
        channel = Channel()
        notifier = Notifier(channel, spec)
        events: Iterator[bytes] | AsyncIterator[bytes]
        if isinstance(request, ASGIRequest):
            # Built now, on the request thread: under ASGI the timeout fires in the event
            # loop, where result processors (user code, maybe using the database) must not run.
            answer = timed_out()
            events = async_events(channel, notifier, lambda: answer)
        else:
            # Built only for a call that times out, on the thread that iterates the stream:
            # the request's own under WSGI.
            events = sync_events(channel, notifier, timed_out, connection_cutter(request))
        response = StreamingHttpResponse(events, content_type=EVENT_STREAM)
        response["Cache-Control"] = "no-cache, no-transform"
        # Proxies (nginx) would otherwise hold events back until the stream ends.
        response["X-Accel-Buffering"] = "no"
        threads.run(Worker(request, invocation, notifier))
    except BaseException:
        slots.release()  # the worker, which releases it, never started
        raise
    return response
