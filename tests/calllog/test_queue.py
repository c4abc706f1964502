"""The call log's queue: which calls it takes, and how its rows reach the database when the
database refuses some, has lost a row's user, or can't be reached (docs/calllog.md)."""

import atexit
import json
import logging
import signal
import sys
import threading

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone

from mcp_tools.calllog import writer as calllog
from mcp_tools.models import ToolCall

SETTINGS = {"CACHE": "mcp", "CALL_LOG": "all", "CALL_LOG_FLUSH_INTERVAL": 0.01}


@pytest.fixture
def log_all(settings):
    settings.MCP_TOOLS = SETTINGS


@pytest.fixture
def queue(monkeypatch, log_all):
    """An open queue of the process's own, as a served project has (the suite's process is
    in Django's test environment, where none is used), closed at the end."""
    fresh = calllog.Queue()
    monkeypatch.setattr(calllog, "queue", fresh)
    yield fresh
    fresh.close()
    atexit.unregister(fresh.close)


@pytest.fixture
def served(monkeypatch, queue):
    """The queue as a served project uses it: outside Django's test environment."""
    monkeypatch.setattr(calllog, "under_tests", lambda: False, raising=False)
    return queue


@pytest.fixture
def held(served, monkeypatch):
    """The served queue with a writer thread that never writes: rows stay queued until the
    test flushes them itself."""
    stop = threading.Event()

    def gathered(self):
        stop.wait()
        return False

    monkeypatch.setattr(calllog.Queue, "_gathered", gathered)
    yield served
    stop.set()


def logged():
    return list(ToolCall.objects.order_by("started_at").values_list("tool_name", "user__username"))


# -- Which calls are queued ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_served_call_is_queued_and_written_by_the_writer(held, mcp):
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert len(held) == 1 and logged() == []  # queued: its request wrote nothing
    calllog.flush()
    assert logged() == [("echo", "alice")]


@pytest.mark.django_db(transaction=True)
def test_a_queued_row_keeps_the_task_its_call_ran_as(held, rf):
    # A task worker's call, as the signal reports it: its row goes through the queue's
    # executemany with the task's id (the admin links the two).
    request = rf.post("/mcp")
    calllog.hold(request)
    calllog.record(
        None,
        tool="echo",
        user=None,
        started_at=timezone.now(),
        duration_ms=1.0,
        status=200,
        is_error=False,
        error_ref=None,
        arguments={},
        protocol_version="2026-07-28",
        client_name="worker",
        request=request,
        task_id="ab" * 16,
    )
    assert len(held) == 1
    calllog.flush()
    assert list(ToolCall.objects.values_list("tool_name", "task_id")) == [("echo", "ab" * 16)]


@pytest.mark.django_db
def test_a_call_inside_a_transaction_is_written_by_its_request(held, mcp):
    # A project's TestCase: the test's transaction holds alice, whom a writer on a connection
    # of its own could not see. The row goes in that transaction, at once.
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert len(held) == 0
    assert logged() == [("echo", "alice")]


@pytest.mark.django_db(transaction=True)
def test_in_django_test_environment_rows_are_written_by_their_request(queue, mcp):
    # A TransactionTestCase (or pytest-django's live server): the test reads the row at once,
    # and the table is emptied before the next test, which a late writer would write into.
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert len(queue) == 0
    assert logged() == [("echo", "alice")]
    assert calllog.under_tests()  # pytest-django set Django's test environment up


@pytest.mark.django_db(transaction=True)
def test_no_queue_when_its_size_is_zero(held, mcp, settings):
    settings.MCP_TOOLS = {**SETTINGS, "CALL_LOG_QUEUE_SIZE": 0}
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert len(held) == 0
    assert logged() == [("echo", "alice")]


@pytest.mark.django_db(transaction=True)
def test_a_closed_queue_leaves_the_rows_to_their_requests(served, mcp):
    served.close()
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert logged() == [("echo", "alice")]


@pytest.mark.django_db(transaction=True)
def test_a_full_queue_drops_the_call_and_says_so_once(held, mcp, settings, caplog):
    settings.MCP_TOOLS = {**SETTINGS, "CALL_LOG_QUEUE_SIZE": 1}
    caplog.set_level(logging.WARNING, "mcp_tools")
    for _ in range(3):
        assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert (len(held), held.dropped) == (1, 2)
    assert caplog.text.count("The call log's queue is full") == 1
    calllog.flush()
    assert logged() == [("echo", "alice")]
    assert "The call log's queue was full: 2 calls were not logged" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_the_writer_writes_the_queue_on_its_own(served, mcp):
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    served.close()  # returns once the writer has written what is queued
    assert logged() == [("echo", "alice")]


# -- What the database refuses ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_row_whose_user_was_deleted_is_written_without_its_user(held, mcp, alice):
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert mcp.call_tool("echo", {"word": "y"})["isError"] is False
    alice.delete()  # before the writer's batch: its rows name a user no longer there
    calllog.flush()
    assert logged() == [("echo", None), ("echo", None)]


@pytest.mark.django_db
def test_one_refused_row_loses_no_other_inside_a_transaction(mcp, log_all):
    # The rows of a request are written in the test's transaction: the row the database
    # refuses (a trigger, as a full disk or a constraint would) must not take the others,
    # nor break the transaction the test goes on in.
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TRIGGER refuse_boom BEFORE INSERT ON mcp_tools_toolcall "
            "WHEN NEW.tool_name = 'boom' BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    calls = [
        mcp.message("tools/call", {"name": name, "arguments": arguments})
        for name, arguments in [("echo", {"word": "a"}), ("boom", {}), ("echo", {"word": "b"})]
    ]
    response = mcp.send(calls, headers={"MCP-Protocol-Version": "2025-03-26"})  # a batch
    assert len(json.loads(response.content)) == 3
    assert logged() == [("echo", "alice"), ("echo", "alice")]


def test_a_database_that_cant_be_reached_is_asked_once_per_batch(held, monkeypatch, caplog):
    # A locked database (SQLite waits its busy timeout on each attempt) or a lost connection:
    # asking again row by row would stretch a process's exit to one wait per row.
    attempts = []

    def locked(rows):
        attempts.append(len(rows))
        raise OperationalError("database is locked")

    monkeypatch.setattr(calllog, "insert", locked)
    caplog.set_level(logging.WARNING, "mcp_tools")
    for row in rows(5):
        assert held.put(row) is not False
    calllog.flush()
    assert attempts == [5]
    (record,) = [r for r in caplog.records if "could not be written" in r.getMessage()]
    assert "(5 of 5 calls; the last: t4)" in record.getMessage()
    assert record.exc_info[0] is OperationalError  # the traceback is in the log


@pytest.mark.django_db(transaction=True)
def test_the_writer_tries_a_batch_once_more_on_a_new_connection(served, monkeypatch):
    # The server dropped the writer's idle connection (a restart, a failover, a pooler):
    # the batch is written on a new one, not lost.
    real, attempts, written = calllog.insert, [], threading.Event()

    def dropped_once(rows):
        attempts.append(len(rows))
        if len(attempts) == 1:
            raise InterfaceError("connection already closed")
        real(rows)
        written.set()

    monkeypatch.setattr(calllog, "insert", dropped_once)
    served.put(rows(1)[0])
    assert written.wait(30)
    assert attempts == [1, 1]
    assert ToolCall.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_lost_rows_warning_carries_the_traceback(held, mcp, monkeypatch, caplog):
    def refused(rows):
        raise ValueError("refused")

    monkeypatch.setattr(calllog, "insert", refused)
    caplog.set_level(logging.WARNING, "mcp_tools")
    for word in "abc":
        assert mcp.call_tool("echo", {"word": word})["isError"] is False
    calllog.flush()
    (record,) = [r for r in caplog.records if "could not be written" in r.getMessage()]
    assert "(3 of 3 calls; the last: echo)" in record.getMessage()
    assert record.exc_info[0] is ValueError
    assert "ValueError: refused" in caplog.text


def rows(count):
    from django.utils import timezone

    return [
        {"tool_name": f"t{i}", "started_at": timezone.now(), "duration_ms": 1.0}
        for i in range(count)
    ]


# -- Stopping --------------------------------------------------------------------------------


def test_an_exit_waits_a_bounded_time_for_a_stuck_writer(served, monkeypatch, caplog):
    # A database that never answers: the process's exit gives up on the writer, says what
    # is lost, and goes on (the writer is a daemon thread: it does not hold the exit).
    release = threading.Event()
    writing = threading.Event()

    def stuck(rows):
        writing.set()
        release.wait()

    monkeypatch.setattr(calllog, "insert", stuck)
    caplog.set_level(logging.WARNING, "mcp_tools")
    for row in rows(3):
        served.put(row)
    assert writing.wait(30)
    served.put(rows(1)[0])
    served.close(timeout=0.05)
    writer = served._thread
    try:
        assert writer.is_alive() and writer.daemon
        assert "the batch it was writing and 1 queued calls are not logged" in caplog.text
    finally:
        release.set()
        writer.join(30)


def uvicorn_server():
    uvicorn = pytest.importorskip("uvicorn")
    return uvicorn.Server(uvicorn.Config(app=None))


@pytest.fixture
def sigusr1():
    """SIGUSR1 as the signal under test, its handler restored afterwards."""
    previous = signal.getsignal(signal.SIGUSR1)
    yield signal.SIGUSR1
    signal.signal(signal.SIGUSR1, previous)


@pytest.mark.parametrize("kind", ["a server's own", "default", "ignored"])
def test_outside_uvicorn_a_signal_handler_is_left_alone(served, sigusr1, monkeypatch, kind):
    # gunicorn's workers exit through sys.exit, which runs the queue's atexit hook, and set
    # SA_RESTART on their handlers (siginterrupt): replacing one would reset it. A command
    # keeps the default. Nothing is installed in front of them.
    monkeypatch.delitem(sys.modules, "uvicorn.server", raising=False)

    def own(number, frame):
        pass

    handler = {"a server's own": own, "default": signal.SIG_DFL, "ignored": signal.SIG_IGN}[kind]
    signal.signal(sigusr1, handler)
    served.stop_on(sigusr1)
    assert signal.getsignal(sigusr1) is handler


@pytest.mark.parametrize("kind", ["a server's own", "ignored"])
def test_in_uvicorn_only_its_own_handler_or_the_default_is_replaced(served, sigusr1, kind):
    uvicorn_server()  # uvicorn imported, as in its process

    def own(number, frame):
        pass

    handler = {"a server's own": own, "ignored": signal.SIG_IGN}[kind]
    signal.signal(sigusr1, handler)
    served.stop_on(sigusr1)
    assert signal.getsignal(sigusr1) is handler
    signal.signal(sigusr1, signal.SIG_DFL)
    served.stop_on(sigusr1)
    assert signal.getsignal(sigusr1) is not signal.SIG_DFL  # what uvicorn restores, then raises


@pytest.mark.django_db(transaction=True)
def test_uvicorns_handler_gets_one_in_front_that_writes_the_queue(served, sigusr1, mcp, settings):
    # uvicorn ends its process by SIGTERM again once it has shut down: no atexit runs there.
    settings.MCP_TOOLS = {**SETTINGS, "CALL_LOG_FLUSH_INTERVAL": 600}  # the batch waits
    server = uvicorn_server()
    signal.signal(sigusr1, server.handle_exit)
    served.stop_on(sigusr1)
    handler = signal.getsignal(sigusr1)
    assert handler != server.handle_exit
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert logged() == []  # queued, its batch gathering
    handler(sigusr1, None)
    assert server.should_exit is True  # uvicorn's own handler ran
    assert served.closed
    assert logged() == [("echo", "alice")]
