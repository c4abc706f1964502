"""Progress and log notifications over SSE (docs/protocol.md): live streams, limits, disconnects."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import json
import os
import socket
import threading
import time

import httpx2
import pytest
from mcp import Client as SDKClient
from mcp.client.streamable_http import streamable_http_client

from mcp_tools import ClientDisconnected
from mcp_tools.endpoint import streaming
from mcp_tools.endpoint.streaming import (
    Channel,
    Event,
    Notifier,
    StreamSpec,
    async_events,
    sync_events,
)
from mcp_tools.models import ToolCall
from mcp_tools.protocol.versions import Era
from mcp_tools.test import MCPClient
from tests.conformance_app import views as probes
from tests.conformance_app.server import serve
from tests.helpers import MODERN
from tests.testapp.models import Entry
from tests.wire import sse_messages, validate_stream


def call(mcp, name, meta=None, arguments=None):
    """Return the ``tools/call`` request ``mcp`` sends for ``name`` (its era's ``_meta`` too)."""
    params = {"name": name, "arguments": arguments or {}}
    if meta is not None:
        params["_meta"] = meta
    return mcp.message("tools/call", params)


def body_of(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


def lingering_workers(deadline=5.0):
    """Return the tool-call worker threads still alive after waiting up to ``deadline``."""
    end = time.monotonic() + deadline
    while True:
        alive = [t.name for t in threading.enumerate() if t.name.startswith("mcp-tools-call-")]
        if not alive or time.monotonic() >= end:
            return alive
        time.sleep(0.02)


# Through Django's test client (the WSGI code path) -----------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_progress_token_streams_progress_then_the_result(mcp, version):
    request = call(mcp, "test_tool_with_progress", {"progressToken": "tok"})
    response = mcp.send(request, headers={"MCP-Protocol-Version": version})
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache, no-transform"
    messages = validate_stream(version, request, body_of(response))
    progress = [m["params"] for m in messages if m.get("method") == "notifications/progress"]
    assert [p["progress"] for p in progress] == [0, 50, 100]
    assert {p["progressToken"] for p in progress} == {"tok"}
    assert messages[-1]["result"]["content"] == [{"type": "text", "text": "Progress complete"}]


@pytest.mark.django_db
def test_a_stream_tool_sends_its_logs_without_a_progress_token(mcp):
    request = call(mcp, "test_tool_with_logging")
    messages = validate_stream("2025-11-25", request, body_of(mcp.send(request)))
    logs = [m["params"] for m in messages if m.get("method") == "notifications/message"]
    assert logs == [
        {"level": "info", "logger": "test_tool_with_logging", "data": line}
        for line in probes.LOG_LINES
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("level", "count"), [(None, 0), ("info", 3), ("debug", 3), ("warning", 0)])
def test_modern_clients_get_logs_only_at_the_level_they_asked_for(modern_mcp, level, count):
    meta = {}
    if level:
        meta["io.modelcontextprotocol/logLevel"] = level
    request = call(modern_mcp, "test_tool_with_logging", meta)
    response = modern_mcp.send(request)
    messages = validate_stream(MODERN, request, body_of(response))
    assert len([m for m in messages if m.get("method") == "notifications/message"]) == count
    assert messages[-1]["result"]["resultType"] == "complete"


@pytest.mark.django_db(transaction=True)  # its view's row is written from its thread
def test_a_call_past_call_timeout_ends_and_its_view_is_told_to_stop(mcp, settings):
    settings.MCP_TOOLS = {"CALL_TIMEOUT": 0.3}
    before = len(probes.LOOP_OUTCOMES)
    started = time.monotonic()
    request = call(mcp, "probe_loop", {"progressToken": 5})
    messages = validate_stream("2025-11-25", request, body_of(mcp.send(request)))
    assert time.monotonic() - started < 3
    assert messages[-1]["result"] == {
        "content": [{"type": "text", "text": "Tool call timed out after 0.3 s"}],
        "isError": True,
    }
    assert lingering_workers() == []
    assert probes.LOOP_OUTCOMES[before:] == ["disconnected"]


@pytest.mark.django_db(transaction=True)
def test_a_call_past_call_timeout_is_logged_as_timed_out_as_its_client_read(mcp, settings):
    # Its view stops at its next progress report and answers "Client disconnected", after
    # the stream has ended: the log says what the client read, and the row is not lost.
    settings.MCP_TOOLS = {"CALL_TIMEOUT": 0.3}
    request = call(mcp, "probe_loop", {"progressToken": 5})
    body_of(mcp.send(request))
    deadline = time.monotonic() + 5
    while not ToolCall.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    row = ToolCall.objects.get()
    assert (row.tool_name, row.outcome, row.refusal) == ("probe_loop", "error", "")
    assert row.error_message == "Tool call timed out after 0.3 s"


@pytest.mark.django_db(transaction=True)
def test_the_worker_thread_keeps_the_transaction_rules(mcp, atomic_requests):
    kept = call(mcp, "entry_write", {"progressToken": 1}, {"label": "kept"})
    result = sse_messages(body_of(mcp.send(kept)))[-1]["result"]
    assert result["structuredContent"] == {"count": 1, "atomic": True, "savepoints": 0}
    lost = call(mcp, "entry_write", {"progressToken": 1}, {"label": "lost", "fail": True})
    result = sse_messages(body_of(mcp.send(lost)))[-1]["result"]
    assert result["isError"] is True
    assert list(Entry.objects.values_list("label", flat=True)) == ["kept"], result
    assert lingering_workers() == []


def test_the_channel_hands_items_to_threads_and_event_loops_alike():
    channel = Channel()
    assert channel.get(0.01) is None
    threading.Timer(0.05, channel.put, [Event("a")]).start()
    assert channel.get(2).data == "a"

    async def read():
        assert await channel.aget(0.01) is None
        threading.Timer(0.05, channel.put, [Event("b", final=True)]).start()
        return await channel.aget(2)

    assert asyncio.run(read()) == Event("b", final=True)


# Over real TCP: WSGI (live_server, gunicorn sync) and ASGI (uvicorn) ----------------------


@pytest.fixture(params=["live_server", "gunicorn", "uvicorn"])
def server(request, alice, tmp_path, monkeypatch):
    """Yield (mcp URL, headers, gate file) of a real server.

    live_server is Django's threaded WSGI server in this process; gunicorn (one sync worker)
    and uvicorn (ASGI) serve the conformance settings in a subprocess.
    """
    gate = tmp_path / "gate"
    if request.param == "live_server":
        monkeypatch.setenv(probes.GATE_ENV, str(gate))
        live_server = request.getfixturevalue("live_server")
        yield f"{live_server.url}/mcp", {"Authorization": f"Token {alice.token}"}, gate
        return
    with serve(request.param, env={probes.GATE_ENV: str(gate)}) as url:
        yield f"{url}/mcp", {}, gate


def tcp_call(http, url, headers, name, meta=None):
    # MCPClient writes the request and its headers; httpx2 carries them over TCP.
    client = MCPClient()
    body = call(client, name, meta)
    return http.stream("POST", url, json=body, headers={**headers, **client.headers_for(body)})


@pytest.mark.django_db(transaction=True)
def test_the_stream_is_live_a_view_waiting_for_its_client_finishes(server):
    url, headers, gate = server
    with (
        httpx2.Client(timeout=30) as http,
        tcp_call(http, url, headers, "probe_gate", {"progressToken": "g"}) as response,
    ):
        assert response.headers["content-type"] == "text/event-stream"
        lines = response.iter_lines()
        first = next(line for line in lines if line.startswith("data:"))
        assert json.loads(first[5:])["method"] == "notifications/progress"
        # Only a client that already holds the first event opens the gate: a server that
        # buffered the stream would let the view time out instead.
        gate.touch()
        rest = "\n".join(lines)
    final = sse_messages(rest.encode())[-1]
    assert final["result"]["content"] == [{"type": "text", "text": "released"}]


@pytest.mark.django_db(transaction=True)
def test_after_a_disconnect_the_view_stops_and_no_worker_is_left(server):
    url, headers, _ = server
    client = MCPClient()
    with httpx2.Client(timeout=30) as http:
        with tcp_call(http, url, headers, "probe_loop", {"progressToken": 1}) as response:
            next(line for line in response.iter_lines() if line.startswith("data:"))
        # The connection is closed now; the server notices at its next write.
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            body = call(client, "probe_workers")
            answer = http.post(
                url,
                json=body,
                headers={**headers, **client.headers_for(body), "Accept": "application/json"},
            )
            state = json.loads(answer.content)["result"]["structuredContent"]
            if not state["workers"] and state["outcomes"]:
                break
            time.sleep(0.1)
    assert state["workers"] == []
    assert state["outcomes"][-1] == "disconnected"


@pytest.mark.django_db(transaction=True)
def test_the_official_sdk_receives_progress_and_logs(live_server, alice):
    progress, logs = [], []

    async def on_progress(value, total, message):
        progress.append((value, total, message))

    async def on_log(params):
        logs.append(params.data)

    async def scenario():
        headers = {"Authorization": f"Token {alice.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(f"{live_server.url}/mcp", http_client=http)
            async with SDKClient(transport, mode="legacy", logging_callback=on_log) as sdk:
                stepped = await sdk.call_tool(
                    "test_tool_with_progress", {}, progress_callback=on_progress
                )
                logged = await sdk.call_tool("test_tool_with_logging", {})
                return stepped, logged

    stepped, logged = asyncio.run(asyncio.wait_for(scenario(), timeout=60))
    assert stepped.is_error is False and logged.is_error is False
    assert [value for value, _, _ in progress] == [0, 50, 100]
    assert logs == list(probes.LOG_LINES)


def make_notifier(version="2025-11-25", token="t", level="debug", timeout=1.0):
    spec = StreamSpec(
        request_id=1,
        era=Era(version, log_level=level),
        progress_token=token,
        logger="tool",
        timeout=timeout,
    )
    return Notifier(Channel(), spec)


def test_log_data_is_encoded_as_drf_encodes_it():
    notifier = make_notifier()
    notifier.log("info", {"at": datetime.date(2026, 1, 2), "n": decimal.Decimal("1.5")})
    params = json.loads(notifier.channel.get(0).data)["params"]
    assert params == {"level": "info", "logger": "tool", "data": {"at": "2026-01-02", "n": 1.5}}


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("1", None, None), TypeError),
        ((True, None, None), TypeError),
        ((1, "2", None), TypeError),
        ((1, 2, 3), TypeError),
    ],
)
def test_bad_progress_values_fail_in_the_view(args, error):
    with pytest.raises(error):
        make_notifier().progress(*args)


def test_helpers_raise_client_disconnected_once_the_stream_is_closed():
    notifier = make_notifier()
    notifier.close()
    with pytest.raises(ClientDisconnected):
        notifier.progress(1, None, None)
    with pytest.raises(ClientDisconnected):
        notifier.log("info", "x")


def test_progress_without_a_token_goes_nowhere():
    notifier = make_notifier(token=None)
    notifier.progress(1, 2, "m")
    assert notifier.channel.get(0) is None


def test_past_max_streams_a_call_answers_plain_json(mcp, settings):
    settings.MCP_TOOLS = {"MAX_STREAMS": 0}
    response = mcp.send(call(mcp, "test_tool_with_logging"))
    assert not response.streaming
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["result"]["isError"] is False
    assert streaming.slots.active == 0


def test_a_streamed_call_gives_its_slot_back_when_its_view_ends(mcp):
    response = mcp.send(call(mcp, "test_tool_with_logging"))
    body_of(response)  # the stream ends with the result, after the worker's last step
    deadline = time.monotonic() + 5
    while streaming.slots.active and time.monotonic() < deadline:
        time.sleep(0.01)
    assert streaming.slots.active == 0


@pytest.mark.django_db(transaction=True)
def test_a_streamed_views_session_writes_are_saved(alice):
    client = MCPClient()
    client.force_login(alice)
    assert client.call_tool("session_counter")["structuredContent"] == {"count": 1}
    assert client.call_tool("session_counter")["structuredContent"] == {"count": 2}
    assert client.session["count"] == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", MODERN])
@pytest.mark.parametrize(
    "tool", ["r_indented", "r_pretty_json", "r_pretty_crlf", "r_pretty_renderer"]
)
def test_json_that_is_not_compact_is_reencoded_for_an_sse_data_line(alice, version, tool):
    mcp = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=version)
    request = call(mcp, tool, {"progressToken": "tok"})
    response = mcp.send(request)
    assert response["Content-Type"] == "text/event-stream"
    body = body_of(response)
    # Each event is one "event:" line and one "data:" line: no line of JSON left over.
    for event in body.decode().split("\n\n"):
        lines = event.splitlines()
        assert not lines or [line.split(":")[0] for line in lines] == ["event", "data"], event
    [answer] = validate_stream(version, request, body)
    result = answer["result"]
    expected = {"a": [1, {"b": "x\ny"}], "c": "é"}
    assert result["structuredContent"] == expected
    assert json.loads(result["content"][0]["text"]) == expected
    # Plain JSON answers carry the same, compact.
    plain = mcp.send(call(mcp, tool), headers={"Accept": "application/json"})
    assert json.loads(plain.content)["result"]["structuredContent"] == expected


# Bounds: the progress token, the queue, the time limit of a stream nobody reads ----------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("version", ["2025-11-25", MODERN])
@pytest.mark.parametrize(
    ("token", "fault"),
    [("t" * 1_000_000, "is longer than 256 characters"), (10**400, "must be an integer from")],
    ids=["a megabyte", "400 digits"],
)
def test_a_progress_token_past_its_bounds_is_refused_before_the_view_runs(
    live_server, alice, version, token, fault
):
    mcp = MCPClient(protocol_version=version)
    body = call(mcp, "entry_write", {"progressToken": token}, {"label": "never"})
    headers = {"Authorization": f"Token {alice.token}", **mcp.headers_for(body)}
    answer = httpx2.post(f"{live_server.url}/mcp", json=body, headers=headers, timeout=30)
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()["error"]
    assert error["code"] == -32602
    assert error["message"].startswith(f"Invalid params: _meta.progressToken {fault}")
    assert len(answer.content) < 500  # nothing of the token comes back
    assert not Entry.objects.exists()
    # The call log keeps the refusal (docs/calllog.md), written once the answer has left;
    # the view never ran.
    refused = ToolCall.objects.values_list("tool_name", "outcome", "refusal", "http_status")
    deadline = time.monotonic() + 5
    while not refused.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert list(refused) == [("entry_write", "refused", "invalid_arguments", None)]
    # Before the tool is looked up: a name that doesn't exist gets the same refusal.
    body = call(mcp, "no_such_tool", {"progressToken": token})
    headers = {"Authorization": f"Token {alice.token}", **mcp.headers_for(body)}
    answer = httpx2.post(f"{live_server.url}/mcp", json=body, headers=headers, timeout=30)
    assert answer.json()["error"]["message"] == error["message"]
    # The longest token taken streams as any other, in both eras.
    body = call(mcp, "entry_write", {"progressToken": "t" * 256}, {"label": "kept"})
    headers = {"Authorization": f"Token {alice.token}", **mcp.headers_for(body)}
    answer = httpx2.post(f"{live_server.url}/mcp", json=body, headers=headers, timeout=30)
    assert answer.headers["content-type"] == "text/event-stream"
    assert sse_messages(answer.content)[-1]["result"]["isError"] is False
    assert list(Entry.objects.values_list("label", flat=True)) == ["kept"]


def test_the_channel_holds_at_most_its_limit_and_a_put_waits_for_room():
    channel = Channel(limit=10)
    assert channel.put(Event("a" * 6))
    # No room: the put waits until its deadline, then gives up with the event dropped.
    started = time.monotonic()
    assert not channel.put(Event("b" * 6), time.monotonic() + 0.1)
    assert time.monotonic() - started >= 0.1
    assert channel.size == 6
    # A reader taking an event makes room for a waiting put.
    threading.Timer(0.05, channel.get, [0]).start()
    assert channel.put(Event("c" * 6), time.monotonic() + 5)
    assert channel.size == 6
    assert channel.get(0) == Event("c" * 6)
    # One event larger than the limit goes in alone; the answer always goes in.
    assert channel.put(Event("d" * 50), time.monotonic())
    assert channel.put(Event("e" * 50, final=True), time.monotonic())
    assert [channel.get(0).data[0], channel.get(0).data[0], channel.get(0)] == ["d", "e", None]


def test_a_reader_waiting_for_the_close_is_woken_by_it_any_other_waits_out_its_time():
    channel = Channel()
    threading.Timer(0.05, channel.close).start()
    started = time.monotonic()
    assert channel.get(10, until_closed=True) is None
    assert time.monotonic() - started < 5
    # Without until_closed a reader asked for an event: the close does not end its wait.
    other = Channel()
    threading.Timer(0.02, other.close).start()
    started = time.monotonic()
    assert other.get(0.2) is None
    assert time.monotonic() - started >= 0.2


def test_a_reader_whose_waits_time_out_as_events_come_gets_each_once_in_order():
    # Each wait is shorter than the writer's pauses, so that events land as the reader's
    # time runs out: none is lost or read twice.
    channel = Channel()
    count = 1000

    def write():
        for number in range(count):
            channel.put(Event(str(number)))
            if number % 7 == 0:
                time.sleep(0.0002)
        channel.put(Event("end", final=True))

    writer = threading.Thread(target=write)
    writer.start()
    read = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        item = channel.get(0.0001)
        if item is None:
            continue
        if item.final:
            break
        read.append(int(item.data))
    writer.join(5)
    assert read == list(range(count))
    assert channel.size == 0 and channel.get(0) is None


def test_the_latest_progress_replaces_the_one_still_waiting():
    channel = Channel(limit=100)
    channel.put(Event("p1", replaceable=True))
    channel.put(Event("log"))
    channel.put(Event("p2", replaceable=True))
    channel.put(Event("p3", replaceable=True))
    assert channel.size == 5
    assert [channel.get(0).data, channel.get(0).data, channel.get(0)] == ["log", "p3", None]


def test_closing_the_channel_wakes_a_waiting_put_and_drops_what_it_held():
    channel = Channel(limit=1)
    channel.put(Event("held"))
    threading.Timer(0.05, channel.close).start()
    started = time.monotonic()
    assert not channel.put(Event("waiting"), time.monotonic() + 10)
    assert time.monotonic() - started < 5
    assert channel.size == 0 and channel.get(0) is None
    assert not channel.put(Event("answer", final=True))


def test_a_view_whose_client_does_not_read_waits_then_stops_at_call_timeout():
    notifier = make_notifier(timeout=0.3)
    notifier.channel.limit = 500  # two log events of 202 characters
    started = time.monotonic()
    with pytest.raises(ClientDisconnected, match=r"CALL_TIMEOUT \(0.3 s\)"):
        for _ in range(100):
            notifier.log("info", "x" * 100)
    assert 0.3 <= time.monotonic() - started < 3
    assert notifier.expired
    assert notifier.channel.size == 404
    # Progress replaces its predecessor instead of waiting: it never blocks the view.
    fresh = make_notifier(timeout=5)
    fresh.channel.limit = 200
    for step in range(1000):
        fresh.progress(step, 1000, None)
    assert json.loads(fresh.channel.get(0).data)["params"]["progress"] == 999
    assert fresh.channel.get(0) is None


def test_the_answer_of_a_view_stopped_by_the_time_limit_is_the_timeout():
    notifier = make_notifier(timeout=0)
    with pytest.raises(ClientDisconnected):
        notifier.log("info", "late")
    events = sync_events(notifier.channel, notifier, lambda: b"timed out")
    threading.Timer(0.05, notifier.channel.put, [Event("Client disconnected", final=True)]).start()
    assert list(events) == [b"timed out"]


def test_a_sync_stream_suspended_past_its_grace_cuts_the_connection(monkeypatch, caplog):
    caplog.set_level("INFO", "mcp_tools")
    monkeypatch.setattr(streaming, "DELIVERY_GRACE", 0.1)
    cuts = []
    notifier = make_notifier(timeout=0.1)
    notifier.channel.put(Event("first"))
    events = sync_events(notifier.channel, notifier, lambda: b"timed out", lambda: cuts.append(1))
    next(events)  # the server writes it, and the client never takes it: never resumed
    time.sleep(0.5)
    assert cuts == [1]
    assert caplog.messages == ["Tool tool: its stream was ended unread, 0.1 s past CALL_TIMEOUT"]
    events.close()
    assert notifier.closed.is_set()
    # A stream that ends in time never cuts.
    notifier = make_notifier(timeout=0.1)
    notifier.channel.put(Event("answer", final=True))
    events = sync_events(notifier.channel, notifier, lambda: b"timed out", lambda: cuts.append(2))
    assert list(events) == [b"event: message\ndata: answer\n\n"]
    time.sleep(0.4)
    assert cuts == [1]


def test_an_async_stream_suspended_past_its_grace_is_cancelled(monkeypatch):
    monkeypatch.setattr(streaming, "DELIVERY_GRACE", 0.1)
    notifier = make_notifier(timeout=0.1)
    notifier.channel.put(Event("first"))

    async def stalled_server():
        # As an ASGI server whose client stopped reading: the send after the first event
        # never returns.
        async for _ in async_events(notifier.channel, notifier, lambda: b"timed out"):
            await asyncio.Event().wait()

    async def scenario():
        task = asyncio.create_task(stalled_server())
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
        return task.cancelled()

    assert asyncio.run(scenario())
    assert notifier.closed.is_set()


@pytest.fixture(params=["live_server", "gunicorn", "uvicorn"])
def limited_server(request, alice, settings):
    """Yield (kind, mcp URL, headers) of a real server whose CALL_TIMEOUT is 2 s."""
    if request.param == "live_server":
        settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_TIMEOUT": 2}
        live_server = request.getfixturevalue("live_server")
        yield "live_server", f"{live_server.url}/mcp", {"Authorization": f"Token {alice.token}"}
        return
    with serve(request.param, env={"MCP_TOOLS_CALL_TIMEOUT": "2"}) as url:
        yield request.param, f"{url}/mcp", {}


def stalled_client(url, headers, name, meta):
    """Send a tools/call over a socket with a small receive buffer, and return it unread."""
    client = MCPClient()
    body = json.dumps(call(client, name, meta)).encode()
    parts = httpx2.URL(url)
    head = {
        **headers,
        **client.headers_for(body),
        "Host": f"{parts.host}:{parts.port}",
        "Content-Type": "application/json",
        "Content-Length": str(len(body)),
    }
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parts.host, parts.port))
    lines = "".join(f"{key}: {value}\r\n" for key, value in head.items())
    # HTTP/1.0: the stream is the body up to the connection's end, in no chunks.
    sock.sendall(f"POST {parts.path} HTTP/1.0\r\n{lines}\r\n".encode() + body)
    return sock


@pytest.mark.django_db(transaction=True)
def test_a_client_that_never_reads_holds_a_bounded_queue_until_call_timeout(limited_server):
    kind, url, headers = limited_server
    probes.FLOOD.update(outcomes=[], sent=0, queued=0)  # live_server's (the others start anew)
    started = time.monotonic()
    sock = stalled_client(url, headers, "probe_flood", {"progressToken": "f"})
    try:
        client = MCPClient()
        state = None
        with httpx2.Client(timeout=30) as http:
            # gunicorn's one sync worker answers only once the stalled stream is cut.
            while time.monotonic() - started < 2 + streaming.DELIVERY_GRACE + 10:
                body = call(client, "probe_workers")
                answer = http.post(
                    url,
                    json=body,
                    headers={**headers, **client.headers_for(body), "Accept": "application/json"},
                )
                state = json.loads(answer.content)["result"]["structuredContent"]
                if state["flood"]["outcomes"] and not state["workers"]:
                    break
                time.sleep(0.2)
        ended = time.monotonic() - started
        flood = state["flood"]
        assert flood["outcomes"] == ["disconnected"], state
        assert state["workers"] == []
        assert 0 < flood["queued"] <= streaming.MAX_PENDING
        assert flood["sent"] < probes.FLOOD_STEPS
        assert ended >= 2
        # What the stalled client gets when it reads again, past the grace: the stream was cut
        # (gunicorn, uvicorn: no answer), or, where the server keeps its socket, the timeout.
        time.sleep(max(started + 2 + streaming.DELIVERY_GRACE + 1 - time.monotonic(), 0))
        sock.settimeout(20)
        received = b""
        while chunk := sock.recv(1 << 16):
            received += chunk
        assert time.monotonic() - started < 2 + streaming.DELIVERY_GRACE + 20
    finally:
        sock.close()
    events = received.partition(b"\r\n\r\n")[2]
    whole = events[: events.rfind(b"\n\n") + 2]  # a cut stream may end inside an event
    answers = [m for m in sse_messages(whole) if "result" in m]
    if kind == "live_server":
        assert [a["result"]["content"][0]["text"] for a in answers] == [
            "Tool call timed out after 2 s"
        ]
    else:
        assert answers == []


@pytest.mark.parametrize("relay", ["sync", "async"])
def test_a_quiet_stream_sends_keep_alive_comments_that_clients_skip(monkeypatch, relay):
    # A view waiting for its user's answer may be quiet for minutes: proxies end idle streams.
    monkeypatch.setattr(streaming, "KEEP_ALIVE", 0.05)
    notifier = make_notifier(timeout=5)
    answer = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    threading.Timer(0.3, notifier.channel.put, [Event(answer, final=True)]).start()
    if relay == "sync":
        chunks = list(sync_events(notifier.channel, notifier, lambda: b"timed out"))
    else:

        async def read():
            return [chunk async for chunk in async_events(notifier.channel, notifier, lambda: b"x")]

        chunks = asyncio.run(read())
    assert chunks[0] == streaming.KEEP_ALIVE_COMMENT
    assert len(chunks) > 2 and set(chunks[:-1]) == {streaming.KEEP_ALIVE_COMMENT}
    assert sse_messages(b"".join(chunks)) == [json.loads(answer)]


# The call threads ---------------------------------------------------------------------------


class Job:
    """A stand-in for a ``Worker``: it runs until it is let go."""

    def __init__(self, name):
        self.name = f"{streaming.CALL_THREAD}{name}"
        self.go = threading.Event()
        self.ran_in = None

    def run(self):
        self.ran_in = threading.current_thread().name
        self.go.wait(5)


def test_streamed_calls_reuse_their_threads(mcp):
    # A thread's start costs more than a trivial call: one thread serves calls one after
    # another, and between them it is idle, not a worker left behind.
    before = streaming.threads.started
    for _ in range(5):
        messages = sse_messages(body_of(mcp.send(call(mcp, "test_tool_with_logging"))))
        assert messages[-1]["result"]["isError"] is False
    assert streaming.threads.started - before <= 1
    assert lingering_workers() == []


def test_call_threads_are_at_most_max_streams_and_named_for_their_call(settings):
    settings.MCP_TOOLS = {"MAX_STREAMS": 2}
    pool = streaming.CallThreads()
    jobs = [Job(f"tool{index}") for index in range(3)]
    for job in jobs:
        pool.run(job)
    deadline = time.monotonic() + 5
    while not (jobs[0].ran_in and jobs[1].ran_in) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.started == 2 and jobs[2].ran_in is None  # it waits for a thread
    assert {jobs[0].ran_in, jobs[1].ran_in} == {"mcp-tools-call-tool0", "mcp-tools-call-tool1"}
    jobs[0].go.set()  # that thread finishes its call and takes the next
    while jobs[2].ran_in is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert jobs[2].ran_in == "mcp-tools-call-tool2" and pool.started == 2
    for job in jobs:
        job.go.set()
    idle = lambda: sum(t.name == streaming.IDLE_THREAD for t in threading.enumerate())  # noqa: E731
    while idle() < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert idle() >= 2


def test_a_forked_child_starts_its_own_call_threads():
    # gunicorn forks its workers: a child has none of its parent's threads.
    pool = streaming.threads
    job = Job("parent")
    job.go.set()
    pool.run(job)
    assert pool.started >= 1
    pid = os.fork()
    if pid == 0:
        child = Job("child")
        child.go.set()
        fresh = pool.started == 0
        pool.run(child)
        deadline = time.monotonic() + 5
        while child.ran_in is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os._exit(0 if fresh and child.ran_in == "mcp-tools-call-child" else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
