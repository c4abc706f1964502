"""Review of the tasks core (docs/tasks.md): what a task must do that it did not.

Each test here failed on the core as it landed; the commit after each test fixes it.
"""

from __future__ import annotations

import pytest

from mcp_tools.inputs.asks import CONFIRM_KEY
from mcp_tools.models import ToolTask
from mcp_tools.test import MCPError
from tests.endpoint import test_tracing
from tests.tasks.test_store import (  # noqa: F401  (fixtures)
    client_for,
    fresh_executor,
    recorded,
    run_enqueued,
    run_in_a_thread,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("recorded")]

#: The OpenTelemetry SDK's recorded spans (tests/endpoint/test_tracing.py).
recorder, spans = test_tracing.recorder, test_tracing.spans

ACCEPT = {"action": "accept", "content": {}}


@pytest.fixture
def confirmed():
    """The view of ``confirmed_task``, its runs counted from 0. Imported here, not at the
    top: collecting this module must not register tests/tasks_app's tools for every test
    (tests/test_checks.py checks the default registry against tests/urls.py)."""
    from tests.tasks_app.views import ConfirmedView

    ConfirmedView.runs = 0
    return ConfirmedView


@pytest.fixture
def agent(alice):
    """alice's 2026-07-28 client, declaring the tasks extension and elicitation."""
    return client_for(alice)


def test_a_confirmed_tool_as_a_task_asks_the_user_once(agent, confirmed):
    # The confirmation is asked before the task is made (the spec's SHOULD: MRTR first).
    asked = agent.call_tool("confirmed_task")
    assert asked["resultType"] == "input_required" and list(asked["inputRequests"]) == [CONFIRM_KEY]
    handle = agent.call_tool(
        "confirmed_task",
        input_responses={CONFIRM_KEY: ACCEPT},
        request_state=asked["requestState"],
    )
    assert handle["resultType"] == "task"
    run_enqueued()
    # The user said yes once: the worker runs the view on that yes, never asks again.
    done = agent.rpc("tasks/get", {"taskId": handle["taskId"]})
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"] == {"deleted": True}
    assert confirmed.runs == 1


def test_a_replayed_acceptance_does_not_run_a_confirmed_task_twice(agent, confirmed):
    asked = agent.call_tool("confirmed_task")
    retry = {"input_responses": {CONFIRM_KEY: ACCEPT}, "request_state": asked["requestState"]}
    first = agent.call_tool("confirmed_task", **retry)["taskId"]
    run_enqueued()
    replayed = agent.call_tool("confirmed_task", **retry)  # the same yes, sent again
    assert replayed["resultType"] == "input_required" and "taskId" not in replayed
    assert list(replayed["inputRequests"]) == [CONFIRM_KEY]
    assert agent.rpc("tasks/get", {"taskId": first})["status"] == "completed"
    assert confirmed.runs == 1


def test_a_task_may_wait_for_its_input_longer_than_a_request_states_lifetime(agent, monkeypatch):
    # A task keeps its request state in its row, never sent: a user who answers after
    # INPUT_STATE_MAX_AGE (900 s), well within the task's TTL, still gets the task done.
    import time

    task_id = agent.call_tool("asking_task")["taskId"]
    run_enqueued()
    assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "input_required"
    later = time.time() + 3600
    monkeypatch.setattr(time, "time", lambda: later)
    answer = {"name": {"action": "accept", "content": {"name": "Alice"}}}
    agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": answer})
    run_enqueued()
    done = agent.rpc("tasks/get", {"taskId": task_id})
    assert done["status"] == "completed", done.get("error")
    assert done["result"]["structuredContent"] == {"greeting": "Hello, Alice!"}


@pytest.mark.django_db(transaction=True)
def test_a_lease_outlives_one_failed_renewal(agent, monkeypatch):
    # One database hiccup on the lease's thread must not stop its renewals: the task would
    # be failed by the next tasks/get while its view still runs.
    import time
    from datetime import timedelta

    from django.db import OperationalError
    from django.utils import timezone

    from mcp_tools.tasks import runs as task_runs

    task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    start = timezone.now()
    ToolTask.objects.filter(pk=task_id).update(worker="w", leased_until=start)
    real = ToolTask.objects.filter
    failures = []

    def flaky(*args, **kwargs):
        if not failures:
            failures.append(1)
            raise OperationalError("server closed the connection unexpectedly")
        return real(*args, **kwargs)

    monkeypatch.setattr(ToolTask.objects, "filter", flaky)
    with task_runs.Lease(task_id, "w", timedelta(seconds=0.3)):
        time.sleep(0.5)  # renewals every 0.1 s: the first fails, the next must come
    monkeypatch.undo()
    assert failures
    assert ToolTask.objects.get(pk=task_id).leased_until > start


def test_the_worker_runs_the_view_in_the_language_and_prefix_of_the_call(alice, settings):
    # The /mcp request's LocaleMiddleware chose French, and its WSGI server the script
    # prefix; a worker (another process) has neither unless the task carries them.
    from django.urls import get_script_prefix, set_script_prefix
    from django.utils import translation

    from mcp_tools.test import MCPClient
    from tests.helpers import MODERN
    from tests.tasks.test_store import EXTENSION

    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.middleware.locale.LocaleMiddleware"]
    french = MCPClient(
        headers={"Authorization": f"Token {alice.token}", "Accept-Language": "fr"},
        mcp_path="/mcp",
        protocol_version=MODERN,
        client_capabilities=EXTENSION,
    )
    inline = MCPClient(
        headers={"Authorization": f"Token {alice.token}", "Accept-Language": "fr"},
        mcp_path="/mcp",
        protocol_version=MODERN,
    )
    prefix = get_script_prefix()
    set_script_prefix("/app/")  # as Django's WSGIHandler does for SCRIPT_NAME=/app
    try:
        expected = inline.call_tool("prefix_task")["structuredContent"]
        task_id = french.call_tool("prefix_task")["taskId"]
    finally:
        set_script_prefix(prefix)
        translation.deactivate()
    assert expected == {"language": "fr", "prefix": "/app/"}
    run_enqueued()  # a worker: no request of its own set a language or a prefix
    # ... and its own are back once the task ran (the next job may be another's).
    assert get_script_prefix() == prefix and translation.get_language() == settings.LANGUAGE_CODE
    try:
        done = french.rpc("tasks/get", {"taskId": task_id})
    finally:
        translation.deactivate()  # LocaleMiddleware activated French on this thread again
    assert done["result"]["structuredContent"] == expected


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("atomic_requests")
def test_progress_and_cancel_reach_a_view_in_its_atomic_block(agent):
    # Under ATOMIC_REQUESTS the view runs in a transaction: the task's row must be written
    # and read outside it, or its progress shows only once it ends, and a cancellation
    # waits for its lock (PostgreSQL) or finds the database locked (SQLite).
    import threading
    import time

    task_id = agent.call_tool("export_rows", {"rows": 1, "seconds": 6})["taskId"]
    worker = threading.Thread(target=run_in_a_thread)  # its connections closed after
    started = time.monotonic()
    worker.start()
    try:
        deadline = time.monotonic() + 3
        message = ""
        while not message and time.monotonic() < deadline:
            time.sleep(0.05)
            message = agent.rpc("tasks/get", {"taskId": task_id}).get("statusMessage", "")
        assert message.endswith("done")  # the view's progress, while it runs
        assert agent.rpc("tasks/cancel", {"taskId": task_id})["resultType"] == "complete"
    finally:
        worker.join(15)
    assert time.monotonic() - started < 5  # stopped, before its 6 s
    assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "cancelled"


def test_a_task_that_waited_in_the_queue_runs_on_the_state_its_call_brought(
    agent, confirmed, monkeypatch
):
    # The call's requestState was checked when the task was made; a worker that takes the
    # task after INPUT_STATE_MAX_AGE (a long queue) must not fail it as expired.
    import time

    asked = agent.call_tool("confirmed_task")
    task_id = agent.call_tool(
        "confirmed_task",
        input_responses={CONFIRM_KEY: ACCEPT},
        request_state=asked["requestState"],
    )["taskId"]
    later = time.time() + 3600
    monkeypatch.setattr(time, "time", lambda: later)
    run_enqueued()
    done = agent.rpc("tasks/get", {"taskId": task_id})
    assert done["status"] == "completed", done.get("error")
    assert confirmed.runs == 1


def test_a_huge_ttl_is_capped_not_a_fault(alice):
    # A 2025-11-25 client's task.ttl is any JSON integer: past a float's range, the server
    # must still answer with its own TTL, never fail (-32603, HTTP 500).
    legacy = client_for(alice, {"tasks": {}}, version="2025-11-25")
    params = {"name": "export_rows", "arguments": {"rows": 1}, "task": {"ttl": 10**400}}
    created = legacy.rpc("tools/call", params)
    assert created["task"]["ttl"] == 24 * 3600 * 1000


def test_an_answer_that_does_not_fit_its_request_is_no_answer(agent):
    # A sampling result for an elicitation: the task must keep waiting for that key, or
    # its next run asks the same key again after a response for it was delivered (the
    # extension forbids reusing a key).
    from tests.tasks.test_store import RecordingExecutor

    task_id = agent.call_tool("asking_task")["taskId"]
    run_enqueued()
    sampling = {"role": "assistant", "model": "m", "content": {"type": "text", "text": "x"}}
    agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": {"name": sampling}})
    waiting = agent.rpc("tasks/get", {"taskId": task_id})
    assert waiting["status"] == "input_required" and list(waiting["inputRequests"]) == ["name"]
    assert RecordingExecutor.enqueued == []


def test_what_a_tasks_view_activates_is_not_the_next_jobs(agent):
    # A worker runs job after job on one thread, for any user: a time zone (or any context
    # variable) the view or its middleware set must end with its task, as a streamed call's
    # does on its thread.
    from django.utils import timezone

    before = timezone.get_current_timezone_name()
    task_id = agent.call_tool("tokyo_task")["taskId"]
    try:
        run_enqueued()
        assert timezone.get_current_timezone_name() == before
    finally:
        timezone.deactivate()
    done = agent.rpc("tasks/get", {"taskId": task_id})
    assert done["result"]["structuredContent"] == {"zone": "Asia/Tokyo"}


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


def test_no_credential_header_is_written_to_the_tasks_row(alice):
    # A project's own authentication reads other headers than Authorization: an API key,
    # a vendor's token, a signature. The row is a database row, kept a day: none of them.
    from mcp_tools.test import MCPClient
    from tests.helpers import MODERN
    from tests.tasks.test_store import EXTENSION

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


def test_a_run_that_faults_ends_its_span_as_an_error(agent, spans, monkeypatch):
    # A fault of the server in the worker (here: answering the result) fails the task with
    # -32603; its span must end too, recording the error, or no trace shows the run.
    from opentelemetry.trace import StatusCode

    from mcp_tools.tasks import runs as task_runs

    task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    named = "tools/call export_rows"
    before = [span for span in spans.finished if span.name == named]

    def broken(call, result):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(task_runs.server, "complete", broken)
    run_enqueued()
    assert ToolTask.objects.get(pk=task_id).error["code"] == -32603
    ran = [span for span in spans.finished if span.name == named and span not in before]
    assert len(ran) == 1
    assert ran[0].status.status_code == StatusCode.ERROR
    assert ran[0].attributes["error.type"] == "RuntimeError"


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


def test_a_lease_stops_its_view_only_for_a_task_it_can_see_taken(agent):
    # The lease's thread has its own connection: a row it can't see (still in the
    # transaction that made it, as an executor that runs the job as it is enqueued leaves
    # it, or a test's) is no cancellation; a task cancelled, or given to another worker, is.
    from datetime import timedelta

    from mcp_tools.tasks import runs as task_runs

    unseen = task_runs.Lease("not-committed-yet", "w", timedelta(seconds=30))
    unseen._tick(0.0, 10.0)
    assert not unseen.lost.is_set()
    task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    ToolTask.objects.filter(pk=task_id).update(worker="w")
    held = task_runs.Lease(task_id, "w", timedelta(seconds=30))
    held._tick(0.0, 10.0)
    assert not held.lost.is_set()
    ToolTask.objects.filter(pk=task_id).update(worker="another")
    held._tick(0.0, 10.0)
    assert held.lost.is_set()


def test_arguments_no_task_row_can_hold_are_refused_not_a_fault(agent):
    # PostgreSQL's jsonb refuses U+0000: the row would fail to be written, a 500. The
    # arguments' schema refuses it in a string argument; the call's _meta is the client's.
    with pytest.raises(MCPError) as refused:
        agent.call_tool("shout_task", {"word": "a"}, meta={"note": "a\x00b"})
    assert refused.value.code == -32602 and "U+0000" in refused.value.message
    assert not ToolTask.objects.exists()
    escaped = agent.call_tool("shout_task", {"word": "a\\u0000b"})  # the text, not U+0000
    assert escaped["resultType"] == "task"


def test_a_result_the_database_refuses_fails_the_task(agent, monkeypatch):
    task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    from django.db import DataError
    from django.db.models import QuerySet

    update = QuerySet.update

    def refusing(self, **fields):
        if fields.get("status") == "completed":
            raise DataError("unsupported Unicode escape sequence")
        return update(self, **fields)

    monkeypatch.setattr(QuerySet, "update", refusing)
    run_enqueued()
    failed = ToolTask.objects.get(pk=task_id)
    assert failed.status == "failed" and failed.error["code"] == -32603
    assert failed.result is None and failed.leased_until is None


def test_a_task_is_polled_at_the_endpoint_that_made_it(agent, alice):
    task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    other = client_for(alice)
    other.mcp_path = "/mcp-throttled"  # the same tools, another endpoint (another policy)
    for method in ("tasks/get", "tasks/cancel"):
        with pytest.raises(MCPError) as refused:
            other.rpc(method, {"taskId": task_id})
        assert refused.value.code == -32602
    assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "working"


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
