"""The call log: a ``ToolCall`` row per tool call (``CALL_LOG``: off, errors or all).

A receiver of ``tool_called``. The request's thread computes a call's row, without a query,
and hands it to the process's ``queue``: a background thread writes the queued rows in one
INSERT per batch, on its own database connection, and whatever is still queued when the
process exits cleanly is written before it ends. ``CALL_LOG_QUEUE_SIZE = 0`` writes the
rows of an endpoint's request on its own thread instead, once its response has been sent.
Calls from elsewhere (the admin's "Try it", ``mcp_call``) are written at once. A failure to
write is logged and never fails a call (docs/calllog.md).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import signal
import threading
import time
from collections import deque
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from django.db import close_old_connections, connections, router, transaction
from django.http import HttpRequest, HttpResponseBase

from .conf import mcp_settings
from .protocol.jsonrpc import clip

if TYPE_CHECKING:
    from django.db.models import Field

logger = logging.getLogger("mcp_tools")

MODES = ("off", "errors", "all")
#: Argument values longer than this, encoded, are not kept (their names still are).
MAX_LOGGED_ARGUMENTS = 10_000
#: Argument names kept per call, and characters kept of each: every stored value is bounded
#: (a refused call's names are the client's, however many and long).
MAX_LOGGED_NAMES = 100
MAX_LOGGED_NAME_LENGTH = 64
#: Where the endpoint marks its request: its calls are queued (or, without a queue, kept
#: here until its response has left).
PENDING = "_mcp_tools_call_log"
#: The most rows one INSERT of the queue's writes.
MAX_BATCH = 500
#: How long a SIGTERM waits for the queue to be written before the server's handler runs.
CLOSE_TIMEOUT = 10.0

#: A row: the values of a ``ToolCall``, computed on the request's thread. ``arguments`` is
#: still encoded (JSON text): the writer decodes it.
Row = dict[str, Any]


def record(
    sender: Any,
    *,
    tool: str,
    user: Any,
    started_at: Any,
    duration_ms: float,
    status: int | None,
    is_error: bool,
    error_ref: str | None,
    arguments: dict[str, Any],
    protocol_version: str,
    client_name: str,
    request: HttpRequest,
    result_type: str = "complete",
    **kwargs: Any,
) -> None:
    """``tool_called`` receiver: log the call as ``CALL_LOG`` says, once it is complete."""
    mode = mcp_settings.CALL_LOG
    if mode == "off" or (mode == "errors" and not is_error) or result_type != "complete":
        return
    row = {
        "tool_name": tool,
        "user_id": getattr(user, "pk", None),
        "started_at": started_at,
        "duration_ms": round(duration_ms, 3),
        "http_status": status,
        "is_error": is_error,
        "error_ref": error_ref or "",
        "argument_names": _names(arguments),
        "arguments": _encoded(arguments) if mcp_settings.CALL_LOG_ARGUMENTS else None,
        "protocol_version": _fitted("protocol_version", protocol_version),
        "client_name": _fitted("client_name", client_name),
    }
    pending = getattr(request, PENDING, None)
    if pending is None:
        write([row])
    elif mcp_settings.CALL_LOG_QUEUE_SIZE and not queue.closed:
        queue.put(row)
    else:  # no queue, or the process is stopping: written after the response
        pending.append(row)


@cache
def _max_length(field: str) -> int:
    from .models import ToolCall

    return ToolCall._meta.get_field(field).max_length  # type: ignore[union-attr,return-value]


def _fitted(field: str, value: str) -> str:
    """Return ``value`` cut to its column's ``max_length`` (a client chose it), storable."""
    return storable(value[: _max_length(field)])


def storable(value: Any) -> Any:
    """Return ``value`` with every NUL character replaced by U+FFFD, in strings, keys and
    nested values: PostgreSQL stores none in text or ``jsonb``, and one row it refuses would
    take the request's other rows with it."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    return value


def _names(arguments: dict[str, Any]) -> list[str]:
    """The call's argument names, sorted: at most ``MAX_LOGGED_NAMES``, each clipped, and a
    last entry that counts the rest."""
    names = sorted(arguments)
    kept = [storable(clip(name, MAX_LOGGED_NAME_LENGTH)) for name in names[:MAX_LOGGED_NAMES]]
    if len(names) > MAX_LOGGED_NAMES:
        kept.append(f"… and {len(names) - MAX_LOGGED_NAMES} more")
    return kept


def _encoded(arguments: dict[str, Any]) -> str | None:
    """The argument values as JSON, a copy the view can no longer change; None past
    ``MAX_LOGGED_ARGUMENTS``."""
    try:
        encoded = json.dumps(arguments, default=str)
    except ValueError:  # a circular structure cannot come from JSON, but be safe
        return None
    return encoded if len(encoded) <= MAX_LOGGED_ARGUMENTS else None


def hold(request: HttpRequest) -> None:
    """Mark this request as the endpoint's: its calls are queued, or kept until it is sent."""
    setattr(request, PENDING, [])


def write_after(request: HttpRequest, response: HttpResponseBase) -> None:
    """Write the request's calls that were not queued once ``response`` is closed (sent),
    streamed or not."""
    pending = getattr(request, PENDING, None)
    if pending is None or mcp_settings.CALL_LOG == "off":
        return
    # HttpResponse.close() runs these once the server has sent the body (a streamed
    # response's too: its worker has reported the call before the last event), before
    # request_finished. Private to Django; a test pins that it is still there.
    response._resource_closers.append(lambda: write(pending))  # type: ignore[attr-defined]


def write(rows: list[Row]) -> None:
    """Insert the rows (one statement); a failure is logged and swallowed."""
    if not rows:  # every call of the request was queued
        return
    try:
        insert(rows)
        return
    except Exception:
        if len(rows) == 1:
            logger.warning("The call log could not be written (1 call)", exc_info=True)
            return
    lost, failure = 0, rows[0]
    for row in rows:  # one row the database refuses must not lose the others
        try:
            insert([row])
        except Exception:
            lost += 1
            failure = row
    if lost:
        logger.warning(
            "The call log could not be written (%d of %d calls; the last: %s)",
            lost,
            len(rows),
            failure["tool_name"],
            exc_info=True,
        )


#: The columns a row fills, in the INSERT's order (the id is the database's).
COLUMNS = (
    "tool_name",
    "user_id",
    "started_at",
    "duration_ms",
    "http_status",
    "is_error",
    "error_ref",
    "argument_names",
    "arguments",
    "protocol_version",
    "client_name",
)
#: The columns whose values the backend adapts (dates, JSON, the user's key); the others
#: are plain strings, numbers and booleans, passed as they are.
ADAPTED = frozenset({"user_id", "started_at", "argument_names", "arguments"})


def insert(rows: list[Row]) -> None:
    """INSERT ``rows`` in one transaction: one statement run for each (``executemany``).

    The log's rows need nothing of what the ORM adds to an INSERT (no ``save()``, no
    signals, no defaults to compute): building each row's SQL through ``bulk_create`` costs
    more than the INSERT itself, on the worker's process.
    """
    from .models import ToolCall

    using = router.db_for_write(ToolCall)
    connection = connections[using]
    quote = connection.ops.quote_name
    fields = [cast("Field[Any, Any]", ToolCall._meta.get_field(name)) for name in COLUMNS]
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        quote(ToolCall._meta.db_table),
        ", ".join(quote(str(field.column)) for field in fields),
        ", ".join(["%s"] * len(fields)),
    )
    adapters = [
        (name, field.get_db_prep_save if name in ADAPTED else None)
        for name, field in zip(COLUMNS, fields, strict=True)
    ]
    params = []
    for row in rows:
        values = _decoded(row)
        params.append(
            [
                values[name] if adapt is None else adapt(values[name], connection)
                for name, adapt in adapters
            ]
        )
    with transaction.atomic(using=using, savepoint=False), connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _decoded(row: Row) -> Row:
    encoded = row["arguments"]
    if encoded is None:
        return row
    return {**row, "arguments": storable(json.loads(encoded))}


def flush() -> None:
    """Write every row the process's queue holds now, on this thread (its connection), and
    return once they are in the database: for management commands and tests."""
    queue.flush()


class Queue:
    """The rows of this process not yet written, bounded by ``CALL_LOG_QUEUE_SIZE``.

    A background thread, started with the first row, waits up to ``CALL_LOG_FLUSH_INTERVAL``
    seconds for a batch to gather (or ``MAX_BATCH`` rows), writes it in one INSERT on its own
    connection (closed as Django closes a request's: ``CONN_MAX_AGE``), and waits again.
    When the queue is full a row is dropped, counted in ``dropped``, and said once in the
    log. ``close()`` (at the process's clean exit) writes what is left.
    """

    def __init__(self) -> None:
        self._exit_hooked = False
        self._stopping_on: set[int] = set()
        self._reset()
        # A forked worker (gunicorn) starts empty: the parent's thread and locks don't follow.
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._rows: deque[Row] = deque()
        self._ready = threading.Condition(threading.Lock())
        # Held by whoever writes: flush() waits for a batch the thread has taken.
        self._writing = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        #: Rows dropped because the queue was full, since the process started.
        self.dropped = 0
        self._dropping = 0  # dropped since the last time the writer took rows

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def closed(self) -> bool:
        """Whether the process is stopping: rows are then written by their requests."""
        return self._closed

    def put(self, row: Row) -> None:
        """Queue ``row``; drop it (counted, said once) when the queue is full."""
        with self._ready:
            if self._closed:  # after the process's exit hook: nobody would write it
                closed = True
            elif len(self._rows) >= mcp_settings.CALL_LOG_QUEUE_SIZE:
                self.dropped += 1
                self._dropping += 1
                if self._dropping == 1:
                    logger.warning(
                        "The call log's queue is full (%d calls): calls are not logged "
                        "until the database catches up",
                        len(self._rows),
                    )
                return
            else:
                closed = False
                self._rows.append(row)
                if self._thread is None:
                    self._start()
                if len(self._rows) in (1, MAX_BATCH):
                    self._ready.notify()
        if closed:
            write([row])

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mcp_tools call log", daemon=True)
        self._thread.start()
        if not self._exit_hooked:
            # A clean exit through sys.exit (gunicorn's workers on SIGTERM) runs this once
            # the server has stopped serving; stop_on() covers a server that ends by the
            # signal itself.
            atexit.register(self.close)
            self._exit_hooked = True

    def _run(self) -> None:
        try:
            while self._gathered():
                try:
                    self._write_batch()
                    close_old_connections()
                except Exception:  # write() swallows its own: this is the connection's
                    logger.warning("The call log's writer failed", exc_info=True)
        finally:
            connections.close_all()

    def _gathered(self) -> bool:
        """Wait for rows, then for a batch to gather; False once closed and empty."""
        with self._ready:
            while not self._rows and not self._closed:
                self._ready.wait()
            if not self._rows:
                return False
            deadline = time.monotonic() + mcp_settings.CALL_LOG_FLUSH_INTERVAL
            while len(self._rows) < MAX_BATCH and not self._closed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._ready.wait(remaining)
            return True

    def _write_batch(self) -> int:
        """Write up to ``MAX_BATCH`` queued rows; return how many were taken."""
        with self._writing:
            with self._ready:
                batch = [self._rows.popleft() for _ in range(min(MAX_BATCH, len(self._rows)))]
                dropped, self._dropping = self._dropping, 0
            if dropped:
                logger.warning("The call log's queue was full: %d calls were not logged", dropped)
            write(batch)
            return len(batch)

    def flush(self) -> None:
        """Write every queued row on this thread; return once they are written."""
        while self._write_batch():
            pass

    def close(self) -> None:
        """Stop the thread once it has written every queued row; write what is left."""
        self._closed = True
        with self._ready:
            self._ready.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self.flush()  # rows queued after the thread ended

    def stop_on(self, signum: int) -> None:
        """Write the queue when ``signum`` arrives, then do what its handler did.

        Installed from the main thread at start-up, in front of the server's own handler.
        Needed where a server ends by the signal itself rather than by ``sys.exit``:
        uvicorn restores the default handler of a SIGTERM it caught and raises it again
        once it has shut down, and a process killed by a signal runs no ``atexit``. The
        queue is written on a thread of its own (the interrupted thread may be inside a
        request, on its own connection); the calls still running once it is closed are
        written by their requests, after their responses.
        """
        if signum in self._stopping_on:  # ready() again (tests): one handler
            return
        self._stopping_on.add(signum)
        previous = signal.getsignal(signum)
        if previous == signal.SIG_IGN:  # the process does not stop on it
            return

        def handle(number: int, frame: Any) -> None:
            writer = threading.Thread(target=self.close, name="mcp_tools call log, closing")
            writer.start()
            # Bounded: the interrupted thread may hold the queue's lock (it resumes once
            # this returns), and atexit writes what is left when the process exits cleanly.
            writer.join(CLOSE_TIMEOUT)
            if callable(previous):
                previous(number, frame)
            else:  # the default: end the process by the signal
                signal.signal(number, signal.SIG_DFL)
                os.kill(os.getpid(), number)

        signal.signal(signum, handle)


#: The process's queue.
queue = Queue()
