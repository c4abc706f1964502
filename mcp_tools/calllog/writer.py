"""The call log: a ``ToolCall`` row per tool call (``CALL_LOG``: off, errors or all).

A receiver of ``tool_called``. The row of a call through the endpoint goes to the process's
``queue``: a daemon thread writes the queued rows in one INSERT per batch (and adds them to
the daily summary the overview reads, in the same transaction), on its own database
connection, and a clean exit waits (a bounded time) for it to write what is left.
Where the queue is not for a call (``CALL_LOG_QUEUE_SIZE = 0``, Django's test environment,
a call inside a transaction on the log's database, the process stopping) its request writes
its rows once its response has been sent (``hold`` and ``write_after``). Calls from
elsewhere (the admin's "Try it", ``mcp_call``) are written at once. A failure to write is
logged and never fails a call (docs/calllog.md).
"""

from __future__ import annotations

import atexit
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache
from types import FrameType
from typing import TYPE_CHECKING, Any

from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    close_old_connections,
    connections,
    router,
    transaction,
)
from django.http import HttpRequest, HttpResponseBase

from ..conf import mcp_settings
from ..protocol.jsonrpc import clip

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models import Field

    from ..models import ToolCall

__all__ = ["MODES", "flush", "keeps", "queue", "record"]

logger = logging.getLogger("mcp_tools")

MODES = ("off", "errors", "all")
#: Argument values longer than this, encoded, are not kept (their names still are).
MAX_LOGGED_ARGUMENTS = 10_000
#: Argument names kept per call, and characters kept of each: every stored value is bounded
#: (a refused call's names are the client's, however many and long).
MAX_LOGGED_NAMES = 100
MAX_LOGGED_NAME_LENGTH = 64
#: Characters kept of what the model read of a failed or refused call.
MAX_LOGGED_MESSAGE = 1000
#: Where the endpoint marks its request: its calls are queued or, where the queue is not for
#: them, kept here until its response has left.
PENDING = "_mcp_tools_call_log"
#: The most rows one INSERT of the queue's writes.
MAX_BATCH = 500
#: How long a process's exit waits for the queue to be written, in seconds, at most.
CLOSE_TIMEOUT = 5.0


def record(
    sender: object,
    *,
    tool: str,
    user: object,
    started_at: datetime,
    duration_ms: float,
    status: int | None,
    is_error: bool,
    error_ref: str | None,
    arguments: Mapping[str, object],
    protocol_version: str,
    client_name: str,
    request: HttpRequest,
    result_type: str = "complete",
    outcome: str | None = None,
    error_message: str = "",
    refusal: str | None = None,
    task_id: str | None = None,
    found: Sequence[str] | None = None,
    kind: str = "tool",
    **kwargs: object,
) -> None:
    """``tool_called`` receiver: log the call as ``CALL_LOG`` says, once it is complete.
    Where ``CALL_LOG_ARGUMENTS`` is on, every search (``found``: the names a
    ``search_tools`` call returned) is logged, in the mode ``"errors"`` too: what was
    searched, and what found nothing, is what it was turned on to show."""
    if outcome is None:  # a sender that predates outcomes
        outcome = "error" if is_error else "ok"
    if not keeps(outcome=outcome, result_type=result_type, found=found):
        return
    searched = found is not None and mcp_settings.CALL_LOG_ARGUMENTS
    from ..models import ToolCall

    # The row's values, bounded here; the model instance is made where the row is written
    # (the queue's writer, for most calls), off the request's time.
    meta = ToolCall._meta
    values = {
        "tool_name": tool,
        "kind": kind,
        "user": user if getattr(user, "pk", None) is not None else None,
        "started_at": started_at,
        "duration_ms": round(duration_ms, 3),
        "http_status": status,
        "is_error": outcome != "ok",
        "outcome": outcome,
        "refusal": refusal or "",
        "error_message": storable_text(clip(error_message, MAX_LOGGED_MESSAGE)),
        "error_ref": error_ref or "",
        "argument_names": _names(arguments),
        "arguments": _values(arguments) if mcp_settings.CALL_LOG_ARGUMENTS else None,
        "found": list(found) if searched and found is not None else None,  # tool names
        "protocol_version": _fitted(meta.get_field("protocol_version"), protocol_version),
        "client_name": _fitted(meta.get_field("client_name"), client_name),
        "task_id": task_id or None,
    }
    pending = getattr(request, PENDING, None)
    if pending is None:
        write([ToolCall(**values)])
    elif not queue.put(values):  # no queue for this call: written after its response
        pending.append(ToolCall(**values))


def keeps(
    *, outcome: str, result_type: str = "complete", found: object = None, **ended: object
) -> bool:
    """Return whether the log keeps a call that ended so (``CALL_LOG``): the endpoint sends
    no ``tool_called`` for one it doesn't keep while no other receiver listens."""
    mode = mcp_settings.CALL_LOG
    if mode == "off" or result_type != "complete":
        return False
    searched = found is not None and mcp_settings.CALL_LOG_ARGUMENTS
    return mode == "all" or outcome != "ok" or searched


def _fitted(field: Field[Any, Any], value: str) -> str:
    """Return ``value`` cut to its column's ``max_length`` (a client chose it), storable."""
    return storable_text(value[: field.max_length])


def storable_text(value: str) -> str:
    """Return ``value`` with every NUL character replaced by U+FFFD (``storable``)."""
    return value.replace("\x00", "\ufffd") if "\x00" in value else value


def storable(value: object) -> object:
    """Return ``value`` with every NUL character replaced by U+FFFD, in strings, keys and
    nested values, and every number JSON can't hold (``1e400`` reads as infinity) as its
    text: PostgreSQL stores no NUL in text or ``jsonb``, no database stores ``Infinity`` as
    JSON, and one row it refuses would take the request's other rows with it."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # "Infinity", "-Infinity", "NaN"
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    return value


def _names(arguments: Mapping[str, object]) -> list[str]:
    """The call's argument names, sorted: at most ``MAX_LOGGED_NAMES``, each clipped, and a
    last entry that counts the rest."""
    names = sorted(arguments)
    kept = [storable_text(clip(name, MAX_LOGGED_NAME_LENGTH)) for name in names[:MAX_LOGGED_NAMES]]
    if len(names) > MAX_LOGGED_NAMES:
        kept.append(f"… and {len(names) - MAX_LOGGED_NAMES} more")
    return kept


def _values(arguments: Mapping[str, object]) -> object:
    try:
        encoded = json.dumps(arguments, default=str)
    except ValueError:  # a circular structure cannot come from JSON, but be safe
        return None
    return storable(json.loads(encoded)) if len(encoded) <= MAX_LOGGED_ARGUMENTS else None


def hold(request: HttpRequest) -> None:
    """Keep the calls of this /mcp request until its response has been sent."""
    setattr(request, PENDING, [])


def write_after(request: HttpRequest, response: HttpResponseBase) -> None:
    """Write the request's calls once ``response`` is closed (sent), streamed or not."""
    pending = getattr(request, PENDING, None)
    if pending is None or mcp_settings.CALL_LOG == "off":
        return

    def flush() -> None:
        # A call reported after this (a streamed view that outlived its stream: its client
        # left, or CALL_TIMEOUT passed) is written when it reports.
        setattr(request, PENDING, None)
        write(pending)

    # HttpResponse.close() runs these once the server has sent the body (a streamed
    # response's too: its worker has reported the call before the last event, unless it
    # outlived the stream), before request_finished. Private to Django; a test pins that it
    # is still there.
    response._resource_closers.append(flush)  # type: ignore[attr-defined]


def write(rows: list[ToolCall], *, reconnect: bool = False) -> None:
    """Insert the rows (one statement); a failure is logged and swallowed.

    A batch the database refuses is written again row by row, each in a savepoint of its
    own when the caller is inside a transaction, so that one row it can't store loses no
    other; a row whose user was deleted since its call is written without its user. A
    database that can't be reached or is locked (``OperationalError``, ``InterfaceError``)
    is not asked again for each row: the batch is lost, and said once; with ``reconnect``
    (the queue's writer, not stopping), it is tried once more on a new connection first, for
    a connection the server dropped while it was idle (a restart, a failover, a pooler).
    """
    if not rows:
        return
    try:
        insert(rows)
        return
    except UNAVAILABLE as exc:
        if reconnect:
            _close_log_connection()
            write(rows)
        else:
            _lost(len(rows), len(rows), rows[-1], exc)
        return
    except Exception as exc:
        if len(rows) == 1 and rows[0].user_id is None:
            _lost(1, 1, rows[0], exc)
            return
    lost, last = 0, rows[0]
    failure: Exception | None = None
    for done, row in enumerate(rows):
        try:
            _insert_one(row)
        except UNAVAILABLE as exc:
            lost, last, failure = lost + len(rows) - done, row, exc
            break
        except Exception as exc:
            lost, last, failure = lost + 1, row, exc
    if failure is not None:
        _lost(lost, len(rows), last, failure)


def _insert_one(row: ToolCall) -> None:
    """Insert one row; a row the database refuses for its user (deleted since the call: the
    foreign key) is written without it, as the deletion would have left it."""
    try:
        insert([row])
    except IntegrityError:
        if row.user_id is None:
            raise
        row.user_id = None
        insert([row])


def _close_log_connection() -> None:
    from ..models import ToolCall

    connections[router.db_for_write(ToolCall)].close()


#: The errors that say the database can't take a write now, whatever the row.
UNAVAILABLE = (OperationalError, InterfaceError)


def _lost(lost: int, rows: int, last: ToolCall, failure: BaseException) -> None:
    """Log the rows not written, with the traceback of the last failure."""
    logger.warning(
        "The call log could not be written (%d of %d %s; the last: %s)",
        lost,
        rows,
        "call" if rows == 1 else "calls",
        last.tool_name,
        exc_info=failure,
    )


def insert(rows: list[ToolCall]) -> None:
    """INSERT ``rows`` (``ToolCall`` instances) in one transaction, or one savepoint inside
    the caller's: one statement run for each (``executemany``), and the rows added to the
    log's daily summary (``summary.add``: a statement per table).

    The log's rows need nothing of what the ORM adds to an INSERT (no ``save()``, no signals,
    no primary keys read back): building each row's SQL through ``bulk_create`` costs more
    than the INSERT itself, on the worker's process. Every concrete field is written, as
    ``bulk_create`` would (its ``pre_save``, then its database value).
    """
    from ..models import ToolCall

    using = router.db_for_write(ToolCall)
    connection = connections[using]
    sql, columns = _statement(using)
    params = [_params(row, columns, connection) for row in rows]
    with transaction.atomic(using=using):
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)
        # The daily summary the overview reads, in the same transaction: it counts the
        # calls the log holds, no more (a batch refused) and no fewer. Imported with the
        # first rows written: a worker that writes none never loads it.
        from . import summary

        summary.add(rows, using)


def _params(
    row: ToolCall,
    columns: list[tuple[Field[Any, Any], type | None]],
    connection: BaseDatabaseWrapper,
) -> list[Any]:
    """The database values of ``row``, as ``bulk_create`` computes them."""
    params = []
    for field, plain in columns:
        value = field.pre_save(row, True)
        if plain is None or (value is not None and type(value) is not plain):
            value = field.get_db_prep_save(value, connection)
        params.append(value)
    return params


#: The fields whose database value is the Python value itself, when it is of this type (their
#: ``get_db_prep_save`` only checks it): the rest go through ``get_db_prep_save``.
PLAIN = {"CharField": str, "TextField": str, "BooleanField": bool, "FloatField": float}


@cache
def _statement(using: str) -> tuple[str, list[tuple[Field[Any, Any], type | None]]]:
    """The INSERT of a ``ToolCall`` on database ``using``, and the fields it fills, each with
    the type of a value it stores as it is (None: always adapted)."""
    from ..models import ToolCall

    meta = ToolCall._meta
    fields = [
        field
        for field in meta.concrete_fields
        if field is not meta.auto_field and not getattr(field, "generated", False)
    ]
    quote = connections[using].ops.quote_name
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        quote(meta.db_table),
        ", ".join(quote(str(field.column)) for field in fields),
        ", ".join(["%s"] * len(fields)),
    )
    return sql, [(field, PLAIN.get(type(field).__name__)) for field in fields]


def flush() -> None:
    """Write every row the process's queue holds now, on this thread (its connection), and
    return once they are written: for a management command or a script that reads the log
    after calling through the endpoint in-process."""
    queue.flush()


def under_tests() -> bool:
    """Whether Django's test environment is set up (its runner, pytest-django): the rows are
    then written by their requests, in the test's database and transaction."""
    utils = sys.modules.get("django.test.utils")
    return utils is not None and hasattr(utils._TestState, "saved_data")


class Queue:
    """The rows of this process not yet written, bounded by ``CALL_LOG_QUEUE_SIZE``.

    A daemon thread, started with the first row, waits up to ``CALL_LOG_FLUSH_INTERVAL``
    seconds for a batch to gather (or ``MAX_BATCH`` rows), writes it in one INSERT on its own
    connection (closed as Django closes a request's: ``CONN_MAX_AGE``), and waits again.
    When the queue is full a row is dropped, counted in ``dropped``, and said once in the
    log. ``close()`` (at the process's clean exit) waits, a bounded time, for the thread to
    write what is left.
    """

    def __init__(self) -> None:
        self._exit_hooked = False
        self._reset()
        # A forked worker (gunicorn) starts empty: the parent's thread and locks don't follow.
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._rows: deque[dict[str, object]] = deque()
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

    def put(self, row: dict[str, object]) -> bool:
        """Queue ``row``, a ``ToolCall``'s field values (or drop it, counted, when the queue
        is full) and return True; return False, queuing nothing, when its request is to write
        it after its response: no queue (``CALL_LOG_QUEUE_SIZE = 0``), the process stopping,
        Django's test environment, or a call inside a transaction on the log's database,
        which the writer's connection could not see into (a user created in it)."""
        size = mcp_settings.CALL_LOG_QUEUE_SIZE
        if not size or self._closed or under_tests() or _in_transaction():
            return False
        with self._ready:
            if self._closed:
                return False
            if len(self._rows) >= size:
                self.dropped += 1
                self._dropping += 1
                if self._dropping == 1:
                    logger.warning(
                        "The call log's queue is full (%d calls): calls are not logged "
                        "until the database catches up",
                        len(self._rows),
                    )
                return True
            self._rows.append(row)
            if self._thread is None:
                self._start()
            if len(self._rows) in (1, MAX_BATCH):
                self._ready.notify()
        return True

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mcp_tools call log", daemon=True)
        self._thread.start()
        if not self._exit_hooked:
            # A clean exit runs this: gunicorn's workers end through sys.exit on SIGTERM,
            # uvicorn on SIGINT; its SIGTERM is covered by stop_on() (docs/calllog.md).
            atexit.register(self.close)
            self._exit_hooked = True

    def _run(self) -> None:
        try:
            while self._gathered():
                try:
                    self._write_batch(reconnect=not self._closed)
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

    def _write_batch(self, reconnect: bool = False) -> int:
        """Write up to ``MAX_BATCH`` queued rows; return how many were taken."""
        with self._writing:
            with self._ready:
                batch = [self._rows.popleft() for _ in range(min(MAX_BATCH, len(self._rows)))]
                dropped, self._dropping = self._dropping, 0
            if dropped:
                logger.warning("The call log's queue was full: %d calls were not logged", dropped)
            if batch:
                from ..models import ToolCall

                write([ToolCall(**values) for values in batch], reconnect=reconnect)
            return len(batch)

    def flush(self) -> None:
        """Write every queued row on this thread; return once they are written."""
        while self._write_batch():
            pass

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Queue nothing more, and wait up to ``timeout`` seconds for the thread to write
        what is queued; what it has not written by then is lost, and said."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
            thread = self._thread
        if thread is None or thread is threading.current_thread():
            return
        thread.join(timeout)
        if thread.is_alive():
            logger.warning(
                "The call log's writer did not finish within %g s of the process's exit: "
                "the batch it was writing and %d queued calls are not logged",
                timeout,
                len(self._rows),
            )

    def stop_on(self, signum: int) -> None:
        """Write the queue when uvicorn ends its process by ``signum`` (SIGTERM).

        uvicorn, once it has shut down on SIGTERM, restores the handler it found and raises
        the signal again: with the default, its process ends by the signal and runs no
        ``atexit``. So in a uvicorn process, and only there (and only from the main thread:
        ``ready()``), a handler goes in: in front of uvicorn's own where ``ready()`` runs
        under it (each of ``--workers``), or in place of the default it will restore (one
        process, which loads the app first), then ending the process by the signal as the
        default would. Every other process keeps its handler, flags and all: gunicorn's
        workers exit through ``sys.exit``, which runs ``atexit``; a management command keeps
        the default. uvicorn installs its handlers with ``signal.signal``, as this does: the
        flags ``siginterrupt`` sets are the same.
        """
        server = sys.modules.get("uvicorn.server")
        if server is None:
            return
        previous = signal.getsignal(signum)
        if isinstance(getattr(previous, "__self__", None), server.Server):
            uvicorns = previous
            assert callable(uvicorns)

            def handle(number: int, frame: FrameType | None) -> None:
                uvicorns(number, frame)  # it starts its shutdown once this returns
                self._close_aside()  # the calls still running are written by their requests

        elif previous == signal.SIG_DFL:

            def handle(number: int, frame: FrameType | None) -> None:
                self._close_aside()  # uvicorn has shut down: every call has been answered
                signal.signal(number, signal.SIG_DFL)
                signal.raise_signal(number)

        else:
            return
        signal.signal(signum, handle)

    def _close_aside(self) -> None:
        """``close()`` on a thread of its own, waited for a bounded time: the thread a signal
        interrupted may hold the queue's lock."""
        closing = threading.Thread(target=self.close, name="mcp_tools call log, closing")
        closing.start()
        closing.join(CLOSE_TIMEOUT)


def queue_configured() -> bool:
    """Whether the settings let calls be queued (the log on, a queue)."""
    return mcp_settings.CALL_LOG != "off" and bool(mcp_settings.CALL_LOG_QUEUE_SIZE)


def _in_transaction() -> bool:
    from ..models import ToolCall

    return connections[router.db_for_write(ToolCall)].in_atomic_block


#: The process's queue.
queue = Queue()
