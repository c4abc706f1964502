"""The call log (CALL_LOG, CALL_LOG_ARGUMENTS): what is kept, when, and that it never fails a
call (docs/admin.md)."""

import logging
import os
import signal
import threading
import time

import pytest
from django.db import OperationalError

from mcp_tools.models import ToolCall
from mcp_tools.signals import tool_called
from mcp_tools.test import MCPClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def log_mode(settings):
    def set_mode(mode, arguments=False):
        settings.MCP_TOOLS = {"CACHE": "mcp", "CALL_LOG": mode, "CALL_LOG_ARGUMENTS": arguments}

    return set_mode


@pytest.mark.parametrize(
    ("mode", "logged"),
    [("off", set()), ("errors", {"boom"}), ("all", {"boom", "echo"})],
)
def test_what_each_mode_keeps(mcp, log_mode, mode, logged):
    log_mode(mode)
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert mcp.call_tool("boom")["isError"] is True
    assert set(ToolCall.objects.values_list("tool_name", flat=True)) == logged


def test_a_row_says_who_called_what_and_how_it_ended(alice, log_mode):
    log_mode("all")
    mcp = MCPClient(headers={"Authorization": f"Token {alice.token}", "User-Agent": "agent/2"})
    masked = mcp.call_tool("boom")
    mcp.call_tool("echo", {"word": "x"})
    failed, ok = ToolCall.objects.order_by("started_at")
    assert (failed.tool_name, failed.user, failed.is_error) == ("boom", alice, True)
    assert failed.http_status is None  # the view raised
    assert failed.error_ref == masked["_meta"]["django-mcp-tools/errorRef"]
    assert (ok.http_status, ok.is_error, ok.error_ref) == (200, False, "")
    assert ok.argument_names == ["word"] and ok.arguments is None  # names only, by default
    assert (ok.protocol_version, ok.client_name) == ("2025-11-25", "agent/2")
    assert ok.duration_ms >= 0


def test_argument_values_are_kept_only_when_asked(mcp, log_mode):
    log_mode("all", arguments=True)
    mcp.call_tool("echo", {"word": "secret-ish"})
    assert ToolCall.objects.get().arguments == {"word": "secret-ish"}


def test_a_refused_call_is_logged_as_an_error(mcp):
    mcp.call_tool("todo_create", {"title": None})
    row = ToolCall.objects.get()
    assert (row.tool_name, row.is_error, row.http_status) == ("todo_create", True, None)


def test_an_anonymous_caller_is_logged_without_a_user(log_mode):
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory
    from django.utils import timezone

    from mcp_tools import calllog

    log_mode("all")
    calllog.record(
        None,
        tool="echo",
        user=AnonymousUser(),
        started_at=timezone.now(),
        duration_ms=1.0,
        status=200,
        is_error=False,
        error_ref=None,
        arguments={},
        protocol_version="2025-11-25",
        client_name="",
        request=RequestFactory().post("/mcp"),  # not the endpoint's: written at once
    )
    assert ToolCall.objects.get().user is None


def test_without_an_open_queue_the_log_is_written_after_the_response(mcp, log_mode, monkeypatch):
    log_mode("all")  # the suite's queue is closed: requests write (tests/conftest.py)
    written = []
    monkeypatch.setattr("mcp_tools.calllog.write", lambda rows: written.extend(rows))
    response = mcp.send(mcp.message("tools/call", {"name": "echo", "arguments": {"word": "x"}}))
    # The test client has closed the response: that is when the rows went out, in one batch.
    assert [row["tool_name"] for row in written] == ["echo"]
    assert response.status_code == 200


def test_the_log_of_a_streamed_call_is_written_when_its_stream_ends(mcp, log_mode):
    log_mode("all")
    result = mcp.call_tool("test_tool_with_logging")  # stream=True: an SSE answer
    assert result["isError"] is False
    assert ToolCall.objects.get().tool_name == "test_tool_with_logging"


def test_a_failing_write_never_fails_the_call(mcp, log_mode, monkeypatch, caplog):
    log_mode("all")

    def unavailable(*args, **kwargs):
        raise OperationalError("no such table: mcp_tools_toolcall")

    monkeypatch.setattr("mcp_tools.calllog.insert", unavailable)
    caplog.set_level(logging.WARNING, "mcp_tools")
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert "The call log could not be written (1 call)" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_a_row_the_database_refuses_loses_no_other_row_of_its_batch(alice, caplog):
    from django.utils import timezone

    from mcp_tools import calllog

    def row(tool, user_id):
        return {
            "tool_name": tool,
            "user_id": user_id,
            "started_at": timezone.now(),
            "duration_ms": 1.5,
            "http_status": 200,
            "is_error": False,
            "error_ref": "",
            "argument_names": ["word"],
            "arguments": '{"word": "x"}',
            "protocol_version": "2025-11-25",
            "client_name": "agent",
        }

    # A user deleted while their row was queued: its key is refused at the commit.
    calllog.write([row("first", alice.pk), row("orphan", alice.pk + 1000), row("last", None)])
    kept = ToolCall.objects.order_by("id")
    assert [(call.tool_name, call.user) for call in kept] == [("first", alice), ("last", None)]
    assert kept[0].arguments == {"word": "x"}
    assert "The call log could not be written (1 of 3 calls; the last: orphan)" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_the_log_table_missing_never_fails_the_call(mcp, log_mode, caplog):
    from django.db import connection

    log_mode("all")
    with connection.schema_editor() as editor:
        editor.delete_model(ToolCall)
    try:
        assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    finally:
        with connection.schema_editor() as editor:
            editor.create_model(ToolCall)
    assert "The call log could not be written" in caplog.text


def test_the_tool_called_signal_carries_the_call(mcp, alice):
    seen = []

    def receiver(sender, **kwargs):
        seen.append(kwargs)

    tool_called.connect(receiver)
    try:
        mcp.call_tool("echo", {"word": "x"})
    finally:
        tool_called.disconnect(receiver)
    (call,) = seen
    assert (call["tool"], call["user"], call["status"], call["is_error"]) == (
        "echo",
        alice,
        200,
        False,
    )
    assert call["error_ref"] is None and call["arguments"] == {"word": "x"}
    assert call["request"].path == "/mcp"


def test_every_stored_value_is_bounded_for_a_refused_call(alice):
    # In the default "errors" mode: a refused call with 6,000 long argument names (about
    # 1 MB) and a client name past its column keeps bounded values.
    arguments = {f"{'n' * 150}{i:06}": i for i in range(6_000)}
    hostile = MCPClient(headers={"Authorization": f"Token {alice.token}", "User-Agent": "u" * 5000})
    assert hostile.call_tool("echo", arguments)["isError"] is True
    row = ToolCall.objects.get()
    assert len(row.argument_names) == 101
    assert all(len(name) <= 64 for name in row.argument_names[:100])
    assert row.argument_names[-1] == "… and 5900 more"
    assert len(row.client_name) == 200


def test_an_answer_refused_as_too_large_is_logged_as_an_error(mcp, settings):
    settings.MCP_TOOLS = {"CACHE": "mcp", "MAX_RESPONSE_BYTES": 10_000}
    calls = []
    tool_called.connect(lambda **kwargs: calls.append(kwargs), weak=False, dispatch_uid="t")
    try:
        result = mcp.call_tool("r_sized", {"size": 6000})
    finally:
        tool_called.disconnect(dispatch_uid="t")
    assert result["isError"] is True
    row = ToolCall.objects.get()
    assert (row.tool_name, row.is_error, row.http_status) == ("r_sized", True, 200)
    assert [call["is_error"] for call in calls] == [True]


# -- the queue (CALL_LOG_QUEUE_SIZE, CALL_LOG_FLUSH_INTERVAL) -------------------------------


@pytest.fixture
def queued(settings, monkeypatch):
    """Every call logged through a fresh queue of 3 rows whose writer lets a batch gather
    for far longer than a test runs: rows are written when a batch is full, or flushed."""
    from mcp_tools import calllog

    settings.MCP_TOOLS = {
        "CACHE": "mcp",
        "CALL_LOG": "all",
        "CALL_LOG_QUEUE_SIZE": 3,
        "CALL_LOG_FLUSH_INTERVAL": 600,
    }
    fresh = calllog.Queue()
    monkeypatch.setattr(calllog, "queue", fresh)
    yield fresh
    calllog.flush()  # on this thread: inside the test's transaction
    fresh.close()


def writes_seen(monkeypatch):
    """Record each write of the call log: the thread that made it and its rows."""
    from mcp_tools import calllog

    seen = []
    write = calllog.write

    def recorded(rows):
        if rows:  # a request's closer writes what it did not queue: here nothing
            seen.append((threading.current_thread().name, len(rows)))
        write(rows)

    monkeypatch.setattr(calllog, "write", recorded)
    return seen


def wait_for(condition):
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the call log's writer did not write"
        time.sleep(0.01)


def test_a_queued_call_makes_no_query_of_the_log_in_its_request(mcp, queued):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert not [query for query in queries if "mcp_tools_toolcall" in query["sql"]]
    assert len(queued) == 1 and not ToolCall.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_writer_writes_a_batch_in_one_insert_on_its_own_thread(
    mcp, queued, monkeypatch, settings
):
    from mcp_tools import calllog

    monkeypatch.setattr(calllog, "MAX_BATCH", 2)
    seen = writes_seen(monkeypatch)
    mcp.call_tool("echo", {"word": "x"})
    assert seen == [] and not ToolCall.objects.exists()  # gathering its batch
    mcp.call_tool("boom")
    wait_for(lambda: ToolCall.objects.count() == 2)
    assert seen == [("mcp_tools call log", 2)]
    queued.close()  # the writer ends, its connection closed
    assert queued._thread is not None and not queued._thread.is_alive()


def test_flush_writes_the_queue_on_the_calling_thread(mcp, queued, monkeypatch):
    from mcp_tools import calllog

    seen = writes_seen(monkeypatch)
    mcp.call_tool("echo", {"word": "x"})
    mcp.call_tool("echo", {"word": "y"})
    calllog.flush()
    assert seen == [(threading.current_thread().name, 2)]
    assert ToolCall.objects.count() == 2 and len(queued) == 0


def test_a_full_queue_drops_counts_and_says_it_once(mcp, queued, caplog):
    from mcp_tools import calllog

    caplog.set_level(logging.WARNING, "mcp_tools")
    for word in "abcde":  # three queued, two dropped
        assert mcp.call_tool("echo", {"word": word})["isError"] is False
    assert (len(queued), queued.dropped) == (3, 2)
    assert caplog.messages == [
        "The call log's queue is full (3 calls): calls are not logged until the database catches up"
    ]
    calllog.flush()
    assert ToolCall.objects.count() == 3
    assert caplog.messages[1:] == ["The call log's queue was full: 2 calls were not logged"]
    mcp.call_tool("echo", {"word": "f"})  # room again
    assert (len(queued), queued.dropped) == (1, 2)


def test_a_queue_size_of_0_has_each_request_write_its_own_rows(mcp, queued, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG_QUEUE_SIZE": 0}
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert ToolCall.objects.get().tool_name == "echo" and len(queued) == 0


def test_once_closed_a_call_is_written_by_its_request(mcp, queued):
    queued.close()
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    assert ToolCall.objects.get().tool_name == "echo" and len(queued) == 0


def test_a_forked_process_starts_with_an_empty_queue_and_no_writer(mcp, queued):
    mcp.call_tool("echo", {"word": "x"})  # the parent's writer has started
    assert len(queued) == 1 and queued._thread.is_alive()
    pid = os.fork()
    if pid == 0:  # the child: report by the exit status, never return into pytest
        os._exit(0 if (len(queued), queued._thread, queued.closed) == (0, None, False) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert len(queued) == 1  # the parent's rows stay the parent's


@pytest.mark.django_db(transaction=True)
def test_the_stop_signal_writes_the_queue_then_runs_the_previous_handler(mcp, queued):
    # SIGUSR1 stands for SIGTERM, whose handler this process keeps for pytest.
    received = []
    previous = signal.signal(signal.SIGUSR1, lambda number, frame: received.append(number))
    try:
        queued.stop_on(signal.SIGUSR1)
        mcp.call_tool("echo", {"word": "x"})
        assert len(queued) == 1 and not ToolCall.objects.exists()
        os.kill(os.getpid(), signal.SIGUSR1)
        wait_for(lambda: received)  # the handler runs on the main thread, at once
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert received == [signal.SIGUSR1]
    assert queued.closed and ToolCall.objects.get().tool_name == "echo"


def test_an_ignored_stop_signal_stays_ignored(queued):
    previous = signal.signal(signal.SIGUSR2, signal.SIG_IGN)
    try:
        queued.stop_on(signal.SIGUSR2)
        assert signal.getsignal(signal.SIGUSR2) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGUSR2, previous)
