"""MCP tasks through /mcp (docs/tasks.md): created, polled, answered, cancelled, reaped.

A worker's run is ``task_runs.run``, called here where a worker would call it: the
executor of most tests only records what it was asked to enqueue.
"""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import timedelta

import jsonschema
import pytest
from django.db import connections, transaction
from django.urls import set_script_prefix
from django.utils import timezone, translation

from mcp_tools.catalog.admin_state import publish
from mcp_tools.catalog.sync import sync_tools
from mcp_tools.models import ExposedTool, ToolCall, ToolTask
from mcp_tools.tasks import runs as task_runs
from mcp_tools.tasks import store as tasks
from mcp_tools.tasks.executors import TaskExecutor
from mcp_tools.test import MCPClient, MCPError
from tests.helpers import MODERN
from tests.tasks_app import views as task_views
from tests.wire import EXTENSION_SCHEMA

pytestmark = pytest.mark.django_db

EXTENSION = {"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}}
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


class RecordingExecutor(TaskExecutor):
    """An executor whose worker never comes on its own: the test runs each job."""

    enqueued: list[str] = []

    def enqueue(self, task_id: str) -> None:
        self.enqueued.append(task_id)


def run_enqueued() -> None:
    while RecordingExecutor.enqueued:
        task_runs.run(RecordingExecutor.enqueued.pop(0))


def run_in_a_thread() -> None:
    """Run the enqueued jobs as a worker's thread does, closing its connections after."""
    try:
        run_enqueued()
    finally:
        connections.close_all()


RECORDED = {
    "ROOT_URLCONF": "tests.tasks_app.urls",
    "MCP_TOOLS": {
        "TASK_EXECUTOR": "tests.tasks.test_store.RecordingExecutor",
        "TASK_IMMEDIATE_SECONDS": 0,
        "CALL_LOG": "all",
    },
}


@pytest.fixture
def recorded(settings):
    settings.ROOT_URLCONF = RECORDED["ROOT_URLCONF"]
    settings.MCP_TOOLS = dict(RECORDED["MCP_TOOLS"])


@pytest.fixture
def immediate(settings):
    settings.ROOT_URLCONF = RECORDED["ROOT_URLCONF"]


@pytest.fixture(autouse=True)
def fresh_executor():
    RecordingExecutor.enqueued = []
    tasks._executors.clear()
    yield
    tasks._executors.clear()


def client_for(user, capabilities=EXTENSION, version=MODERN):
    headers = {"Authorization": f"Token {user.token}"} if user is not None else {}
    return MCPClient(headers=headers, protocol_version=version, client_capabilities=capabilities)


@pytest.fixture
def agent(alice):
    """alice's 2026-07-28 client, declaring the tasks extension and elicitation."""
    return client_for(alice)


@pytest.mark.usefixtures("recorded")
class TestTheExtension:
    def test_a_call_is_answered_with_a_flat_task_handle(self, agent, alice):
        handle = agent.call_tool("export_rows", {"rows": 2})
        assert handle["resultType"] == "task"
        assert "task" not in handle and "result" not in handle and "requestState" not in handle
        assert handle["status"] == "working"
        assert ISO.match(handle["createdAt"]) and ISO.match(handle["lastUpdatedAt"])
        assert isinstance(handle["ttlMs"], int) and handle["ttlMs"] == 24 * 3600 * 1000
        assert isinstance(handle["pollIntervalMs"], int)
        row = ToolTask.objects.get(pk=handle["taskId"])
        assert (row.tool_name, row.user, row.status) == ("export_rows", alice, "working")
        assert "HTTP_AUTHORIZATION" not in row.environ  # the worker acts as alice, no token
        assert RecordingExecutor.enqueued == [handle["taskId"]]

    def test_tasks_get_inlines_the_result_once_done(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 2})["taskId"]
        working = agent.rpc("tasks/get", {"taskId": task_id})
        assert working["status"] == "working" and "result" not in working
        assert working["resultType"] == "complete"
        run_enqueued()
        done = agent.rpc("tasks/get", {"taskId": task_id})
        assert done["status"] == "completed"
        assert done["result"]["structuredContent"] == {"user": "alice", "lines": ["row 0", "row 1"]}
        assert done["result"]["isError"] is False
        assert "io.modelcontextprotocol/related-task" not in done["result"].get("_meta", {})

    def test_the_worker_reports_the_call_to_the_log(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        assert not ToolCall.objects.exists()  # the handle is no call of the view
        run_enqueued()
        call = ToolCall.objects.get()
        assert (call.tool_name, call.outcome, call.protocol_version, call.task_id) == (
            "export_rows",
            "ok",
            MODERN,
            task_id,  # the logged call knows its task (the admin links them)
        )
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "completed"

    def test_the_tool_called_signal_names_the_task(self, agent):
        from mcp_tools.signals import tool_called

        seen = []
        tool_called.connect(lambda **kwargs: seen.append(kwargs), weak=False, dispatch_uid="t")
        try:
            task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
            run_enqueued()
            agent.call_tool("plain_tool")
        finally:
            tool_called.disconnect(dispatch_uid="t")
        assert [(call["tool"], call["task_id"]) for call in seen] == [
            ("export_rows", task_id),
            ("plain_tool", None),  # an inline call
        ]

    def test_a_tool_error_completes_with_is_error(self, agent):
        task_id = agent.call_tool("failing_task")["taskId"]
        run_enqueued()
        done = agent.rpc("tasks/get", {"taskId": task_id})
        assert done["status"] == "completed" and done["result"]["isError"] is True
        assert "refused the job" in done["result"]["content"][0]["text"]

    def test_a_view_that_crashes_completes_masked(self, agent):
        task_id = agent.call_tool("crashing_task")["taskId"]
        run_enqueued()
        done = agent.rpc("tasks/get", {"taskId": task_id})
        assert done["status"] == "completed" and done["result"]["isError"] is True
        assert "secret detail" not in str(done)

    def test_a_protocol_error_fails_the_task(self, alice):
        # The view asks the user, and this client declared no elicitation: -32021.
        agent = client_for(alice, {"extensions": {"io.modelcontextprotocol/tasks": {}}})
        task_id = agent.call_tool("asking_task")["taskId"]
        run_enqueued()
        failed = agent.rpc("tasks/get", {"taskId": task_id})
        assert failed["status"] == "failed" and "result" not in failed
        assert failed["error"]["code"] == -32021

    def test_invalid_arguments_answer_at_once_without_a_task(self, agent):
        result = agent.call_tool("export_rows", {"rows": "many"})
        assert result["resultType"] == "complete" and result["isError"] is True
        assert not ToolTask.objects.exists()

    def test_a_plain_tool_never_becomes_a_task(self, agent):
        result = agent.call_tool("plain_tool", meta={})
        assert result["resultType"] == "complete"
        legacy = agent.rpc(
            "tools/call", {"name": "plain_tool", "task": {"ttl": 1000}, "arguments": {}}
        )
        assert legacy["resultType"] == "complete" and not ToolTask.objects.exists()

    def test_without_the_extension_an_optional_tool_runs_inline(self, alice):
        plain = client_for(alice, {})
        result = plain.call_tool("export_rows", {"rows": 1})
        assert result["resultType"] == "complete" and result["structuredContent"]["lines"]
        assert not ToolTask.objects.exists()

    def test_without_the_extension_a_required_tool_is_refused(self, alice):
        with pytest.raises(MCPError) as refused:
            client_for(alice, {}).call_tool("shout_task", {"word": "hi"})
        assert refused.value.code == -32021
        assert refused.value.data == {
            "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
        }

    def test_tasks_methods_need_the_extension(self, agent, alice):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        plain = client_for(alice, {})
        for method, params in [
            ("tasks/get", {"taskId": task_id}),
            ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
            ("tasks/cancel", {"taskId": task_id}),
        ]:
            with pytest.raises(MCPError) as refused:
                plain.rpc(method, params)
            assert refused.value.code == -32021, method

    @pytest.mark.parametrize("method", ["tasks/result", "tasks/list"])
    def test_removed_methods_are_not_found(self, agent, method):
        with pytest.raises(MCPError) as refused:
            agent.rpc(method, {"taskId": "x"} if method == "tasks/result" else {})
        assert refused.value.code == -32601

    @pytest.mark.parametrize("task_id", ["nope", "", None, "x" * 65, "' OR 1=1 --"])
    def test_unknown_and_malformed_ids_are_invalid_params(self, agent, task_id):
        with pytest.raises(MCPError) as refused:
            agent.rpc("tasks/get", {"taskId": task_id})
        assert refused.value.code == -32602

    def test_an_id_no_header_can_name_is_a_header_mismatch(self, agent):
        with pytest.raises(MCPError) as refused:
            agent.rpc("tasks/get", {"taskId": 42})
        assert refused.value.code == -32020

    def test_another_callers_task_is_unknown(self, agent, bob):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        for method in ("tasks/get", "tasks/cancel"):
            with pytest.raises(MCPError) as refused:
                client_for(bob).rpc(method, {"taskId": task_id})
            assert refused.value.code == -32602
        assert ToolTask.objects.get().status == "working"

    def test_mcp_name_must_name_the_task(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        body = agent.message("tasks/get", {"taskId": task_id})
        headers = {**agent.headers_for(body), "Mcp-Name": "another"}
        response = agent.post("/mcp", body, content_type="application/json", headers=headers)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32020

    def test_cancel_is_an_idempotent_acknowledgement(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        ack = agent.rpc("tasks/cancel", {"taskId": task_id})
        assert set(ack) <= {"resultType", "_meta"} and ack["resultType"] == "complete"
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "cancelled"
        run_enqueued()  # the worker finds it cancelled: the view never runs
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "cancelled"
        assert not ToolCall.objects.exists()
        assert agent.rpc("tasks/cancel", {"taskId": task_id})["resultType"] == "complete"

    @pytest.mark.django_db(transaction=True)
    def test_cancel_stops_a_running_view(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1, "seconds": 20})["taskId"]
        worker = threading.Thread(target=run_in_a_thread)
        started = time.monotonic()
        worker.start()
        deadline = time.monotonic() + 10
        while ToolTask.objects.get(pk=task_id).status_message == "" and time.monotonic() < deadline:
            time.sleep(0.05)  # the view reports its first step
        agent.rpc("tasks/cancel", {"taskId": task_id})
        worker.join(15)
        assert time.monotonic() - started < 10  # stopped, long before its 20 s
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "cancelled"
        call = ToolCall.objects.get()
        assert (call.outcome, call.refusal) == ("refused", "cancelled")

    def test_progress_messages_are_the_status_message(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1, "seconds": 0.1})["taskId"]
        run_enqueued()
        assert ToolTask.objects.get(pk=task_id).status_message == "2 of 2 done"

    def test_input_required_inside_a_task_and_tasks_update(self, agent):
        task_id = agent.call_tool("asking_task")["taskId"]
        run_enqueued()
        waiting = agent.rpc("tasks/get", {"taskId": task_id})
        assert waiting["status"] == "input_required" and "requestState" not in waiting
        assert waiting["inputRequests"]["name"]["method"] == "elicitation/create"
        # A key the task is not waiting for is ignored: it keeps waiting.
        stray = {"other": {"action": "accept", "content": {"name": "x"}}}
        assert agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": stray})
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "input_required"
        assert RecordingExecutor.enqueued == []
        answer = {"name": {"action": "accept", "content": {"name": "Alice"}}}
        ack = agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": answer})
        assert ack["resultType"] == "complete"
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "working"
        run_enqueued()
        done = agent.rpc("tasks/get", {"taskId": task_id})
        assert done["result"]["structuredContent"] == {"greeting": "Hello, Alice!"}

    def test_tasks_update_checks_its_responses(self, agent):
        task_id = agent.call_tool("asking_task")["taskId"]
        run_enqueued()
        for responses in ({"name": 12}, {"name": {"ignored": True}}, ["name"]):
            with pytest.raises(MCPError) as refused:
                agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": responses})
            assert refused.value.code == -32602
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "input_required"

    def test_tasks_update_ignores_a_key_it_is_not_waiting_for_whatever_it_holds(self, agent):
        # The conformance suite answers an unknown key with a value that is no result.
        task_id = agent.call_tool("asking_task")["taskId"]
        run_enqueued()
        stray = {"unknown-key": {"ignored": True}, "other": 12}
        ack = agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": stray})
        assert ack["resultType"] == "complete" and "status" not in ack
        waiting = agent.rpc("tasks/get", {"taskId": task_id})
        assert waiting["status"] == "input_required" and list(waiting["inputRequests"]) == ["name"]

    def test_a_dead_workers_task_fails_when_its_lease_runs_out(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        past = timezone.now() - timedelta(seconds=1)
        ToolTask.objects.filter(pk=task_id).update(leased_until=past, worker="host:1:1")
        failed = agent.rpc("tasks/get", {"taskId": task_id})
        assert failed["status"] == "failed" and "host:1:1" in failed["error"]["message"]

    def test_a_live_workers_lease_is_kept(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        future = timezone.now() + timedelta(seconds=30)
        ToolTask.objects.filter(pk=task_id).update(leased_until=future, worker="host:1:1")
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "working"
        run_enqueued()  # another worker does not take a task that is held
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "working"

    def test_an_expired_task_is_unknown_and_deleted(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        ToolTask.objects.filter(pk=task_id).update(expires_at=timezone.now())
        with pytest.raises(MCPError) as refused:
            agent.rpc("tasks/get", {"taskId": task_id})
        assert refused.value.code == -32602 and not ToolTask.objects.exists()

    def test_a_caller_may_have_so_many_tasks_working(self, agent, bob, settings):
        settings.MCP_TOOLS = {**RECORDED["MCP_TOOLS"], "MAX_TASKS_PER_CALLER": 2}
        agent.call_tool("export_rows", {"rows": 1})
        agent.call_tool("export_rows", {"rows": 1})
        with pytest.raises(MCPError) as refused:
            agent.call_tool("shout_task", {"word": "hi"})  # a task or nothing
        assert refused.value.code == -32602 and "MAX_TASKS_PER_CALLER" in refused.value.message
        # An optional one runs inline instead, as for a client without the extension.
        inline = agent.call_tool("export_rows", {"rows": 1})
        assert inline["resultType"] == "complete" and inline["structuredContent"]["user"] == "alice"
        assert ToolTask.objects.filter(user__username="alice").count() == 2
        assert client_for(bob).call_tool("export_rows", {"rows": 1})["resultType"] == "task"

    def test_the_user_is_loaded_again_by_the_worker(self, agent, alice):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        alice.is_active = False
        alice.save()
        run_enqueued()
        failed = ToolTask.objects.get(pk=task_id)
        assert failed.status == "failed" and failed.error["code"] == -32001

    def test_a_tool_disabled_meanwhile_is_refused_by_the_worker(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        sync_tools(task_views.registry)
        assert ExposedTool.objects.filter(name="export_rows").update(enabled=False) == 1
        publish()
        run_enqueued()
        failed = ToolTask.objects.get(pk=task_id)
        assert failed.status == "failed" and failed.error["code"] == -32602
        assert "Unknown tool" in failed.error["message"]

    def test_the_worker_runs_in_the_requests_language_host_and_headers(
        self, alice, settings, request
    ):
        # LocaleMiddleware leaves the language it chose active on the thread: not for the
        # tests after this one.
        request.addfinalizer(lambda: translation.activate(settings.LANGUAGE_CODE))
        settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.middleware.locale.LocaleMiddleware"]
        agent = MCPClient(
            headers={
                "Authorization": f"Token {alice.token}",
                "Accept-Language": "fr",
                "X-Tenant": "acme",
            },
            protocol_version=MODERN,
            client_capabilities=EXTENSION,
            HTTP_HOST="shop.example",
        )
        settings.ALLOWED_HOSTS = ["shop.example", "testserver"]
        task_id = agent.call_tool("where_task")["taskId"]
        # A worker's own thread: its language and script prefix are the defaults.
        with translation.override("en"):
            set_script_prefix("/")
            run_enqueued()
        done = tasks.result_of(ToolTask.objects.get(pk=task_id))["structuredContent"]
        assert done == {
            "language": "fr",
            "url": "/k/where/",  # the script prefix: tests/tasks/test_runs.py
            "host": "shop.example",
            "tenant": "acme",
        }

    def test_discover_advertises_the_extension(self, agent):
        capabilities = agent.discover()["capabilities"]
        assert capabilities["extensions"] == {"io.modelcontextprotocol/tasks": {}}
        assert "tasks" not in capabilities


@pytest.mark.usefixtures("immediate")
class TestImmediateBackend:
    """Django's default backend runs a job as it is enqueued: every call answers inline."""

    def test_a_task_call_answers_inline(self, agent):
        result = agent.call_tool("export_rows", {"rows": 1})
        assert result["resultType"] == "complete"
        assert result["structuredContent"] == {"user": "alice", "lines": ["row 0"]}
        assert not ToolTask.objects.exists()  # answered inline: nothing to poll

    def test_a_job_run_as_it_is_enqueued_answers_inline_without_a_window(self, agent, settings):
        settings.MCP_TOOLS = {"TASK_IMMEDIATE_SECONDS": 0}
        result = agent.call_tool("export_rows", {"rows": 1})
        assert result["resultType"] == "complete" and not ToolTask.objects.exists()

    def test_an_ask_within_the_window_is_an_inline_round(self, agent):
        asked = agent.call_tool("asking_task")
        assert asked["resultType"] == "input_required" and "taskId" not in asked
        answer = {"name": {"action": "accept", "content": {"name": "Bo"}}}
        done = agent.call_tool(
            "asking_task", input_responses=answer, request_state=asked["requestState"]
        )
        assert done["resultType"] == "complete"
        assert done["structuredContent"] == {"greeting": "Hello, Bo!"}
        assert not ToolTask.objects.exists()


class LateWorker(TaskExecutor):
    """A worker that takes each job ``delay`` seconds after its row is committed: a
    db_worker asleep for its ``--interval``, or busy with other jobs."""

    delay = 1.5
    threads: list[threading.Thread] = []

    def enqueue(self, task_id: str) -> None:
        def take() -> None:
            time.sleep(self.delay)
            try:
                task_runs.run(task_id)
            finally:
                connections.close_all()

        worker = threading.Thread(target=take)
        self.threads.append(worker)
        transaction.on_commit(worker.start)


@pytest.mark.django_db(transaction=True)
class TestTheWindowOpensWhenAWorkerTakesTheTask:
    """``TASK_IMMEDIATE_SECONDS`` is the work's time, not the worker's poll interval: the
    same call answers the same whether its worker wakes up at once or 1.5 s later."""

    @pytest.fixture(autouse=True)
    def late(self, settings):
        settings.ROOT_URLCONF = RECORDED["ROOT_URLCONF"]
        settings.MCP_TOOLS = {
            "TASK_EXECUTOR": "tests.tasks.test_store.LateWorker",
            "TASK_IMMEDIATE_SECONDS": 0.5,
        }
        yield
        for worker in LateWorker.threads:  # done with the database before it is flushed
            worker.join(10)
        LateWorker.threads = []

    def test_an_ask_is_an_inline_round_however_late_the_worker(self, agent):
        started = time.monotonic()
        asked = agent.call_tool("asking_task")
        assert time.monotonic() - started >= LateWorker.delay
        assert asked["resultType"] == "input_required" and "taskId" not in asked
        assert not ToolTask.objects.exists()

    def test_a_short_call_answers_inline_however_late_the_worker(self, agent):
        result = agent.call_tool("export_rows", {"rows": 1})
        assert result["resultType"] == "complete"
        assert result["structuredContent"] == {"user": "alice", "lines": ["row 0"]}

    def test_work_longer_than_the_window_is_a_task(self, agent):
        answer = agent.call_tool("export_rows", {"rows": 1, "seconds": 3})
        assert answer["resultType"] == "task" and answer["status"] == "working"
        agent.rpc("tasks/cancel", {"taskId": answer["taskId"]})

    def test_a_task_no_worker_takes_is_answered_with_its_handle(self, agent, settings):
        settings.MCP_TOOLS = {**settings.MCP_TOOLS, "TASK_PICKUP_SECONDS": 0.3}
        started = time.monotonic()
        answer = agent.call_tool("asking_task")
        assert time.monotonic() - started < LateWorker.delay
        assert answer["resultType"] == "task"


@pytest.mark.usefixtures("recorded")
class TestExperimentalTasks:
    """2025-11-25's experimental tasks, from the same store."""

    @pytest.fixture
    def legacy(self, alice):
        return client_for(alice, {"tasks": {}}, version="2025-11-25")

    def test_tools_and_capabilities_say_it(self, legacy):
        capabilities = legacy.initialize()["capabilities"]
        assert capabilities["tasks"]["requests"] == {"tools": {"call": {}}}
        tools = {tool["name"]: tool for tool in legacy.list_tools()}
        assert tools["export_rows"]["execution"] == {"taskSupport": "optional"}
        assert tools["shout_task"]["execution"] == {"taskSupport": "required"}
        assert "execution" not in tools["plain_tool"]

    def test_a_task_param_makes_a_task(self, legacy):
        created = legacy.rpc(
            "tools/call", {"name": "export_rows", "arguments": {"rows": 1}, "task": {"ttl": 60000}}
        )
        task = created["task"]
        assert task["status"] == "working" and task["ttl"] == 60000
        assert isinstance(task["pollInterval"], int) and "ttlMs" not in task
        got = legacy.rpc("tasks/get", {"taskId": task["taskId"]})
        assert got["taskId"] == task["taskId"] and got["status"] == "working"
        listed = legacy.rpc("tasks/list")
        assert [each["taskId"] for each in listed["tasks"]] == [task["taskId"]]
        run_enqueued()
        result = legacy.rpc("tasks/result", {"taskId": task["taskId"]})
        assert result["structuredContent"] == {"user": "alice", "lines": ["row 0"]}
        assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}
        with pytest.raises(MCPError) as refused:
            legacy.rpc("tasks/cancel", {"taskId": task["taskId"]})
        assert refused.value.code == -32602

    def test_cancel_answers_the_cancelled_task(self, legacy):
        created = legacy.rpc(
            "tools/call", {"name": "export_rows", "arguments": {"rows": 1}, "task": {}}
        )
        cancelled = legacy.rpc("tasks/cancel", {"taskId": created["task"]["taskId"]})
        assert cancelled["status"] == "cancelled"

    def test_required_without_a_task_and_plain_with_one_are_refused(self, legacy):
        for params in (
            {"name": "shout_task", "arguments": {"word": "a"}},
            {"name": "plain_tool", "arguments": {}, "task": {}},
        ):
            with pytest.raises(MCPError) as refused:
                legacy.rpc("tools/call", params)
            assert refused.value.code == -32601

    def test_without_a_task_param_an_optional_tool_runs_inline(self, legacy):
        result = legacy.call_tool("export_rows", {"rows": 1})
        assert result["structuredContent"]["lines"] == ["row 0"]

    def test_older_versions_have_no_tasks(self, alice):
        old = client_for(alice, {}, version="2025-06-18")
        with pytest.raises(MCPError) as refused:
            old.rpc("tasks/get", {"taskId": "x"})
        assert refused.value.code == -32601
        with pytest.raises(MCPError) as refused:
            old.call_tool("shout_task", {"word": "a"})
        assert refused.value.code == -32601
        assert "tasks" not in old.initialize()["capabilities"]


# --- the extension's own schema ------------------------------------------------------------

#: io.modelcontextprotocol/tasks's schema.json, vendored (tests/mcp-ext-tasks/README.md).
EXT_TASKS_SCHEMA = json.loads(EXTENSION_SCHEMA.read_text())


def ext_tasks_validator(definition):
    root = {
        "$schema": EXT_TASKS_SCHEMA["$schema"],
        "$defs": EXT_TASKS_SCHEMA["$defs"],
        "$ref": f"#/$defs/{definition}",
    }
    return jsonschema.validators.validator_for(root)(root)


def valid(definition, value):
    ext_tasks_validator(definition).validate(value)
    return value


@pytest.mark.usefixtures("recorded")
class TestTheExtensionsSchema:
    """What the endpoint sends for tasks at 2026-07-28, against the extension's schema."""

    def test_the_advertised_capability(self, agent):
        extensions = agent.discover()["capabilities"]["extensions"]
        valid("TasksExtensionCapability", extensions["io.modelcontextprotocol/tasks"])

    def test_a_task_from_working_to_completed(self, agent):
        handle = valid("CreateTaskResult", agent.call_tool("export_rows", {"rows": 1}))
        working = valid("GetTaskResult", agent.rpc("tasks/get", {"taskId": handle["taskId"]}))
        valid("WorkingTask", working)
        run_enqueued()
        done = valid("GetTaskResult", agent.rpc("tasks/get", {"taskId": handle["taskId"]}))
        valid("CompletedTask", done)
        cancelled = agent.rpc("tasks/cancel", {"taskId": handle["taskId"]})
        valid("CancelTaskResult", cancelled)  # idempotent: the same ack for an ended task

    def test_a_task_waiting_for_input_then_updated(self, agent):
        task_id = agent.call_tool("asking_task")["taskId"]
        run_enqueued()
        waiting = valid("GetTaskResult", agent.rpc("tasks/get", {"taskId": task_id}))
        valid("InputRequiredTask", waiting)
        answer = {"name": {"action": "accept", "content": {"name": "Alice"}}}
        ack = agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": answer})
        valid("UpdateTaskResult", ack)

    def test_a_failed_task(self, alice):
        agent = client_for(alice, {"extensions": {"io.modelcontextprotocol/tasks": {}}})
        task_id = agent.call_tool("asking_task")["taskId"]  # no elicitation declared: -32021
        run_enqueued()
        failed = valid("GetTaskResult", agent.rpc("tasks/get", {"taskId": task_id}))
        assert valid("FailedTask", failed)["error"]["code"] == -32021

    def test_a_cancelled_task(self, agent):
        task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
        valid("CancelTaskResult", agent.rpc("tasks/cancel", {"taskId": task_id}))
        cancelled = valid("GetTaskResult", agent.rpc("tasks/get", {"taskId": task_id}))
        valid("CancelledTask", cancelled)


# --- the store: a task's row, who finds it, when it is reaped ------------------------------


@pytest.mark.usefixtures("recorded")
def test_a_huge_ttl_is_capped_not_a_fault(alice):
    # A 2025-11-25 client's task.ttl is any JSON integer: past a float's range, the server
    # must still answer with its own TTL, never fail (-32603, HTTP 500).
    legacy = client_for(alice, {"tasks": {}}, version="2025-11-25")
    params = {"name": "export_rows", "arguments": {"rows": 1}, "task": {"ttl": 10**400}}
    created = legacy.rpc("tools/call", params)
    assert created["task"]["ttl"] == 24 * 3600 * 1000


@pytest.mark.usefixtures("recorded")
def test_a_short_client_ttl_is_raised_to_task_min_ttl(alice, settings):
    settings.MCP_TOOLS = {**RECORDED["MCP_TOOLS"], "TASK_MIN_TTL": 90}
    legacy = client_for(alice, {"tasks": {}}, version="2025-11-25")
    params = {"name": "export_rows", "arguments": {"rows": 1}, "task": {"ttl": 1000}}
    assert legacy.rpc("tools/call", params)["task"]["ttl"] == 90_000
    params["task"] = {"ttl": 120_000}  # above the floor: the client's own
    assert legacy.rpc("tools/call", params)["task"]["ttl"] == 120_000


@pytest.mark.usefixtures("recorded")
def test_a_working_task_counts_toward_the_limit_past_its_ttl(alice, settings):
    """A short TTL must not make room: 40 of 40 tasks with ttl 1000 were accepted against a
    limit of 20, their views all still running."""
    settings.MCP_TOOLS = {**RECORDED["MCP_TOOLS"], "MAX_TASKS_PER_CALLER": 2}
    legacy = client_for(alice, {"tasks": {}}, version="2025-11-25")
    params = {"name": "export_rows", "arguments": {"rows": 1}, "task": {"ttl": 1000}}
    legacy.rpc("tools/call", params)
    legacy.rpc("tools/call", params)
    ToolTask.objects.update(expires_at=timezone.now())  # their TTL ran out; still working
    with pytest.raises(MCPError) as refused:
        legacy.rpc("tools/call", params)
    assert refused.value.code == -32602 and "MAX_TASKS_PER_CALLER" in refused.value.message
    ToolTask.objects.update(status=ToolTask.INPUT_REQUIRED)  # past its TTL: holds nothing
    assert legacy.rpc("tools/call", params)["task"]["status"] == "working"


@pytest.mark.usefixtures("recorded")
def test_an_answer_that_does_not_fit_its_request_is_no_answer(agent):
    # A sampling result for an elicitation: the task must keep waiting for that key, or
    # its next run asks the same key again after a response for it was delivered (the
    # extension forbids reusing a key).
    task_id = agent.call_tool("asking_task")["taskId"]
    run_enqueued()
    sampling = {"role": "assistant", "model": "m", "content": {"type": "text", "text": "x"}}
    agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": {"name": sampling}})
    waiting = agent.rpc("tasks/get", {"taskId": task_id})
    assert waiting["status"] == "input_required" and list(waiting["inputRequests"]) == ["name"]
    assert RecordingExecutor.enqueued == []


@pytest.mark.usefixtures("recorded")
def test_an_operator_calls_a_task_only_tool_inline(alice):
    # mcp_call (and the admin's Try it) is an operator waiting for the answer: a tool that
    # runs only as a task for MCP clients runs inline for them, as an optional one does.
    import io
    import json

    from django.core.management import call_command

    out = io.StringIO()
    call_command(
        "mcp_call", "shout_task", "--user", "alice", "--args", '{"word": "hi"}', stdout=out
    )
    assert json.loads(out.getvalue())["structuredContent"] == {"shout": "HI"}
    assert not ToolTask.objects.exists()


@pytest.mark.usefixtures("recorded")
def test_no_credential_header_is_written_to_the_tasks_row(alice):
    # A project's own authentication reads other headers than Authorization: an API key,
    # a vendor's token, a signature. The row is a database row, kept a day: none of them.
    from mcp_tools.test import MCPClient
    from tests.helpers import MODERN

    sent = {
        "X-Api-Key": "key-secret",
        "X-Auth-Token": "token-secret",
        "X-Amz-Security-Token": "amz-secret",
        "X-CSRFToken": "csrf-secret",
        "X-Hub-Signature-256": "sha256=signature-secret",
        "X-Tenant": "acme",
    }
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}", **sent},
        protocol_version=MODERN,
        client_capabilities=EXTENSION,
    )
    task_id = client.call_tool("export_rows", {"rows": 1})["taskId"]
    stored = ToolTask.objects.get(pk=task_id).environ
    assert "secret" not in str(stored), stored
    assert stored["HTTP_X_TENANT"] == "acme"  # a header the project's middleware may need


@pytest.mark.usefixtures("recorded")
def test_mcp_prune_reaps_and_deletes_tasks_as_documented(agent):
    # docs/tasks.md: "manage.py mcp_prune fails such tasks too, and deletes tasks past their
    # TTL". A task nobody polls again is otherwise kept for ever.
    import io
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    expired = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    lapsed = agent.call_tool("export_rows", {"rows": 2})["taskId"]
    past = timezone.now() - timedelta(seconds=1)
    ToolTask.objects.filter(pk=expired).update(expires_at=past)
    ToolTask.objects.filter(pk=lapsed).update(leased_until=past, worker="host:1:1")
    out = io.StringIO()
    call_command("mcp_prune", "--noinput", stdout=out)
    assert not ToolTask.objects.filter(pk=expired).exists()
    assert ToolTask.objects.get(pk=lapsed).status == "failed"
    assert "1 task past its TTL" in out.getvalue() and "1 task whose worker" in out.getvalue()


@pytest.mark.usefixtures("recorded")
def test_arguments_no_task_row_can_hold_are_refused_not_a_fault(agent):
    # PostgreSQL's jsonb refuses U+0000: the row would fail to be written, a 500. The
    # arguments' schema refuses it in a string argument; the call's _meta is the client's.
    with pytest.raises(MCPError) as refused:
        agent.call_tool("shout_task", {"word": "a"}, meta={"note": "a\x00b"})
    assert refused.value.code == -32602 and "U+0000" in refused.value.message
    assert not ToolTask.objects.exists()
    escaped = agent.call_tool("shout_task", {"word": "a\\u0000b"})  # the text, not U+0000
    assert escaped["resultType"] == "task"


@pytest.mark.usefixtures("recorded")
def test_a_task_is_polled_at_the_endpoint_that_made_it(agent, alice):
    task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    other = client_for(alice)
    other.mcp_path = "/mcp-throttled"  # the same tools, another endpoint (another policy)
    for method in ("tasks/get", "tasks/cancel"):
        with pytest.raises(MCPError) as refused:
            other.rpc(method, {"taskId": task_id})
        assert refused.value.code == -32602
    assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "working"


@pytest.mark.usefixtures("recorded")
@pytest.mark.parametrize("task_id", ["a\x00b", "../etc/passwd", "ABCDEF0123456789ABCDEF0123456789"])
def test_an_id_unlike_ours_is_unknown_without_a_query(task_id):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from mcp_tools.auth.caller import Caller, unauthenticated_user
    from mcp_tools.protocol.jsonrpc import JSONRPCError
    from mcp_tools.tasks import store as tasks

    with CaptureQueriesContext(connection) as queries, pytest.raises(JSONRPCError) as refused:
        tasks.find(Caller.acting_as(unauthenticated_user()), task_id)
    assert refused.value.code == -32602
    assert len(queries) == 0  # PostgreSQL would refuse U+0000 in the lookup itself
