"""A task's run in a worker (``mcp_tools.tasks.runs``, docs/tasks.md): its lease, the
call's confirmation, input and state as the worker finds them, the language, prefix and
thread state it runs under, its atomic block, and how it fails.

These tests came from a review of the tasks core: each failed on the core as it landed,
and the commit after it fixed it. Those of the store (the task's row, who finds it, when it
is reaped) are in tests/tasks/test_store.py.
"""

from __future__ import annotations

import pytest

from mcp_tools.inputs.asks import CONFIRM_KEY
from mcp_tools.models import ToolTask
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


def test_a_lease_whose_row_is_deleted_stops_its_view(agent):
    """A task past its TTL is deleted (a poll, mcp_prune): the view still running for it
    stops at its next report, as when it is cancelled, not minutes later."""
    from datetime import timedelta

    from mcp_tools.tasks import runs as task_runs

    task_id = agent.call_tool("export_rows", {"rows": 1})["taskId"]
    ToolTask.objects.filter(pk=task_id).update(worker="w")
    held = task_runs.Lease(task_id, "w", timedelta(seconds=30))
    held._tick(0.0, 10.0)
    assert not held.lost.is_set()
    ToolTask.objects.filter(pk=task_id).delete()
    held._tick(0.0, 10.0)
    assert held.lost.is_set()


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
