"""What tasks keep (docs/tasks.md#what-a-caller-may-keep): ``MAX_TASK_BYTES_PER_CALLER``
over every task a caller's quota holds, working or ended; a result past what is left kept
as a tool error, none of it stored; a result kept once, answered as the inline call's.

Both eras that have tasks: 2026-07-28's extension and 2025-11-25's ``task`` param. A
worker's run is ``task_runs.run``, called here where a worker would (``run_enqueued``).
"""

from __future__ import annotations

import json
import math
from datetime import timedelta

import pytest
from django.utils import timezone

from mcp_tools.models import ToolTask
from mcp_tools.tasks import store as tasks
from mcp_tools.test import MCPError
from tests.helpers import MODERN
from tests.tasks.test_store import RECORDED, RecordingExecutor, client_for, run_enqueued

pytestmark = pytest.mark.django_db

LEGACY = "2025-11-25"
ERAS = [MODERN, LEGACY]
RELATED = tasks.RELATED_TASK_META_KEY
#: An argument of 6,000 characters: what one task keeps is about twice it, its arguments
#: and its result once; three times before a result was kept once.
TEXT = "secret-" * 857 + "x"


@pytest.fixture(autouse=True)
def recorded(settings):
    """tests/tasks_app, its jobs run where the test says (``run_enqueued``)."""
    settings.ROOT_URLCONF = RECORDED["ROOT_URLCONF"]
    settings.MCP_TOOLS = dict(RECORDED["MCP_TOOLS"])
    RecordingExecutor.enqueued = []
    tasks._executors.clear()
    yield
    tasks._executors.clear()


@pytest.fixture
def bound(settings):
    """Set ``MAX_TASK_BYTES_PER_CALLER``, tasks' other settings as test_store's."""

    def set_bound(value):
        settings.MCP_TOOLS = {**RECORDED["MCP_TOOLS"], "MAX_TASK_BYTES_PER_CALLER": value}

    return set_bound


def tasks_client(user, version):
    """A client of ``version`` that can take a task (2026-07-28: the extension)."""
    return client_for(user) if version == MODERN else client_for(user, {"tasks": {}}, LEGACY)


def inline_client(user, version):
    """A client of ``version`` that takes no task: an optional task tool answers inline."""
    return client_for(user, {}, version)


def start(client, version, arguments, name="echo_task"):
    """Call ``name`` as a task; return its id."""
    if version == MODERN:
        handle = client.call_tool(name, arguments)
        assert handle["resultType"] == "task", handle
        return handle["taskId"]
    params = {"name": name, "arguments": arguments, "task": {}}
    return client.rpc("tools/call", params)["task"]["taskId"]


def ended(client, version, task_id):
    """Return the result of a completed task as its era reads it."""
    if version == MODERN:
        got = client.rpc("tasks/get", {"taskId": task_id})
        assert got["status"] == "completed", got
        return got["result"]
    result = client.rpc("tasks/result", {"taskId": task_id})
    meta = dict(result.pop("_meta"))
    assert meta.pop(RELATED) == {"taskId": task_id}
    if meta:
        result["_meta"] = meta
    return result


def kept(task_id):
    return ToolTask.objects.get(pk=task_id)


# --- a result kept once ----------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["object", "array", "string", "number"])
@pytest.mark.parametrize("version", ERAS)
def test_a_result_is_kept_once_and_answered_as_the_inline_call(alice, version, shape):
    arguments = {"text": "Zoë said “hi”\n" * 50, "shape": shape}
    inline = inline_client(alice, version).call_tool("echo_task", arguments)
    assert inline.get("resultType", "complete") == "complete" and "structuredContent" in inline
    client = tasks_client(alice, version)
    task_id = start(client, version, arguments)
    run_enqueued()
    # The same result, its text byte for byte, its structured value rebuilt with its keys in
    # the body's order (``1.0`` kept a float).
    answered = ended(client, version, task_id)
    assert answered == inline
    assert json.dumps(answered) == json.dumps(inline)
    row = kept(task_id)
    assert "structuredContent" not in row.result, "kept twice: as its text and structured"
    assert row.result[tasks.FROM_TEXT]
    assert row.size == tasks.json_bytes(row.params) + tasks.json_bytes(row.result)


def text_result(text, *structured):
    """A result whose one text block is ``text``, with ``structured`` if given."""
    result = {"content": [{"type": "text", "text": text}]}
    return {**result, "structuredContent": structured[0]} if structured else result


@pytest.mark.parametrize(
    ("result", "once"),
    [
        # A JSON body's result: its text is the body; the structured copy is left out.
        (text_result('{"a":1,"b":[1.0]}', {"a": 1, "b": [1.0]}), True),
        (text_result("[1,2]", {"items": [1, 2]}), True),  # 2025-11-25 wraps an array
        (text_result("[1,2]", [1, 2]), True),  # 2026-07-28 does not
        (text_result("hi", {"result": "hi"}), True),  # a JSON string's text is the string
        (text_result("hi", "hi"), True),
        (text_result("2.5", {"result": 2.5}), True),
        (text_result('{"items":[1]}', {"items": [1]}), True),  # an object, not a wrapping
        # Kept as they are: the text is not the structured value's (a view's own text with
        # mcp_output, another key order, 1 for 1.0, NaN), or there is no structured copy.
        (text_result("3 todos", {"count": 3}), False),
        (text_result('{"b":1,"a":2}', {"a": 2, "b": 1}), False),
        (text_result('{"a":1}', {"a": 1.0}), False),
        (text_result("NaN", {"result": math.nan}), False),
        (text_result("plain"), False),
        ({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}, False),
    ],
)  # fmt: skip
def test_a_result_is_kept_once_only_where_its_text_gives_it_back(result, once):
    packed = tasks.packed(result)
    assert (tasks.FROM_TEXT in packed) is once
    row = ToolTask(result=json.loads(json.dumps(packed)))  # as a JSON column gives it back
    answered = tasks.result_of(row)
    assert json.dumps(answered) == json.dumps(result)  # NaN too, which equals nothing


def test_a_result_kept_before_this_version_is_read_as_it_is():
    result = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {}}
    assert tasks.result_of(ToolTask(result=result)) == result


# --- MAX_TASK_BYTES_PER_CALLER -------------------------------------------------------------


@pytest.mark.parametrize("version", ERAS)
def test_ended_tasks_count_toward_max_task_bytes_per_caller(alice, bob, bound, version):
    bound(15_000)
    client = tasks_client(alice, version)
    first = start(client, version, {"text": TEXT})
    run_enqueued()
    assert kept(first).status == "completed"  # ended: MAX_TASKS_PER_CALLER counts it no more
    assert 12_000 < kept(first).size < 13_000  # its arguments and its result, once each
    if version == MODERN:
        # The server decides: an optional task tool's call runs inline instead ...
        inline = client.call_tool("echo_task", {"text": TEXT})
        assert inline["resultType"] == "complete" and inline["structuredContent"]["text"] == TEXT
        # ... and a task-only tool's is refused.
        with pytest.raises(MCPError) as refused:
            client.call_tool("shout_task", {"word": TEXT})
    else:
        with pytest.raises(MCPError) as refused:
            start(client, version, {"text": TEXT})
    assert refused.value.code == -32602
    assert refused.value.message.startswith("Too much kept: this caller's tasks keep ")
    assert "MAX_TASK_BYTES_PER_CALLER" in refused.value.message
    assert ToolTask.objects.count() == 1
    # Small calls still fit, and another caller has a room of its own.
    assert kept(start(client, version, {"text": "small"})).status == "working"
    assert kept(start(tasks_client(bob, version), version, {"text": TEXT})).status == "working"


def test_a_task_past_its_ttl_keeps_nothing_of_its_callers_room(alice, bound):
    bound(15_000)
    client = tasks_client(alice, MODERN)
    first = start(client, MODERN, {"text": TEXT})
    run_enqueued()
    with pytest.raises(MCPError):
        client.call_tool("shout_task", {"word": TEXT})
    ToolTask.objects.filter(pk=first).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert client.call_tool("shout_task", {"word": TEXT})["resultType"] == "task"


def test_a_working_task_keeps_its_room_past_its_ttl(alice, bound):
    """Its view may still run, and write its result: as MAX_TASKS_PER_CALLER counts it."""
    bound(10_000)
    client = tasks_client(alice, MODERN)
    first = start(client, MODERN, {"text": TEXT})
    ToolTask.objects.filter(pk=first).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(MCPError) as refused:
        client.call_tool("shout_task", {"word": TEXT})
    assert "MAX_TASK_BYTES_PER_CALLER" in refused.value.message


def test_no_bound_with_none(alice, bound):
    bound(None)
    client = tasks_client(alice, LEGACY)
    for _ in range(3):
        start(client, LEGACY, {"text": TEXT * 10})
    assert ToolTask.objects.count() == 3


@pytest.mark.parametrize("version", ERAS)
def test_a_result_past_what_is_left_is_kept_as_a_tool_error(alice, bound, version):
    bound(10_000)
    client = tasks_client(alice, version)
    task_id = start(client, version, {"text": TEXT})  # 6 KB of arguments: room for 4 more
    run_enqueued()
    answered = ended(client, version, task_id)
    assert answered["isError"] is True and "structuredContent" not in answered
    (block,) = answered["content"]
    assert block["text"].startswith("Result too large to keep: it takes ")
    assert "bytes, and this caller's tasks may keep " in block["text"]
    assert "MAX_TASK_BYTES_PER_CALLER" in block["text"]
    row = kept(task_id)
    assert "secret" not in json.dumps(row.result)  # none of the result is kept
    assert row.size == tasks.json_bytes(row.params) + tasks.json_bytes(row.result) < 10_000


@pytest.mark.parametrize("version", ERAS)
def test_one_result_is_bounded_by_max_response_bytes_as_inline(alice, settings, version):
    settings.MCP_TOOLS = {**RECORDED["MCP_TOOLS"], "MAX_RESPONSE_BYTES": 20_000}
    client = tasks_client(alice, version)
    task_id = start(client, version, {"text": TEXT, "times": 4})  # a 24 KB answer
    run_enqueued()
    answered = ended(client, version, task_id)
    assert answered["isError"] is True
    assert answered["content"][0]["text"] == "Response too large: more than 20000 bytes"
    assert "secret" not in json.dumps(kept(task_id).result)


def test_input_requests_and_responses_count_as_they_are_kept(alice):
    client = tasks_client(alice, MODERN)
    task_id = start(client, MODERN, {}, name="asking_task")
    run_enqueued()
    asking = kept(task_id)
    assert asking.status == "input_required"
    params = tasks.json_bytes(asking.params)
    requests = tasks.json_bytes(asking.input_requests)
    assert asking.size == params + requests + len(asking.request_state)
    answer = {"name": {"action": "accept", "content": {"name": "Bo" * 500}}}
    client.rpc("tasks/update", {"taskId": task_id, "inputResponses": answer})
    answered = kept(task_id)
    assert answered.status == "working"
    assert answered.size == tasks.json_bytes(answered.params) + len(answered.request_state)
    assert answered.size > asking.size - requests + 1000  # the answer's thousand characters
    run_enqueued()
    done = kept(task_id)
    assert done.status == "completed" and done.request_state  # the row keeps it still
    result = tasks.json_bytes(done.result)
    assert done.size == tasks.json_bytes(done.params) + result + len(done.request_state)
