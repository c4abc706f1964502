"""MCP tasks: a tool call answered with a handle, run by a worker, polled by its client.

A task is a ``ToolTask`` row (docs/tasks.md). ``create`` writes it, with its job enqueued in
the same transaction, before the client gets its handle; ``wait_briefly`` then gives the
work ``TASK_IMMEDIATE_SECONDS`` from when a worker takes it: a call that ends (or asks for
input) within it is answered inline, as if no task had been made. ``find`` reads a task for
the caller it belongs to (another caller's id is an unknown task), fails one whose worker
died (its lease ran out) and forgets one past its TTL. ``cancel`` and ``update`` are the
client's two ways to change a task; the running view sees a cancellation at its next
``report_progress``.

The wire forms are here too: 2026-07-28's extension (``io.modelcontextprotocol/tasks``:
a flat ``CreateTaskResult``, ``tasks/get`` with the result inlined) and 2025-11-25's
experimental tasks (``{"task": {...}}``, ``ttl`` and ``pollInterval``).
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.db import transaction
from django.db.models import Q, Sum
from django.http import HttpRequest
from django.urls import get_script_prefix
from django.utils import timezone, translation

from ..auth.caller import Caller, caller_key, quota_key
from ..auth.credentials import covers
from ..conf import mcp_settings
from ..models import ToolTask
from ..pipeline.inner_requests import client_environ
from ..protocol import inputs
from ..protocol.jsonrpc import INVALID_PARAMS, JSONRPCError, clip, encode
from .identity import scopes_of_task

#: The 2025-11-25 ``_meta`` key that names the task a message belongs to.
RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task"
#: Headers of the /mcp request never written to a task's row: its credentials. The worker
#: acts as the user the task belongs to (docs/tasks.md#who-runs-the-view).
SECRET_HEADERS = frozenset({"HTTP_AUTHORIZATION", "HTTP_COOKIE", "HTTP_PROXY_AUTHORIZATION"})
#: Words that name a credential in a header's name (``X-Api-Key``, ``X-Auth-Token``,
#: ``X-Hub-Signature-256``, ``X-CSRFToken``): a project's own authentication reads such
#: headers, and none is written to a task's row either.
SECRET_HEADER_WORDS = ("AUTH", "TOKEN", "SECRET", "PASSWORD", "API_KEY", "APIKEY", "SIGNATURE")
#: The longest a task id from a client is read as one (ours are 32 characters).
MAX_TASK_ID_LENGTH = 64
#: What the ids this server makes look like (``secrets.token_hex(16)``).
TASK_ID = re.compile(r"[0-9a-f]{32}")


class Executor(Protocol):
    """What runs a task's view (``TASK_EXECUTOR``: ``tasks.executors.TaskExecutor``)."""

    @property
    def immediate(self) -> bool: ...

    def enqueue(self, task_id: str) -> None: ...


def executor() -> Executor:
    """Return the ``TASK_EXECUTOR`` instance, made once per settings generation."""
    generation = mcp_settings.generation
    made = _executors.get(generation)
    if made is None:
        _executors.clear()
        made = _executors[generation] = mcp_settings.TASK_EXECUTOR()
    return made


_executors: dict[int, Executor] = {}


def now() -> datetime:
    return timezone.now()


# --- creating a task -----------------------------------------------------------------------


def create(
    request: HttpRequest,
    caller: Caller,
    tool_name: str,
    params: Mapping[str, object],
    *,
    version: str,
    client_name: str,
    ttl_ms: int | None = None,
    retryable: bool = False,
    grant: dict[str, Any] | None = None,
) -> ToolTask:
    """Write a task for ``tool_name`` called with ``params`` by ``caller`` and enqueue its run.

    ``grant`` is what its worker checks again of the caller's credential (``identity``).
    The row and the job are committed together, before this returns, so a ``tasks/get``
    for the id always finds the task. Raises ``JSONRPCError`` when the caller has
    ``MAX_TASKS_PER_CALLER`` tasks working already, or when the arguments would take its
    tasks past ``MAX_TASK_BYTES_PER_CALLER`` (``refusal``).
    """
    if holds_nul(params):
        # PostgreSQL's jsonb can't hold U+0000: refused here, not when the row is written.
        raise JSONRPCError(
            INVALID_PARAMS, "Invalid params: a task's arguments can't hold the character U+0000"
        )
    key = caller_key(caller)
    started = now()
    quota = quota_key(request, caller)
    size = stored_size(params)
    refused = refusal(quota, size)
    if refused is not None:
        raise refused
    ttl = mcp_settings.TASK_TTL
    if ttl_ms is not None:  # the client's, any JSON integer: capped before it is a float
        floor = min(mcp_settings.TASK_MIN_TTL, ttl)
        ttl = max(min(ttl_ms, ttl * 1000) / 1000, floor)
    task = ToolTask(
        id=secrets.token_hex(16),
        tool_name=tool_name,
        caller=key,
        quota=quota,
        user=caller.user if caller.is_authenticated else None,
        grant=grant or {},
        endpoint_path=request.path_info,
        protocol_version=version,
        client_name=client_name,
        params=dict(params),
        environ=stored_environ(request),
        retryable=retryable,
        size=size,
        created_at=started,
        updated_at=started,
        expires_at=started + timedelta(seconds=ttl),
    )
    run = executor()
    if run.immediate:  # runs the view now, on this thread: outside any transaction of ours
        task.save(force_insert=True)
        run.enqueue(task.id)
        task.refresh_from_db()  # ended, or asking: whatever the window, answered inline
    else:
        with transaction.atomic(using=ToolTask.objects.db):
            task.save(force_insert=True)
            run.enqueue(task.id)
    return task


def holds_nul(value: object) -> bool:
    """Return whether a JSON value holds U+0000 in a string or key: PostgreSQL's jsonb
    can't store it."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(holds_nul(key) or holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(holds_nul(item) for item in value)
    return False


def refusal(quota: str, size: int) -> JSONRPCError | None:
    """Return why ``quota`` may not have one more task whose call takes ``size`` bytes, or
    None: ``MAX_TASKS_PER_CALLER`` tasks working already, or ``MAX_TASK_BYTES_PER_CALLER``
    that its tasks and these arguments would pass (docs/tasks.md#what-a-caller-may-keep).

    A working task counts whatever its TTL says: its view may still run, and a short TTL
    must not make room for more; one waiting for input holds nothing past its TTL."""
    limit = mcp_settings.MAX_TASKS_PER_CALLER
    if limit is not None:
        active = Q(status=ToolTask.WORKING) | Q(
            status=ToolTask.INPUT_REQUIRED, expires_at__gt=now()
        )
        if ToolTask.objects.filter(active, quota=quota).count() >= int(limit):
            return JSONRPCError(
                INVALID_PARAMS,
                f"Too many tasks: this caller has {limit} tasks working "
                "(MAX_TASKS_PER_CALLER); wait for one to finish, or cancel one",
            )
    bound = mcp_settings.MAX_TASK_BYTES_PER_CALLER
    if bound is not None:
        kept = kept_by(quota)
        if kept + size > bound:
            return JSONRPCError(
                INVALID_PARAMS,
                f"Too much kept: this caller's tasks keep {kept} bytes, and this call's "
                f"{size} more would pass {bound} (MAX_TASK_BYTES_PER_CALLER); wait for older "
                "tasks to expire, or send less",
            )
    return None


def has_room(quota: str, size: int = 0) -> bool:
    """Return whether ``quota`` may have one more task whose call takes ``size`` bytes."""
    return refusal(quota, size) is None


def kept_by(quota: str, *, besides: str | None = None) -> int:
    """Return the bytes ``quota``'s tasks keep (``MAX_TASK_BYTES_PER_CALLER``): every task
    not past its TTL, whatever its status, and every working one (its view may still run)."""
    kept = ToolTask.objects.filter(Q(expires_at__gt=now()) | Q(status=ToolTask.WORKING))
    kept = kept.filter(quota=quota)
    if besides is not None:
        kept = kept.exclude(pk=besides)
    total = kept.aggregate(total=Sum("size"))["total"]
    return int(total or 0)


def room_for_result(task: ToolTask) -> int | None:
    """Return the bytes ``task``'s result may take (``MAX_TASK_BYTES_PER_CALLER``, less what
    its arguments and its caller's other tasks keep), or None for no bound."""
    bound = mcp_settings.MAX_TASK_BYTES_PER_CALLER
    if bound is None:
        return None
    return max(0, int(bound) - kept_by(task.quota, besides=task.pk) - stored_size(task.params))


def too_large_to_keep(size: int, room: int) -> str:
    """Return the text of the tool error a task keeps instead of a result it can't."""
    return (
        f"Result too large to keep: it takes {size} bytes, and this caller's tasks may keep "
        f"{room} more (MAX_TASK_BYTES_PER_CALLER); call the tool again for less, or once "
        "older tasks expire"
    )


def json_bytes(value: object) -> int:
    """Return the bytes of ``value`` as compact JSON in UTF-8: what a row keeps of it."""
    if value is None:
        return 0
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def stored_size(
    params: object,
    result: object = None,
    error: object = None,
    input_requests: object = None,
    request_state: str = "",
) -> int:
    """Return the bytes a task keeps of its caller's: its call's params (the arguments, the
    input responses), and what it ended with (a result as ``packed`` keeps it)."""
    sizes = (json_bytes(part) for part in (params, result, error, input_requests))
    return sum(sizes) + len(request_state.encode())


def stored_environ(request: HttpRequest) -> dict[str, str]:
    """Return what of the /mcp request the worker's request copies: the client's headers
    and address (not its credentials), the host, the scheme and the script prefix."""
    environ = {
        key: value
        for key, value in client_environ(request.META).items()
        if isinstance(value, str) and not is_secret_header(key)
    }
    environ["SCRIPT_NAME"] = request.META.get("SCRIPT_NAME", "")
    environ["wsgi.url_scheme"] = request.scheme or "http"
    # The thread state the /mcp request's handler and middleware set, which a worker (another
    # process) lacks: the language (LocaleMiddleware, skipped for the view), what reverse()
    # puts before a path, and the request's own URLconf (docs/tasks.md#in-the-worker).
    environ[LANGUAGE_KEY] = translation.get_language() or ""
    environ[SCRIPT_PREFIX_KEY] = get_script_prefix()
    urlconf = getattr(request, "urlconf", None)
    if isinstance(urlconf, str):
        environ[URLCONF_KEY] = urlconf
    return environ


#: The keys of a task's ``environ`` that are thread state of its /mcp request, not WSGI's.
LANGUAGE_KEY = "mcp_tools.language"
SCRIPT_PREFIX_KEY = "mcp_tools.script_prefix"
URLCONF_KEY = "mcp_tools.urlconf"


def is_secret_header(key: str) -> bool:
    """Return whether the ``META`` key ``key`` may carry a credential (never stored)."""
    return key in SECRET_HEADERS or (
        key.startswith("HTTP_") and any(word in key for word in SECRET_HEADER_WORDS)
    )


def wait_briefly(task: ToolTask) -> ToolTask:
    """Return ``task`` as it stands once it ended or asked for input, or once it has worked
    ``TASK_IMMEDIATE_SECONDS`` in a worker: the server's decision to answer inline or with
    the task is what the work did in that time, not how soon a worker woke up to take it.

    The window opens when a worker takes the task (its ``started_at``), as seen here; a task
    no worker takes within ``TASK_PICKUP_SECONDS`` is answered with its handle (docs/tasks.md).
    """
    window = mcp_settings.TASK_IMMEDIATE_SECONDS
    if window <= 0:
        return task
    deadline = time.monotonic() + mcp_settings.TASK_PICKUP_SECONDS
    taken = False
    pause = 0.01
    while task.status == ToolTask.WORKING:
        if not taken and task.started_at is not None:
            taken = True
            deadline = time.monotonic() + window
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.1)
        task.refresh_from_db()
    return task


def discard(task: ToolTask) -> None:
    """Forget a task whose call is answered inline (it ended or asked within the window)."""
    ToolTask.objects.filter(pk=task.pk).delete()


# --- reading and changing a task -----------------------------------------------------------


def find(caller: Caller, task_id: object, endpoint_path: str | None = None) -> ToolTask:
    """Return the caller's task ``task_id`` made at the endpoint at ``endpoint_path``; raise
    -32602 for any other: unknown, malformed, another caller's or another endpoint's (whose
    policy may differ), one made with a credential of scopes the caller's lacks (a weaker
    token of the same user), or past its TTL (then deleted). A working task whose lease ran out
    (its worker died) is failed first, or enqueued again where its tool is idempotent."""
    if not isinstance(task_id, str) or not task_id or len(task_id) > MAX_TASK_ID_LENGTH:
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: taskId must be a task's id")
    if not TASK_ID.fullmatch(task_id):  # never one of ours: not even asked of the database
        raise JSONRPCError(INVALID_PARAMS, f"Unknown task: {clip(task_id)}")
    found = ToolTask.objects.filter(pk=task_id, caller=caller_key(caller))
    if endpoint_path is not None:
        found = found.filter(endpoint_path=endpoint_path)
    task = found.first()
    if task is None or not readable(caller, task):
        raise JSONRPCError(INVALID_PARAMS, f"Unknown task: {clip(task_id)}")
    if task.expires_at <= now():
        task.delete()
        raise JSONRPCError(INVALID_PARAMS, f"Unknown task: {clip(task_id)}")
    leased = task.leased_until
    if task.status == ToolTask.WORKING and leased is not None and leased <= now():
        reap(task)
        task.refresh_from_db()
    return task


def readable(caller: Caller, task: ToolTask) -> bool:
    """Return whether ``caller``'s credential may do all that the one ``task`` was made with
    could (its scopes), as well as being its caller's: not its token's id, which an OAuth
    refresh changes every hour."""
    return covers(caller.scopes, scopes_of_task(task))


#: The runs a retryable task gets in all before a dead worker fails it.
MAX_ATTEMPTS = 3


def reap(task: ToolTask) -> str | None:
    """Fail ``task``, whose worker stopped renewing its lease (it died), unless another
    worker took it meanwhile; a task of an idempotent tool is enqueued again instead, up to
    ``MAX_ATTEMPTS`` runs. Return what was done: ``"failed"``, ``"enqueued"`` or None."""
    stamp = now()
    lost = ToolTask.objects.filter(
        pk=task.pk, status=ToolTask.WORKING, leased_until=task.leased_until
    )
    if task.retryable and task.attempts < MAX_ATTEMPTS:
        if lost.update(leased_until=None, worker="", updated_at=stamp):
            executor().enqueue(task.pk)
            return "enqueued"
        return None
    failed = lost.update(
        status=ToolTask.FAILED,
        error=lost_worker_error(task),
        status_message="The worker running this task stopped",
        leased_until=None,
        updated_at=stamp,
        finished_at=stamp,
    )
    return "failed" if failed else None


def lost_worker_error(task: ToolTask) -> dict[str, Any]:
    return {
        "code": -32603,
        "message": (
            f"Internal error: the worker running this task ({task.worker or 'unknown'}) "
            "stopped before it finished"
        ),
    }


def reap_expired_leases() -> dict[str, int]:
    """Fail every working task whose lease ran out (or enqueue it again, where its tool is
    idempotent); return how many of each, ``{"failed": n, "enqueued": m}`` (``mcp_prune``)."""
    done = {"failed": 0, "enqueued": 0}
    for task in ToolTask.objects.filter(status=ToolTask.WORKING, leased_until__lt=now()):
        outcome = reap(task)
        if outcome is not None:
            done[outcome] += 1
    return done


def cancel(task: ToolTask, message: str = "Cancelled by the client") -> bool:
    """Mark ``task`` cancelled unless it ended already (idempotent); return whether this
    cancelled it. Its running view is stopped at its next ``report_progress``
    (``ClientDisconnected``). ``message`` is its ``statusMessage`` (the admin's says who)."""
    stamp = now()
    cancelled = (
        ToolTask.objects.filter(pk=task.pk)
        .exclude(status__in=ToolTask.TERMINAL)
        .update(
            status=ToolTask.CANCELLED,
            status_message=message[:500],
            input_requests=None,
            updated_at=stamp,
            finished_at=stamp,
        )
    )
    return bool(cancelled)


def update(task: ToolTask, responses: object, grant: dict[str, Any] | None = None) -> None:
    """Take the client's ``inputResponses`` for a task waiting for input.

    Answers to keys the task is not waiting for are ignored, whatever they hold (the
    extension: a server SHOULD ignore them); an answer to an outstanding key must be a
    result. Once every outstanding key is answered, the task is working again and its view
    runs again with the answers, as a 2026-07-28 retry would; until then it keeps waiting
    for the others. ``grant`` is the answering caller's (``identity.renewed``): the next run
    is theirs, with the credential they hold now.
    """
    if not isinstance(responses, dict):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: inputResponses must be an object")
    with transaction.atomic(using=ToolTask.objects.db):
        task = ToolTask.objects.select_for_update().get(pk=task.pk)
        if task.status != ToolTask.INPUT_REQUIRED:
            return  # nothing outstanding: every key is unknown or answered, so all ignored
        outstanding = dict(task.input_requests or {})
        taken = {key: value for key, value in responses.items() if key in outstanding}
        try:
            inputs.check_responses(taken)
        except ValueError as exc:
            raise JSONRPCError(INVALID_PARAMS, f"Invalid params: {exc}") from None
        # An answer of another kind than asked is none: the key stays outstanding.
        taken = {
            key: value for key, value in taken.items() if inputs.answers(outstanding[key], value)
        }
        if not taken:
            return
        params = dict(task.params)
        params["inputResponses"] = {**(params.get("inputResponses") or {}), **taken}
        params["requestState"] = task.request_state  # signed again by the run (task_runs)
        left = {key: value for key, value in outstanding.items() if key not in taken}
        task.params = params
        task.updated_at = now()
        if grant is not None:
            task.grant = grant
        if left:
            task.input_requests = left
            task.size = stored_size(params, None, None, left, task.request_state)
            task.save(update_fields=["params", "input_requests", "updated_at", "grant", "size"])
            return
        task.status = ToolTask.WORKING
        task.input_requests = None
        task.status_message = ""
        task.size = stored_size(params, None, None, None, task.request_state)
        task.save(
            update_fields=[
                "params",
                "input_requests",
                "status",
                "status_message",
                "updated_at",
                "grant",
                "size",
            ]
        )
        run = executor()
        if not run.immediate:
            run.enqueue(task.id)
    if run.immediate:
        run.enqueue(task.id)


def list_for(
    caller: Caller, endpoint_path: str | None = None, *, start: int, size: int
) -> list[ToolTask]:
    """Return the caller's tasks made at the endpoint at ``endpoint_path`` (None: at any)
    and not past their TTL, newest first (2025-11-25 ``tasks/list``): those ``find`` finds.

    An anonymous caller has no tasks to list: its tasks are anyone's who knows their id, so
    listing them would show them to every anonymous client. Nor are the tasks listed that
    the caller's credential may not read (``readable``).
    """
    if not caller.is_authenticated:
        return []
    tasks = ToolTask.objects.filter(caller=caller_key(caller), expires_at__gt=now())
    if endpoint_path is not None:  # another endpoint's (a toolset's): its policy may differ
        tasks = tasks.filter(endpoint_path=endpoint_path)
    if caller.scopes is None:  # reads every task of its user: paged by the database
        return list(tasks.order_by("-created_at", "pk")[start : start + size])
    ordered = tasks.order_by("-created_at", "pk").iterator()
    return list(itertools.islice((t for t in ordered if readable(caller, t)), start, start + size))


def prune() -> int:
    """Delete the tasks past their TTL; return how many (``mcp_prune``)."""
    deleted, _ = ToolTask.objects.filter(expires_at__lte=now()).delete()
    return deleted


# --- wire forms ----------------------------------------------------------------------------


def iso(stamp: datetime) -> str:
    return stamp.isoformat().replace("+00:00", "Z")


def ttl_ms(task: ToolTask) -> int:
    return max(1, int((task.expires_at - task.created_at).total_seconds() * 1000))


def handle(task: ToolTask) -> dict[str, Any]:
    """Return the ``Task`` fields of ``task`` (2026-07-28's extension)."""
    wire: dict[str, Any] = {
        "taskId": task.id,
        "status": task.status,
        "createdAt": iso(task.created_at),
        "lastUpdatedAt": iso(task.updated_at),
        "ttlMs": ttl_ms(task),
        "pollIntervalMs": int(mcp_settings.TASK_POLL_INTERVAL_MS),
    }
    if task.status_message:
        wire["statusMessage"] = task.status_message
    return wire


def created(task: ToolTask) -> dict[str, Any]:
    """Return the ``CreateTaskResult`` of ``task``: flat, ``resultType: "task"``."""
    return {"resultType": "task", **handle(task)}


def detailed(task: ToolTask) -> dict[str, Any]:
    """Return the ``tasks/get`` result of ``task``: its handle with what its status carries
    (the result, the error, the input requests)."""
    wire = handle(task)
    if task.status == ToolTask.COMPLETED:
        wire["result"] = result_of(task)
    elif task.status == ToolTask.FAILED:
        wire["error"] = task.error
    elif task.status == ToolTask.INPUT_REQUIRED:
        wire["inputRequests"] = task.input_requests
    return wire


#: 2025-11-25's names of the fields 2026-07-28's extension renamed.
EXPERIMENTAL_NAMES = {"ttlMs": "ttl", "pollIntervalMs": "pollInterval"}


def experimental(task: ToolTask) -> dict[str, Any]:
    """Return the 2025-11-25 ``Task`` of ``task``: its handle, ``ttl`` and ``pollInterval``."""
    return {EXPERIMENTAL_NAMES.get(key, key): value for key, value in handle(task).items()}


# --- a result as a task keeps it -----------------------------------------------------------

#: The key a kept result has instead of ``structuredContent`` when that is rebuilt from its
#: first text block on read (``packed``); its value names how (``REBUILDS``). Never sent:
#: a result's keys are the formatter's, never a view's.
FROM_TEXT = "mcp_tools/structuredContentFromText"

#: How a structured value is rebuilt from the text of a JSON body (docs/results.md): an
#: object (or, in 2026-07-28, any value) is the text parsed; 2025-11-25 wraps an array in
#: ``items`` and a scalar in ``result``; a JSON string's text is the string itself.
REBUILDS: dict[str, Callable[[str], object]] = {
    "json": json.loads,
    "items": lambda text: {"items": json.loads(text)},
    "result": lambda text: {"result": json.loads(text)},
    "text": lambda text: text,
    "text-result": lambda text: {"result": text},
}


def rebuild_form(text: str, structured: object) -> str | None:
    """Return how ``structured`` is rebuilt from ``text`` exactly (same JSON, keys in the
    same order, ``1.0`` not ``1``), or None where it can't be."""
    if isinstance(structured, dict) and len(structured) == 1:
        (key,) = structured
        candidates = {"items": ["items"], "result": ["text-result", "result"]}.get(key, [])
        candidates = [*candidates, "json"]
    else:
        candidates = ["text", "json"] if isinstance(structured, str) else ["json"]
    try:
        wanted = encode(structured)
        for form in candidates:
            try:
                if encode(REBUILDS[form](text)) == wanted:
                    return form
            except (ValueError, RecursionError):  # not JSON text, or NaN in it
                continue
    except ValueError:  # NaN or infinity: kept as it is
        return None
    return None


def packed(result: dict[str, Any]) -> dict[str, Any]:
    """Return ``result`` as a task keeps it: once. A JSON body's result carries it twice, as
    its text (the body, byte for byte) and as ``structuredContent``; the structured copy is
    left out when the text gives it back exactly, and rebuilt when read (``result_of``).

    The text is what stays: it is the view's body byte for byte, which a structured value
    stored as JSON would not give back (PostgreSQL's ``jsonb`` reorders an object's keys)."""
    content = result.get("content")
    if "structuredContent" not in result or not isinstance(content, list) or not content:
        return result
    first = content[0]
    if not isinstance(first, dict) or first.get("type") != "text":
        return result
    text = first.get("text")
    form = rebuild_form(text, result["structuredContent"]) if isinstance(text, str) else None
    if form is None:
        return result
    # In place of the structured copy, so that the rebuilt result keeps its keys' order.
    kept: dict[str, Any] = {}
    for key, value in result.items():
        if key == "structuredContent":
            kept[FROM_TEXT] = form
        else:
            kept[key] = value
    return kept


def result_of(task: ToolTask) -> dict[str, Any] | None:
    """Return ``task``'s result as it was answered: its structured copy rebuilt (``packed``)."""
    result = task.result
    if not isinstance(result, dict) or FROM_TEXT not in result:
        return result
    text = result["content"][0]["text"]
    wire: dict[str, Any] = {}
    for key, value in result.items():
        if key == FROM_TEXT:
            wire["structuredContent"] = REBUILDS[value](text)
        else:
            wire[key] = value
    return wire
