"""Streamed calls in kept threads, and the call plan across settings: each call as fresh as a
new thread would have it (docs/performance.md#streaming)."""

from __future__ import annotations

import contextvars
import json
import os
import subprocess
import sys
import threading
import time
import zoneinfo
from pathlib import Path

import pytest
from django.db import connections
from django.test import Client
from django.urls import get_script_prefix, set_script_prefix
from django.utils import timezone, translation

from mcp_tools.endpoint import server, streaming
from mcp_tools.pipeline import invocation as invocation_module
from mcp_tools.protocol.jsonrpc import parse_message
from mcp_tools.protocol.results import ToolResult
from mcp_tools.protocol.versions import Era
from mcp_tools.test import MCPClient
from tests.testapp.models import Entry
from tests.wire import sse_messages

ROOT = Path(__file__).resolve().parents[2]
#: What a project keeps per request in a context variable (a tenant, a log binding).
TENANT: contextvars.ContextVar[str | None] = contextvars.ContextVar("tenant", default=None)


def stream_call(mcp, name, arguments):
    """Return a ``tools/call`` of ``name`` with a progress token: it is answered on a stream."""
    params = {"name": name, "arguments": arguments, "_meta": {"progressToken": 1}}
    return mcp.message("tools/call", params)


def test_a_test_database_on_postgresql_is_dropped_after_a_streamed_call(postgres):
    # A project whose settings keep connections (CONN_MAX_AGE) runs its tests with
    # pytest-django: the test database must still be dropped at the end of the session,
    # which PostgreSQL refuses while any connection to it is open.
    environ = {**os.environ, **postgres.environ(), "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "--ds=tests.pg_persistent_settings",
            "--create-db",
            "tests/pg_streamed_session.py",
        ],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = run.stdout + run.stderr
    assert "being accessed by other users" not in output, output
    assert run.returncode == 0, output


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


@pytest.mark.django_db(transaction=True)
def test_an_idle_call_thread_holds_no_database_connection(mcp, monkeypatch):
    # With CONN_MAX_AGE, a connection kept by an idle thread is never checked again until
    # its next call: up to MAX_STREAMS of them per process, past their age.
    monkeypatch.setitem(connections["default"].settings_dict, "CONN_MAX_AGE", 60)
    monkeypatch.setattr(streaming, "threads", streaming.CallThreads())
    answer = mcp.send(stream_call(mcp, "entry_write", {"label": "x"}))
    assert sse_messages(b"".join(answer.streaming_content))[-1]["result"]["isError"] is False
    held = []

    class Probe(Job):
        def run(self):
            held.append(connections["default"].connection is not None)
            super().run()

    probe = Probe("probe")
    probe.go.set()
    end = time.monotonic() + 5
    while streaming.threads._free == 0 and time.monotonic() < end:
        time.sleep(0.01)  # the call's thread, back from its call
    streaming.threads.run(probe)
    assert probe.ran.wait(5)
    assert streaming.threads.started == 1  # the call's own thread ran the probe
    assert held == [False]


def test_a_call_thread_starts_each_call_in_a_fresh_context(settings):
    # Each call used to start a thread of its own, with an empty context, and Django's ASGI
    # handler runs each request in a context of its own: what one call's view activates
    # (a time zone, a context variable) is not the next call's, who may be another user.
    settings.MCP_TOOLS = {"MAX_STREAMS": 1}
    pool = streaming.CallThreads()
    seen = []

    class Activating(Job):
        def run(self):
            timezone.activate(zoneinfo.ZoneInfo("Asia/Tokyo"))
            TENANT.set("first caller's")
            super().run()

    class Reading(Job):
        def run(self):
            seen.append((timezone.get_current_timezone_name(), TENANT.get()))
            super().run()

    first, second = Activating("first"), Reading("second")
    first.go.set()
    second.go.set()
    pool.run(first)
    pool.run(second)  # the limit is one thread: the same thread runs it
    assert second.ran.wait(5)
    assert pool.started == 1
    assert seen == [(settings.TIME_ZONE, None)]


# The call plan ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_atomic_requests_turned_on_after_a_tools_first_call_holds_for_its_next(mcp, request):
    # Django's handler wraps the view for ATOMIC_REQUESTS at every request, and Django's own
    # tests turn it on by the connection's settings_dict (as tests/conftest.py does): a
    # test suite that calls a tool, then turns it on, must see its next call atomic.
    first = mcp.call_tool("entry_write", {"label": "before"})
    assert first["structuredContent"]["atomic"] is False
    request.getfixturevalue("atomic_requests")
    second = mcp.call_tool("entry_write", {"label": "after"})
    assert second["structuredContent"]["atomic"] is True


# The timeout's answer, built late -----------------------------------------------------------


def test_a_timeout_answered_while_the_view_reports_its_call_reads_the_invocation_once():
    # Under WSGI a timeout's answer is now built on the request's thread when the deadline
    # passes, which is when the view, told to stop, reports its own result on its thread and
    # clears call.invocation: complete() must not read it twice.
    class Reported:
        def answered(self, result, sent):
            pass

    class RacingCall:
        era = Era("2025-11-25")
        version = "2025-11-25"
        message = parse_message(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}}
        )
        reads = 0

        @property
        def invocation(self):
            self.reads += 1
            return Reported() if self.reads == 1 else None  # the view's thread reported

    answer = server.complete(RacingCall(), ToolResult.error("Tool call timed out after 1 s"))
    assert json.loads(answer.body)["result"]["isError"] is True


# What the streamed view's thread is given -------------------------------------------------


def post_call(client, user, params, **extra):
    """POST ``tools/call`` with ``params`` as ``user`` through Django's test client, whose
    handler runs the project's middleware, with what a streaming client accepts."""
    return Client().post(
        "/mcp",
        json.dumps(client.message("tools/call", params)),
        content_type="application/json",
        headers={
            "Authorization": f"Token {user.token}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        },
        **extra,
    )


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "meta"), [("echo", None), ("echo", {"progressToken": 1})])
def test_a_view_reverses_urls_under_the_sites_script_prefix_streamed_or_not(
    alice, monkeypatch, name, meta
):
    # A site mounted under a path (SCRIPT_NAME /app): Django's handler sets the script
    # prefix that reverse() puts before every URL it makes (a hyperlinked serializer's). A
    # streamed call's view runs on another thread, which must be given it too.
    seen = []
    call_view = invocation_module.call_view

    def spying(inner):
        seen.append(get_script_prefix())
        return call_view(inner)

    monkeypatch.setattr(invocation_module, "call_view", spying)
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    params = {"name": name, "arguments": {"word": "hi"}}
    if meta:
        params["_meta"] = meta
    # Django's WSGIHandler sets it from SCRIPT_NAME; its test client's handler does not.
    set_script_prefix("/app/")
    try:
        response = post_call(client, alice, params, SCRIPT_NAME="/app")
    finally:
        set_script_prefix("/")
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.streaming is bool(meta), body
    assert seen == ["/app/"]


@pytest.mark.django_db
def test_a_streamed_view_runs_in_its_requests_locale_whatever_its_thread_ran_before(
    alice, monkeypatch, settings
):
    # The view's thread is given the request's locale and script prefix, in the call's own
    # context: the next call on the same thread has its own request's, none where its
    # request has none active (deactivate_all()), as the view would run inline.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_STREAMS": 1}
    monkeypatch.setattr(streaming, "threads", streaming.CallThreads())  # one thread, ours
    seen = []
    call_view = invocation_module.call_view

    def spying(inner):
        seen.append((translation.get_language(), get_script_prefix(), threading.get_ident()))
        return call_view(inner)

    monkeypatch.setattr(invocation_module, "call_view", spying)
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    params = {"name": "echo", "arguments": {"word": "hi"}, "_meta": {"progressToken": 1}}

    def streamed_call():
        response = post_call(client, alice, params)
        assert response.streaming
        return b"".join(response.streaming_content)

    set_script_prefix("/app/")
    try:
        with translation.override("fr"):
            streamed_call()
    finally:
        set_script_prefix("/")
    with translation.override(None):
        streamed_call()
    (first_language, first_prefix, first_thread), second = seen
    assert (first_language, first_prefix) == ("fr", "/app/")
    assert second == (None, "/", first_thread)
