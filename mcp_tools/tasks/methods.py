"""The /mcp side of tasks: a ``tools/call`` started as one, and the ``tasks/*`` methods.

2026-07-28 serves the official extension (``io.modelcontextprotocol/tasks``): a client
declares it per request, the server decides per call (docs/tasks.md). 2025-11-25 serves
that version's experimental tasks: the client asks with the ``task`` param. Every other
version calls a task tool inline, and refuses one that runs only as a task
(``tasks.decisions``, which decides that for every call without this module).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from ..auth.caller import quota_key
from ..auth.credentials import Uncarried
from ..conf import mcp_settings
from ..models import ToolTask
from ..protocol.cursors import decode_cursor, encode_cursor
from ..protocol.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONRPCError, clip
from ..protocol.results import InputRequiredResult
from . import identity
from . import store as tasks
from .decisions import EXPERIMENTAL_VERSION, declares_extension, missing_extension

if TYPE_CHECKING:
    from ..endpoint.exchange import Call
    from ..pipeline.invocation import Invocation


def start(
    call: Call, invocation: Invocation[Call]
) -> dict[str, Any] | InputRequiredResult | Invocation[Call]:
    """Run ``invocation``'s call as a task; answer its handle, or what the task ended with
    (or asked for) within ``TASK_IMMEDIATE_SECONDS``, as an inline call would.

    In 2026-07-28, where the server decides, a caller whose ``MAX_TASKS_PER_CALLER`` or
    ``MAX_TASK_BYTES_PER_CALLER`` is full, or whose credential a worker can't check again
    (``identity``), gets an ``"optional"`` task tool's call inline: the invocation comes
    back to run.
    """
    tool = invocation.tool
    optional = call.era.modern and tool.options.task == "optional"
    try:
        grant = identity.grant_for(call, tool)
    except Uncarried as exc:
        if optional:
            return invocation
        raise uncarried(tool.name, exc) from None
    params = call.message.params
    kept = {key: value for key, value in params.items() if key != "task"}
    if optional and not tasks.has_room(
        quota_key(call.request, call.caller), tasks.stored_size(kept)
    ):
        return invocation
    call.invocation = None  # the worker's run reports the call, not this request
    requested = params.get("task") if call.version == EXPERIMENTAL_VERSION else None
    ttl = requested.get("ttl") if isinstance(requested, dict) else None
    inputs = invocation.inputs
    if inputs is not None and inputs.held is not None:
        # This request took the user's acceptance for a run it won't make: the worker's
        # run takes it, or the user would be asked again (docs/input.md).
        inputs.held.release()
        inputs.held = None
    task = tasks.create(
        call.request,
        call.caller,
        tool.name,
        kept,
        version=call.version,
        client_name=call.client_name,
        ttl_ms=ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0 else None,
        retryable=tool.annotations.get("idempotentHint") is True,
        grant=grant,
    )
    if not call.era.modern:
        return {"task": tasks.experimental(task)}  # asked for a task: a task it gets
    task = tasks.wait_briefly(task)
    if task.status == ToolTask.WORKING:
        return tasks.created(task)
    tasks.discard(task)  # ended or asked within the window: answered as an inline call
    if task.status == ToolTask.COMPLETED:
        # Written with its status (``runs.call_as_endpoint``): a completed task has a result.
        return cast("dict[str, Any]", tasks.result_of(task))
    if task.status == ToolTask.INPUT_REQUIRED:
        return InputRequiredResult(task.input_requests or {}, task.request_state)
    raise stored_error(task)


def uncarried(name: str, exc: Uncarried) -> JSONRPCError:
    return JSONRPCError(
        INVALID_PARAMS,
        f"Invalid params: tool {clip(name)} can't run as a task with this credential "
        f"({exc}): a task's worker checks its caller's credential again, and only a stored "
        "token (DRF's authtoken, django-oauth-toolkit's) or none (a session) can be",
    )


def stored_error(task: ToolTask) -> JSONRPCError:
    error = task.error if isinstance(task.error, dict) else {}
    return JSONRPCError(
        int(error.get("code", -32603)),
        str(error.get("message", "Internal error")),
        data=error.get("data"),
    )


# --- 2026-07-28: the extension's methods ---------------------------------------------------


def _declared_task(call: Call, method: str) -> ToolTask:
    if not declares_extension(call.message.meta):
        raise missing_extension(method)
    return tasks.find(call.caller, call.message.params.get("taskId"), call.exchange.endpoint_path)


def get_task(call: Call) -> dict[str, Any]:
    return tasks.detailed(_declared_task(call, "tasks/get"))


def update_task(call: Call) -> dict[str, Any]:
    task = _declared_task(call, "tasks/update")
    try:
        grant = identity.renewed(call, task)
    except Uncarried as exc:
        raise uncarried(task.tool_name, exc) from None
    tasks.update(task, call.message.params.get("inputResponses"), grant)
    return {}


def cancel_task(call: Call) -> dict[str, Any]:
    tasks.cancel(_declared_task(call, "tasks/cancel"))
    return {}


# --- 2025-11-25: the experimental methods --------------------------------------------------


def _experimental_task(call: Call) -> ToolTask:
    if call.version != EXPERIMENTAL_VERSION:
        method = call.message.method or ""
        raise JSONRPCError(METHOD_NOT_FOUND, f"Method not found: {clip(method)}")
    return tasks.find(call.caller, call.message.params.get("taskId"), call.exchange.endpoint_path)


def experimental_get(call: Call) -> dict[str, Any]:
    return tasks.experimental(_experimental_task(call))


def experimental_cancel(call: Call) -> dict[str, Any]:
    task = _experimental_task(call)
    if task.terminal:
        raise JSONRPCError(
            INVALID_PARAMS, f"Cannot cancel task {task.id}: it is {task.status} already"
        )
    tasks.cancel(task)
    task.refresh_from_db()
    return tasks.experimental(task)


def experimental_result(call: Call) -> dict[str, Any]:
    """Answer ``tasks/result``: once the task ended (waiting at most ``CALL_TIMEOUT``), its
    result, or the error it failed with."""
    task = _experimental_task(call)
    deadline = time.monotonic() + mcp_settings.CALL_TIMEOUT
    pause = 0.05
    while not task.terminal and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
        task = tasks.find(call.caller, task.id, call.exchange.endpoint_path)
    if task.status == ToolTask.COMPLETED:
        result = dict(tasks.result_of(task) or {})
        meta = result.get("_meta")
        meta = dict(meta) if isinstance(meta, dict) else {}
        meta[tasks.RELATED_TASK_META_KEY] = {"taskId": task.id}
        result["_meta"] = meta
        return result
    if task.status == ToolTask.FAILED:
        raise stored_error(task)
    if task.status == ToolTask.CANCELLED:
        raise JSONRPCError(INVALID_PARAMS, f"Task {task.id} was cancelled")
    raise JSONRPCError(
        INVALID_PARAMS, f"Task {task.id} is still {task.status}: ask for its result again"
    )


def experimental_list(call: Call) -> dict[str, Any]:
    if call.version != EXPERIMENTAL_VERSION:
        raise JSONRPCError(METHOD_NOT_FOUND, "Method not found: tasks/list")
    size = mcp_settings.PAGE_SIZE or 100
    cursor = call.message.params.get("cursor")
    start = decode_cursor(cursor, 1_000_000) if cursor is not None else 0
    page = tasks.list_for(call.caller, call.exchange.endpoint_path, start=start, size=size + 1)
    result: dict[str, Any] = {"tasks": [tasks.experimental(task) for task in page[:size]]}
    if len(page) > size:
        result["nextCursor"] = encode_cursor(start + size)
    return result
