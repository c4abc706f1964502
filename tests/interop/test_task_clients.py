"""Real clients of MCP tasks against gunicorn and a django-tasks-db worker, on a SQLite file.

- The official TypeScript SDK (1.32) at 2025-11-25, through its experimental tasks API.
- A raw-HTTP client at 2026-07-28: neither SDK ships the ``io.modelcontextprotocol/tasks``
  extension yet (docs/tasks.md#clients).
- Bad input at the HTTP level: forged, foreign, expired and malformed task ids, a
  ``tasks/update`` for a task not waiting for input, a burst of task calls against
  ``MAX_TASKS_PER_CALLER`` and an endpoint's throttle.
- What tasks keep, in both eras: a result kept once and answered as the official Python
  SDK's inline call is, and ``MAX_TASK_BYTES_PER_CALLER`` over ended tasks and results.

One stack serves the module (tests/task_servers.py); every exchange is checked against the
schemas (tests/wire.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx2
import pytest

from tests.conformance_app.server import REPO
from tests.interop.test_results_clients import node_dir
from tests.sdk import connect
from tests.task_servers import SETTINGS, WAIT_SECONDS, RawClient, TaskStack, ended
from tests.wire import validate_exchange, validate_stream

#: The tasks one caller may have working at once, here (MAX_TASKS_PER_CALLER).
CAP = 5
#: The bytes one caller's tasks may keep, here (MAX_TASK_BYTES_PER_CALLER).
KEEP = 300_000
#: An argument of 120 KB: a task keeps it and its result, once each (240 KB).
BIG = "z" * 120_000
#: The task calls of each burst: a modest count that still runs past the cap and the throttle.
BURST = 200
#: What /mcp-throttled allows one user a minute (tests/tasks_app/urls.py).
THROTTLE = 50
POLL_MS = 200
#: The empty acknowledgement of tasks/cancel and tasks/update (without its _meta).
ACK = {"resultType": "complete"}


def bare(result: dict) -> dict:
    return {key: value for key, value in result.items() if key != "_meta"}


@pytest.fixture(scope="module")
def stack():
    root = Path(tempfile.mkdtemp(prefix="mcp-tools-task-clients-"))
    environ = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "MCP_TESTS_DATABASE": str(root / "db.sqlite3"),
        "MCP_TESTS_TASK_POLL_INTERVAL_MS": str(POLL_MS),
        "MCP_TESTS_TASK_MAX_PER_CALLER": str(CAP),
        "MCP_TESTS_TASK_MAX_BYTES_PER_CALLER": str(KEEP),
        # A TTL of 1 ms, so that a task is past it at once (its floor is 60 s by default).
        "MCP_TESTS_TASK_MIN_TTL": "0.001",
        "PYTHONPATH": str(REPO),
    }
    environ.pop("MCP_TESTS_TASKS_DATABASE", None)
    server = TaskStack(environ, root)
    try:
        server.migrate()
        server.serve()
        server.worker()
        yield server
    finally:
        server.close()
        subprocess.run(["rm", "-rf", str(root)], check=False)


@pytest.fixture
def alice(stack):
    return stack.user()


@pytest.fixture
def raw(stack, alice):
    client = RawClient(stack.urls[0], alice)
    yield client
    client.close()


# -- the TypeScript SDK at 2025-11-25 --------------------------------------------------------


def test_the_typescript_sdk_runs_polls_and_cancels_tasks(stack, alice, tmp_path):
    root = node_dir()
    done = subprocess.run(
        [
            str(root / "node_modules" / ".bin" / "node"),
            str(REPO / "tests" / "js" / "task_tools.cjs"),
            f"{stack.urls[0]}/mcp",
            alice,
            "export_rows",
            json.dumps({"rows": 2, "seconds": 1}),
            json.dumps({"rows": 1, "seconds": 60}),
        ],
        env={**os.environ, "NODE_PATH": str(root / "node_modules"), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr + stack.logs()
    report = json.loads(done.stdout)
    assert report["protocolVersion"] == "2025-11-25"
    tools = report["tools"]
    assert tools["export_rows"]["execution"] == {"taskSupport": "optional"}
    assert tools["shout_task"]["execution"] == {"taskSupport": "required"}
    assert "taskSupport" not in tools["plain_tool"].get("execution", {})

    # The SDK made the call a task on its own (the tool's taskSupport), polled, then asked
    # tasks/result once it saw `completed`.
    stream = report["done"]
    kinds = [message["type"] for message in stream]
    assert kinds[0] == "taskCreated" and kinds[-1] == "result", kinds
    assert set(kinds[1:-1]) == {"taskStatus"} and len(kinds) >= 4, kinds
    task_id = stream[0]["task"]["taskId"]
    statuses = [message["task"]["status"] for message in stream[1:-1]]
    assert statuses[-1] == "completed" and set(statuses[:-1]) == {"working"}, statuses
    assert stream[0]["task"]["pollInterval"] == POLL_MS
    result = stream[-1]["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["lines"] == ["row 0", "row 1"]
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}

    # Cancelled while working: the acknowledgement, the task and the SDK's stream agree.
    cancelled = report["cancelled"]
    assert cancelled["stream"][0]["task"]["ttl"] == 60000  # the ttl the client asked for
    assert cancelled["ack"]["status"] == "cancelled"
    assert cancelled["after"]["status"] == "cancelled"
    assert cancelled["stream"][-1] == {
        "type": "error",
        "error": f"MCP error -32603: Task {cancelled['taskId']} was cancelled",
    }
    listed = {task["taskId"]: task["status"] for task in report["listed"]["tasks"]}
    assert listed == {task_id: "completed", cancelled["taskId"]: "cancelled"}

    methods = Counter(exchange["request"].get("method") for exchange in report["exchanges"])
    assert methods["tasks/result"] == 1 and methods["tasks/cancel"] == 1, methods
    for exchange in report["exchanges"]:
        body = exchange["body"].encode()
        if exchange["contentType"].startswith("text/event-stream"):
            validate_stream("2025-11-25", exchange["request"], body)
        else:
            validate_exchange("2025-11-25", exchange["request"], exchange["status"], body)


# -- a raw client at 2026-07-28 --------------------------------------------------------------


def test_the_extension_is_advertised_in_server_discover(raw):
    discovered = raw.result("server/discover", {})
    assert discovered["capabilities"]["extensions"] == {"io.modelcontextprotocol/tasks": {}}


def test_a_raw_client_polls_a_task_to_its_inlined_result(stack, raw):
    handle = raw.result(
        "tools/call", {"name": "export_rows", "arguments": {"rows": 3, "seconds": 1}}
    )
    assert handle["resultType"] == "task" and handle["status"] == "working"
    assert handle["pollIntervalMs"] == POLL_MS
    done, seen = raw.poll(handle["taskId"], ended)
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"]["lines"] == ["row 0", "row 1", "row 2"]
    assert done["result"]["isError"] is False
    assert {task["status"] for task in seen[:-1]} <= {"working"}
    assert any("done" in task.get("statusMessage", "") for task in seen)  # its progress
    row = stack.task_row(handle["taskId"])
    assert row["status"] == "completed" and row["attempts"] == 1


def test_a_raw_client_cancels_a_task_idempotently(raw):
    handle = raw.result(
        "tools/call", {"name": "export_rows", "arguments": {"rows": 1, "seconds": 60}}
    )
    task_id = handle["taskId"]
    raw.poll(task_id, lambda task: "statusMessage" in task)  # the worker runs its view
    assert bare(raw.result("tasks/cancel", {"taskId": task_id})) == ACK
    assert raw.get(task_id)["status"] == "cancelled"
    assert bare(raw.result("tasks/cancel", {"taskId": task_id})) == ACK
    assert raw.get(task_id)["status"] == "cancelled"


def test_a_task_tool_without_the_declared_extension_runs_inline_or_is_refused(stack, alice):
    plain = RawClient(stack.urls[0], alice, declares=False)
    try:
        inline = plain.result("tools/call", {"name": "export_rows", "arguments": {"rows": 1}})
        assert inline["resultType"] == "complete" and inline["structuredContent"]["lines"]
        refused = plain.error("tools/call", {"name": "shout_task", "arguments": {"word": "hi"}})
        assert refused["code"] == -32021
    finally:
        plain.close()


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "task_id",
    [
        secrets.token_hex(16),  # forged: the form of ours, never issued
        "../../etc/passwd",
        "' OR 1=1 --",
        "x" * 65,
        "",
    ],
    # Named, not by value: every pytest-xdist worker must collect the same ids.
    ids=["forged", "path", "sql", "too-long", "empty"],
)
def test_a_forged_or_malformed_task_id_is_invalid_params(raw, task_id):
    for method, params in [
        ("tasks/get", {"taskId": task_id}),
        ("tasks/cancel", {"taskId": task_id}),
        ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
    ]:
        assert raw.error(method, params)["code"] == -32602, (method, task_id)


def test_a_task_id_that_is_no_string_is_refused(raw):
    response = raw.post("tasks/get", {"taskId": 42})
    assert response.json()["error"]["code"] == -32020  # no Mcp-Name can carry it
    assert raw.error("tasks/get", {})["code"] == -32602


def test_another_callers_task_is_unknown_to_every_method(stack, raw):
    # A minute long: still working when bob is done, however slow the machine.
    handle = raw.result(
        "tools/call", {"name": "export_rows", "arguments": {"rows": 1, "seconds": 60}}
    )
    bob = RawClient(stack.urls[0], stack.user())
    try:
        for method, params in [
            ("tasks/get", {"taskId": handle["taskId"]}),
            ("tasks/update", {"taskId": handle["taskId"], "inputResponses": {}}),
            ("tasks/cancel", {"taskId": handle["taskId"]}),
        ]:
            error = bob.error(method, params)
            assert error["code"] == -32602 and error["message"].startswith("Unknown task"), method
    finally:
        bob.close()
    assert raw.get(handle["taskId"])["status"] == "working"  # bob's cancel did nothing
    raw.result("tasks/cancel", {"taskId": handle["taskId"]})


def test_an_expired_task_is_unknown(stack, alice, raw):
    # 2025-11-25 lets the client ask for a TTL: 1 ms, so the task is past it at once.
    from mcp_tools.test import MCPClient

    legacy = MCPClient(protocol_version="2025-11-25")
    message = legacy.message(
        "tools/call", {"name": "export_rows", "arguments": {"rows": 1}, "task": {"ttl": 1}}
    )
    headers = {**legacy.headers_for(message), "Authorization": f"Token {alice}"}
    response = httpx2.post(f"{stack.urls[0]}/mcp", json=message, headers=headers, timeout=30)
    validate_exchange("2025-11-25", message, response.status_code, response.content)
    task = response.json()["result"]["task"]
    assert task["ttl"] == 1
    error = raw.error("tasks/get", {"taskId": task["taskId"]})
    assert error["code"] == -32602 and error["message"].startswith("Unknown task")
    assert stack.task_row(task["taskId"]) is None  # forgotten as it was found expired


def test_tasks_update_for_a_task_not_waiting_for_input_changes_nothing(raw):
    working = raw.result(
        "tools/call", {"name": "export_rows", "arguments": {"rows": 1, "seconds": 3}}
    )
    answers = {"inputResponses": {"name": {"action": "accept", "content": {"name": "Mallory"}}}}
    assert bare(raw.result("tasks/update", {"taskId": working["taskId"], **answers})) == ACK
    assert raw.get(working["taskId"])["status"] == "working"
    done, _ = raw.poll(working["taskId"], ended)
    assert done["status"] == "completed"
    assert bare(raw.result("tasks/update", {"taskId": working["taskId"], **answers})) == ACK
    after = raw.get(working["taskId"])
    assert after["status"] == "completed" and after["result"] == done["result"]
    malformed = raw.error("tasks/update", {"taskId": working["taskId"], "inputResponses": [1]})
    assert malformed["code"] == -32602


def outcome(response) -> str:
    """Name what one call of a burst got: a task, the cap's refusal, or the throttle's."""
    if response.status_code == 429:
        return "throttled"
    answer = response.json()
    if "result" in answer:
        return answer["result"]["resultType"]
    if answer["error"]["code"] == -32029:
        return "throttled"
    assert answer["error"]["code"] == -32602, answer
    assert "MAX_TASKS_PER_CALLER" in answer["error"]["message"], answer
    return "capped"


@pytest.mark.parametrize(("path", "throttled"), [("/mcp", 0), ("/mcp-throttled", BURST - THROTTLE)])
def test_a_burst_of_task_calls_is_bounded_by_the_cap_and_the_throttle(stack, path, throttled):
    # BURST calls of a slow task-only tool by one user: CAP of them become tasks, the rest
    # are refused by the cap (-32602) or, past the endpoint's rate, by its throttle. (An
    # optional task tool's call would run inline once the cap is reached: docs/tasks.md.)
    client = RawClient(stack.urls[0], stack.user(), path=path)
    call = {"name": "wait_task", "arguments": {"seconds": WAIT_SECONDS}}
    outcomes = []
    try:
        outcomes.extend(client.post("tools/call", call) for _ in range(BURST))
        counted = Counter(outcome(response) for response in outcomes)
        assert (
            counted
            == Counter({"task": CAP, "capped": BURST - CAP - throttled, "throttled": throttled})
            - Counter()
        ), counted
        handles = [r.json()["result"]["taskId"] for r in outcomes if outcome(r) == "task"]
        rows = stack.task_rows(*handles)
        assert [rows[task_id]["status"] for task_id in handles] == ["working"] * CAP
    finally:
        # Cancelled as an admin would: the throttled endpoint that made them refuses more.
        made = [r.json()["result"]["taskId"] for r in outcomes if outcome(r) == "task"]
        if made:
            stack.cancel(*made)
        client.close()


# -- what tasks keep -------------------------------------------------------------------------

LEGACY = "2025-11-25"


def legacy_rpc(stack, token: str, method: str, params: dict) -> dict:
    """Send one 2025-11-25 request over HTTP; return its JSON-RPC answer, checked."""
    from mcp_tools.test import MCPClient

    shaper = MCPClient(protocol_version=LEGACY)
    message = shaper.message(method, params)
    headers = {**shaper.headers_for(message), "Authorization": f"Token {token}"}
    response = httpx2.post(f"{stack.urls[0]}/mcp", json=message, headers=headers, timeout=30)
    validate_exchange(LEGACY, message, response.status_code, response.content)
    return response.json()


def legacy_task(stack, token: str, arguments: dict) -> dict:
    """Call echo_task as a 2025-11-25 task; return its ``tasks/result`` once it ended."""
    call = {"name": "echo_task", "arguments": arguments, "task": {}}
    answer = legacy_rpc(stack, token, "tools/call", call)
    task_id = answer["result"]["task"]["taskId"]
    deadline = time.monotonic() + WAIT_SECONDS
    while legacy_rpc(stack, token, "tasks/get", {"taskId": task_id})["result"]["status"] == (
        "working"
    ):
        assert time.monotonic() < deadline, f"task {task_id} still working"
        time.sleep(POLL_MS / 1000)
    result = legacy_rpc(stack, token, "tasks/result", {"taskId": task_id})["result"]
    assert result.pop("_meta")["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    return result


def modern_task(stack, token: str, arguments: dict) -> dict:
    """Call echo_task as a 2026-07-28 task; return the result ``tasks/get`` inlines."""
    client = RawClient(stack.urls[0], token)
    try:
        handle = client.result("tools/call", {"name": "echo_task", "arguments": arguments})
        assert handle["resultType"] == "task", handle
        done, _ = client.poll(handle["taskId"], ended)
        assert done["status"] == "completed", done
        return done["result"]
    finally:
        client.close()


def sdk_inline(stack, token: str, mode: str, arguments: dict):
    """Call echo_task with the official Python SDK, which takes no task: answered inline."""

    async def scenario():
        async with connect(f"{stack.urls[0]}/mcp", token=token, mode=mode) as client:
            return await client.call_tool("echo_task", arguments)

    return asyncio.run(scenario())


@pytest.mark.parametrize(("version", "mode"), [(LEGACY, "legacy"), ("2026-07-28", "auto")])
def test_a_task_answers_its_kept_result_as_the_python_sdk_gets_it_inline(stack, version, mode):
    token = stack.user()
    arguments = {"text": "Zoë “quoted”\n" * 2000, "shape": "object", "seconds": 1}
    inline = sdk_inline(stack, token, mode, arguments)
    assert inline.is_error is False
    task = (modern_task if version != LEGACY else legacy_task)(stack, token, arguments)
    # The text byte for byte (the view's body), the structured value rebuilt from it.
    assert task["content"] == [{"type": "text", "text": inline.content[0].text}]
    assert json.dumps(task["structuredContent"]) == json.dumps(inline.structured_content)


@pytest.mark.parametrize("version", [LEGACY, "2026-07-28"])
def test_max_task_bytes_per_caller_counts_ended_tasks_and_bounds_results(stack, version):
    token = stack.user()
    run = modern_task if version != LEGACY else legacy_task
    first = run(stack, token, {"text": BIG, "seconds": 1})
    assert first["structuredContent"]["text"] == BIG  # 240 KB kept of 300 KB
    # 20 KB of arguments fit; their result, 400 KB, does not: kept as a tool error.
    refused = run(stack, token, {"text": "y" * 20_000, "times": 20, "seconds": 1})
    assert refused["isError"] is True and "structuredContent" not in refused
    assert refused["content"][0]["text"].startswith("Result too large to keep: it takes ")
    # Ended tasks count: another 120 KB of arguments would pass 300 KB.
    call = {"name": "echo_task", "arguments": {"text": BIG}}
    if version == LEGACY:
        error = legacy_rpc(stack, token, "tools/call", {**call, "task": {}})["error"]
        assert error["code"] == -32602 and "MAX_TASK_BYTES_PER_CALLER" in error["message"]
    else:  # the server decides: an optional task tool's call runs inline instead
        client = RawClient(stack.urls[0], token)
        try:
            inline = client.result("tools/call", call)
        finally:
            client.close()
        assert inline["resultType"] == "complete"
        assert inline["structuredContent"]["text"] == BIG
