"""A task's run, in a worker: its view called as the caller, through the endpoint's pipeline.

``run(task_id)`` is what a worker's job does (``mcp_tools.jobs``, or an executor of the
project's). It takes the task by its lease, made the worker's for ``TASK_LEASE_SECONDS`` and
renewed while the view runs, so that a worker that dies lets the task be failed (or run
again, where its tool is idempotent) once the lease runs out. The call is then made again as
the endpoint makes it: the user and the credential loaded again from the database
(``tasks.identity``: a revoked one fails the task), the tool's visibility asked again (an
admin who disabled the tool, or took the user out of its groups, stops it), the
arguments checked, the view run through the project's middleware, its response formatted,
masked, enforced and reported to the call log as an inline call's is (docs/tasks.md).

A running view learns of a cancellation at its next ``report_progress``, which raises
``ClientDisconnected``; its ``message`` is the task's ``statusMessage`` meanwhile.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import logging
import math
import os
import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any, cast

from django.core.handlers.wsgi import WSGIRequest
from django.db import DatabaseError, connections, transaction
from django.db.models import F, Q
from django.urls import get_script_prefix, get_urlconf, set_script_prefix, set_urlconf
from django.utils import translation

from ..conf import mcp_settings
from ..endpoint import server, tracing
from ..endpoint.exchange import Call, Exchange
from ..endpoint.handlers import start_call
from ..endpoint.mounts import endpoint_at
from ..exceptions import ClientDisconnected, InputUnavailable
from ..inputs import request_state
from ..models import ToolTask
from ..pipeline.invocation import Invocation
from ..protocol.jsonrpc import INTERNAL_ERROR, JSONRPCError, parse_message
from ..protocol.results import InputRequiredResult, ToolResult
from ..protocol.versions import MODERN_VERSIONS, Era
from . import identity
from . import store as tasks

__all__ = ["run"]

logger = logging.getLogger("mcp_tools")

#: How often the lease's thread reads whether its task was cancelled, and writes the view's
#: latest progress message.
CANCEL_CHECK_SECONDS = 0.5


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def run(task_id: str) -> None:
    """Run the task ``task_id`` if it is working and no live worker holds it."""
    worker = worker_name()
    lease = timedelta(seconds=mcp_settings.TASK_LEASE_SECONDS)
    stamp = tasks.now()
    taken = (
        ToolTask.objects.filter(pk=task_id, status=ToolTask.WORKING, expires_at__gt=stamp)
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lt=stamp))
        .update(
            leased_until=stamp + lease,
            worker=worker,
            attempts=F("attempts") + 1,
            started_at=stamp,
            updated_at=stamp,
        )
    )
    if not taken:
        return  # cancelled, expired, gone, or held by another worker
    task = ToolTask.objects.get(pk=task_id)
    with Lease(task_id, worker, lease) as held:
        # In a copy of the worker's context, as a streamed call runs in a context of its own:
        # what the view or its middleware set (a time zone, a context variable) is not the
        # next job's, who may be another user.
        ended = contextvars.copy_context().run(attempt, task, held)
    stamp = tasks.now()
    fields: dict[str, Any] = {"updated_at": stamp, "leased_until": None, **ended}
    if held.message is not None:  # the view's last progress, not written by the lease yet
        fields.setdefault("status_message", held.message)
    if ended["status"] in ToolTask.TERMINAL:
        fields["finished_at"] = stamp
    fields["size"] = kept_size(task, fields)
    # Only while still ours and working: a cancellation or the reaper had the last word.
    ours = ToolTask.objects.filter(pk=task_id, status=ToolTask.WORKING, worker=worker)
    try:
        with transaction.atomic(using=ours.db):
            ours.update(**fields)
    except DatabaseError as exc:  # a result the database refuses (U+0000 in jsonb, say)
        error = server.fault(exc, request_for(task))
        fields.update(status=ToolTask.FAILED, error=error_object(error), result=None)
        fields.update(input_requests=None, finished_at=stamp)
        fields["size"] = kept_size(task, fields)
        ours.update(**fields)


def kept_size(task: ToolTask, fields: dict[str, Any]) -> int:
    """Return the bytes ``task`` keeps once it ends with ``fields`` (``tasks.stored_size``)."""
    return tasks.stored_size(
        task.params,
        fields.get("result"),
        fields.get("error"),
        fields.get("input_requests"),
        fields.get("request_state", task.request_state) or "",  # left in its row otherwise
    )


def attempt(task: ToolTask, lease: Lease) -> dict[str, Any]:
    with as_its_request(task):
        try:
            return execute(task, lease)
        except Exception as exc:  # a fault of the server's, not the view's: failed
            error = server.fault(exc, request_for(task))
            return {"status": ToolTask.FAILED, "error": error_object(error)}


@contextlib.contextmanager
def as_its_request(task: ToolTask) -> Iterator[None]:
    """Run with the language, script prefix and URLconf the task's /mcp request had, as a
    streamed call's thread does; the worker's own are back afterwards (an immediate
    executor runs the task on the /mcp request's thread)."""
    environ = task.environ
    prefix, urlconf = get_script_prefix(), get_urlconf()
    set_script_prefix(environ.get(tasks.SCRIPT_PREFIX_KEY) or prefix)
    set_urlconf(environ.get(tasks.URLCONF_KEY) or urlconf)
    language = environ.get(tasks.LANGUAGE_KEY)
    try:
        with translation.override(language) if language else contextlib.nullcontext():
            yield
    finally:
        set_script_prefix(prefix)
        set_urlconf(urlconf)


def execute(task: ToolTask, lease: Lease) -> dict[str, Any]:
    """Make the task's call as its endpoint would and return the task's fields it ends with."""
    request = request_for(task)
    try:
        caller = identity.caller_for(task)
        user = identity.request_user(task, caller)
    except JSONRPCError as refused:  # the credential or the user can no longer be used
        return {"status": ToolTask.FAILED, "error": error_object(refused)}
    if user is not identity.MISSING:
        request.user = user
    endpoint = endpoint_at(task.endpoint_path, getattr(request, "urlconf", None))
    if endpoint is None:
        error = JSONRPCError(INTERNAL_ERROR, "Internal error: the task's endpoint is gone")
        return {"status": ToolTask.FAILED, "error": error_object(error)}
    params = {**task.params, "name": task.tool_name}
    if isinstance(params.get("requestState"), str):
        # Checked when the task was made, or issued by its last run, and kept in its row
        # since: the task waited for its worker or its answers within its TTL, which
        # INPUT_STATE_MAX_AGE (the age of a state a client holds) does not bound.
        params["requestState"] = request_state.renew(params["requestState"])
    message = parse_message({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": params})
    version = task.protocol_version
    trace = tracing.begin(message, request)
    call = Call(
        Exchange(request, caller, endpoint),
        message,
        Era(version, version in MODERN_VERSIONS),
        trace,
        task_id=task.id,
    )
    try:
        with trace.active():
            ended = call_as_endpoint(call, task, lease)
    except JSONRPCError as error:
        trace.error(error)
        ended = {"status": ToolTask.FAILED, "error": error_object(error)}
    except Exception as exc:  # a fault of the server's, not the view's: failed, as inline
        fault = server.fault(exc, request)
        trace.exception(exc, fault.data["errorRef"])
        ended = {"status": ToolTask.FAILED, "error": error_object(fault)}
    finally:
        trace.end()
    return ended


def call_as_endpoint(call: Call, task: ToolTask, lease: Lease) -> dict[str, Any]:
    arguments = call.message.params.get("arguments") or {}
    plan = call.exchange.plan(task.tool_name)
    if plan is None:  # disabled, or hidden from the user since: as the endpoint answers it
        raise call.exchange.refusal(task.tool_name)
    started = start_call(call, plan, arguments)
    if isinstance(started, Invocation):
        started.stay_inline()
        result = started.run(TaskNotifier(lease))
    else:
        result = started
    if isinstance(result, InputRequiredResult):
        return {
            "status": ToolTask.INPUT_REQUIRED,
            "input_requests": result.input_requests,
            "request_state": result.request_state,
            "status_message": "Waiting for the client's input",
        }
    answer = server.complete(call, result)  # bounded, projected and reported as inline
    body = json.loads(answer.body)
    if "error" in body:
        return {"status": ToolTask.FAILED, "error": body["error"]}
    return {"status": ToolTask.COMPLETED, "result": kept_result(call, task, body["result"])}


def kept_result(call: Call, task: ToolTask, result: dict[str, Any]) -> dict[str, Any]:
    """Return ``result`` as the task keeps it (once: ``tasks.packed``), or, past what its
    caller's tasks may still keep (``MAX_TASK_BYTES_PER_CALLER``), the tool error that says
    so: no part of a result is kept (docs/tasks.md#what-a-caller-may-keep)."""
    kept = tasks.packed(result)
    room = tasks.room_for_result(task)
    size = tasks.json_bytes(kept)
    if room is None or size <= room:
        return kept
    name = task.tool_name
    logger.warning(
        "The result of task %s (%s) was too large to keep: %d bytes", task.id, name, size
    )
    refused = server.complete(call, ToolResult.error(tasks.too_large_to_keep(size, room)))
    return cast("dict[str, Any]", json.loads(refused.body)["result"])


def error_object(error: JSONRPCError) -> dict[str, Any]:
    wire: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        wire["data"] = error.data
    return wire


def request_for(task: ToolTask) -> WSGIRequest:
    """Return the /mcp request the task's call would have come in: the stored headers and
    address of its client, without its credentials."""
    environ: dict[str, Any] = dict(task.environ)
    host = environ.get("HTTP_HOST", "localhost")
    environ.setdefault("SERVER_NAME", host.split(":")[0])
    environ.setdefault("SERVER_PORT", "443" if environ.get("wsgi.url_scheme") == "https" else "80")
    environ.update(
        {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": task.endpoint_path,
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": "0",
            "wsgi.input": io.BytesIO(),
        }
    )
    environ.setdefault("wsgi.url_scheme", "http")
    language = environ.pop(tasks.LANGUAGE_KEY, "")
    environ.pop(tasks.SCRIPT_PREFIX_KEY, None)
    urlconf = environ.pop(tasks.URLCONF_KEY, None)
    request = WSGIRequest(environ)
    if language:  # what the skipped LocaleMiddleware set on the /mcp request
        request.LANGUAGE_CODE = language
    if urlconf:
        request.urlconf = urlconf
    return request


class TaskNotifier:
    """What a task's view reports to (``report_progress``, ``log_message``): its progress
    message becomes the task's ``statusMessage``; a cancellation stops the view.

    Both go through the task's ``Lease``, whose thread has a connection of its own: the view
    may run in a transaction (``ATOMIC_REQUESTS``), where a write to the task's row would
    show only once the view ends, and hold the row's lock against the client's
    ``tasks/cancel`` meanwhile.
    """

    #: Never past a deadline: a task runs for as long as its view does.
    expired = False
    deadline = math.inf
    timeout = math.inf

    def __init__(self, lease: Lease) -> None:
        self.lease = lease

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        if message:
            self.lease.message = message[:500]
        self.check()

    def log(self, level: str, data: object) -> None:
        self.check()

    def can_ask(self, request: dict[str, Any]) -> bool:
        return False  # a task asks by its status (input_required), never on a stream

    def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        raise InputUnavailable()  # never called: can_ask is False

    def check(self) -> None:
        if self.lease.lost.is_set():
            raise ClientDisconnected("The task was cancelled")

    def close(self) -> None:
        pass


class Lease:
    """Hold a running task for its worker until the view returns, on a thread of its own:
    renew the lease every third of ``TASK_LEASE_SECONDS``, and every
    ``CANCEL_CHECK_SECONDS`` write the view's latest progress message and read whether the
    task is still the worker's to run (not cancelled, failed by the reaper, given to
    another worker or deleted)."""

    def __init__(self, task_id: str, worker: str, lease: timedelta) -> None:
        self.task_id = task_id
        self.worker = worker
        self.lease = lease
        #: The view's latest progress message, until the thread writes it.
        self.message: str | None = None
        #: Set once the task is no longer this worker's: the view stops at its next report.
        self.lost = threading.Event()
        #: Whether this thread has seen the task's row: one it saw that is gone was deleted.
        self.seen = False
        self.stopped = threading.Event()
        self.thread = threading.Thread(
            target=self._renew, name=f"mcp-tools-lease-{task_id[:8]}", daemon=True
        )

    def __enter__(self) -> Lease:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopped.set()
        self.thread.join()

    def _renew(self) -> None:
        every = self.lease.total_seconds() / 3
        renewed = time.monotonic()
        try:
            while not self.stopped.wait(min(CANCEL_CHECK_SECONDS, every)):
                try:
                    renewed = self._tick(renewed, every)
                except Exception:
                    # Tried again at the next tick, on a new connection: a lease that lapsed
                    # for one error would fail a task whose view still runs.
                    logger.exception("The lease of task %s could not be renewed", self.task_id)
                    connections.close_all()
        finally:
            connections.close_all()

    def _tick(self, renewed: float, every: float) -> float:
        ours = ToolTask.objects.filter(pk=self.task_id, worker=self.worker, status=ToolTask.WORKING)
        fields: dict[str, Any] = {}
        now = time.monotonic()
        if now - renewed >= every:
            fields["leased_until"] = tasks.now() + self.lease
            renewed = now
        message, self.message = self.message, None
        if message is not None:
            fields.update(status_message=message, updated_at=tasks.now())
        if fields:
            ours.update(**fields)
        row = ToolTask.objects.filter(pk=self.task_id).values_list("status", "worker").first()
        if row is None:
            # Not seen yet: still in the transaction that made it (an executor that runs the
            # job as it is enqueued). Seen, then gone: deleted (past its TTL, mcp_prune).
            if self.seen:
                self.lost.set()
        elif row != (ToolTask.WORKING, self.worker):
            self.lost.set()
        else:
            self.seen = True
        return renewed
