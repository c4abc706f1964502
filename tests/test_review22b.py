"""Review of #22 (the call plan, the call threads, the watchdog): what broke, pinned."""

from __future__ import annotations

import threading
import time

import pytest

from mcp_tools import streaming
from tests.testapp.models import Entry
from tests.wire import sse_messages


def stream_call(mcp, name, arguments):
    """Return a ``tools/call`` of ``name`` with a progress token: it is answered on a stream."""
    params = {"name": name, "arguments": arguments, "_meta": {"progressToken": 1}}
    return mcp.message("tools/call", params)


# The call threads ---------------------------------------------------------------------------


class Job:
    """A stand-in for a ``Worker``: it runs until it is let go."""

    def __init__(self, name):
        self.name = f"{streaming.CALL_THREAD}{name}"
        self.go = threading.Event()
        self.ran = threading.Event()

    def run(self):
        self.ran.set()
        self.go.wait(10)


def test_a_call_waits_for_no_thread_once_max_streams_is_raised(settings):
    # One call once waited for the last thread to finish (MAX_STREAMS reached): once the
    # limit is raised, a call that finds every thread busy must get a new one, not wait
    # behind a call that may run for minutes.
    settings.MCP_TOOLS = {"MAX_STREAMS": 1}
    pool = streaming.CallThreads()
    first, queued = Job("first"), Job("queued")
    pool.run(first)
    assert first.ran.wait(5)
    pool.run(queued)  # every thread busy, at the limit: it waits for the first to finish
    first.go.set()
    assert queued.ran.wait(5)
    queued.go.set()
    settings.MCP_TOOLS = {"MAX_STREAMS": 2}
    long, short = Job("long"), Job("short")
    pool.run(long)
    assert long.ran.wait(5)
    pool.run(short)  # the one thread is busy and the limit allows two
    try:
        assert short.ran.wait(5), "the call waited for a busy thread"
        assert pool.started == 2
    finally:
        long.go.set()
        short.go.set()


@pytest.mark.django_db(transaction=True)
def test_a_call_whose_thread_could_not_start_never_runs_later(mcp, monkeypatch):
    # Starting a thread fails where the process is at its limits (RLIMIT_NPROC, memory):
    # that call is answered with an error, and its view must not run later in another
    # call's thread, nor give back the stream slot a second time.
    monkeypatch.setattr(streaming, "threads", streaming.CallThreads())
    start = threading.Thread.start

    def cannot_start(thread):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", cannot_start)
    failed = mcp.send(stream_call(mcp, "entry_write", {"label": "answered as failed"}))
    assert failed.json()["error"]["code"] == -32603
    monkeypatch.setattr(threading.Thread, "start", start)
    answer = mcp.send(stream_call(mcp, "entry_write", {"label": "kept"}))
    assert sse_messages(b"".join(answer.streaming_content))[-1]["result"]["isError"] is False
    end = time.monotonic() + 5
    while streaming.slots.active and time.monotonic() < end:
        time.sleep(0.01)
    assert list(Entry.objects.values_list("label", flat=True)) == ["kept"]
    assert streaming.slots.active == 0
