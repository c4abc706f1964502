"""Progress and log notifications over SSE (docs/protocol.md): live streams, limits, disconnects."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import json
import threading
import time

import httpx2
import pytest
from django.test import Client
from mcp import Client as SDKClient
from mcp.client.streamable_http import streamable_http_client

from mcp_tools import ClientDisconnected
from mcp_tools.protocol.mediatypes import accepts
from mcp_tools.protocol.versions import Era
from mcp_tools.streaming import Channel, Event, Notifier, StreamSpec
from tests.conformance_app import views as probes
from tests.conformance_app.server import serve
from tests.testapp.models import Entry
from tests.wire import sse_messages, validate_stream

ACCEPT = "application/json, text/event-stream"
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def rpc(name, meta=None, arguments=None, id=1):
    params = {"name": name, "arguments": arguments or {}}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}


def post(client, body, version="2025-11-25", accept=ACCEPT, **headers):
    headers = {"Accept": accept, "MCP-Protocol-Version": version, **headers}
    return client.post("/mcp", json.dumps(body), content_type="application/json", headers=headers)


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


@pytest.fixture
def client(alice):
    # A view's exception is an isError result, reported through got_request_exception from
    # the worker thread; the test client must not re-raise it (when the signal lands before
    # the client has returned, it would, depending on timing).
    return Client(headers={"Authorization": f"Token {alice.token}"}, raise_request_exception=False)


# Through Django's test client (the WSGI code path) -----------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_progress_token_streams_progress_then_the_result(client, version):
    request = rpc("test_tool_with_progress", {"progressToken": "tok"})
    response = post(client, request, version=version)
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache, no-transform"
    messages = validate_stream(version, request, body_of(response))
    progress = [m["params"] for m in messages if m.get("method") == "notifications/progress"]
    assert [p["progress"] for p in progress] == [0, 50, 100]
    assert {p["progressToken"] for p in progress} == {"tok"}
    assert messages[-1]["result"]["content"] == [{"type": "text", "text": "Progress complete"}]


@pytest.mark.django_db
def test_without_event_stream_in_accept_the_answer_is_plain_json(client):
    response = post(
        client, rpc("test_tool_with_progress", {"progressToken": 1}), accept="application/json"
    )
    assert not response.streaming and response["Content-Type"] == "application/json"
    assert json.loads(response.content)["result"]["isError"] is False


@pytest.mark.django_db
def test_a_plain_call_is_plain_json(client):
    response = post(client, rpc("test_tool_with_progress"))
    assert not response.streaming


@pytest.mark.django_db
def test_a_stream_tool_sends_its_logs_without_a_progress_token(client):
    request = rpc("test_tool_with_logging")
    messages = validate_stream("2025-11-25", request, body_of(post(client, request)))
    logs = [m["params"] for m in messages if m.get("method") == "notifications/message"]
    assert logs == [
        {"level": "info", "logger": "test_tool_with_logging", "data": line}
        for line in probes.LOG_LINES
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("level", "count"), [(None, 0), ("info", 3), ("debug", 3), ("warning", 0)])
def test_modern_clients_get_logs_only_at_the_level_they_asked_for(client, level, count):
    meta = dict(ENVELOPE)
    if level:
        meta["io.modelcontextprotocol/logLevel"] = level
    request = rpc("test_tool_with_logging", meta)
    headers = {"Mcp-Method": "tools/call", "Mcp-Name": "test_tool_with_logging"}
    response = post(client, request, version=MODERN, **headers)
    messages = validate_stream(MODERN, request, body_of(response))
    assert len([m for m in messages if m.get("method") == "notifications/message"]) == count
    assert messages[-1]["result"]["resultType"] == "complete"


@pytest.mark.django_db
def test_a_call_past_call_timeout_ends_and_its_view_is_told_to_stop(client, settings):
    settings.MCP_TOOLS = {"CALL_TIMEOUT": 0.3}
    before = len(probes.LOOP_OUTCOMES)
    started = time.monotonic()
    request = rpc("probe_loop", {"progressToken": 5})
    messages = validate_stream("2025-11-25", request, body_of(post(client, request)))
    assert time.monotonic() - started < 3
    assert messages[-1]["result"] == {
        "content": [{"type": "text", "text": "Tool call timed out after 0.3 s"}],
        "isError": True,
    }
    assert lingering_workers() == []
    assert probes.LOOP_OUTCOMES[before:] == ["disconnected"]


@pytest.mark.django_db(transaction=True)
def test_the_worker_thread_keeps_the_transaction_rules(client, atomic_requests):
    kept = rpc("entry_write", {"progressToken": 1}, {"label": "kept"})
    result = sse_messages(body_of(post(client, kept)))[-1]["result"]
    assert result["structuredContent"] == {"count": 1, "atomic": True, "savepoints": 0}
    lost = rpc("entry_write", {"progressToken": 1}, {"label": "lost", "fail": True})
    result = sse_messages(body_of(post(client, lost)))[-1]["result"]
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


@pytest.mark.parametrize(
    ("accept", "streams"),
    [(None, False), ("application/json", False), ("text/event-stream", True), ("*/*", True)],
)
def test_which_accept_headers_admit_a_stream(accept, streams):
    assert accepts(accept, "text/event-stream") is streams


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
    body = rpc(name, meta)
    headers = {**headers, "Accept": ACCEPT, "MCP-Protocol-Version": "2025-11-25"}
    return http.stream("POST", url, json=body, headers=headers)


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
    with httpx2.Client(timeout=30) as http:
        with tcp_call(http, url, headers, "probe_loop", {"progressToken": 1}) as response:
            next(line for line in response.iter_lines() if line.startswith("data:"))
        # The connection is closed now; the server notices at its next write.
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            answer = http.post(
                url,
                json=rpc("probe_workers"),
                headers={
                    **headers,
                    "Accept": "application/json",
                    "MCP-Protocol-Version": "2025-11-25",
                },
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


def make_notifier(version="2025-11-25", token="t", level="debug"):
    spec = StreamSpec(
        request_id=1,
        era=Era(version, log_level=level),
        progress_token=token,
        logger="tool",
        timeout=1,
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


def test_past_max_streams_a_call_answers_plain_json(client, settings):
    from mcp_tools import streaming

    settings.MCP_TOOLS = {"MAX_STREAMS": 0}
    response = post(client, rpc("test_tool_with_logging"))
    assert not response.streaming
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["result"]["isError"] is False
    assert streaming.slots.active == 0


def test_a_streamed_call_gives_its_slot_back_when_its_view_ends(client):
    from mcp_tools import streaming

    response = post(client, rpc("test_tool_with_logging"))
    body_of(response)  # the stream ends with the result, after the worker's last step
    deadline = time.monotonic() + 5
    while streaming.slots.active and time.monotonic() < deadline:
        time.sleep(0.01)
    assert streaming.slots.active == 0


@pytest.mark.django_db(transaction=True)
def test_a_streamed_views_session_writes_are_saved(alice):
    from mcp_tools.test import MCPClient

    client = MCPClient()
    client.force_login(alice)
    assert client.call_tool("session_counter")["structuredContent"] == {"count": 1}
    assert client.call_tool("session_counter")["structuredContent"] == {"count": 2}
    assert client.session["count"] == 2


@pytest.mark.django_db
def test_invalid_arguments_of_a_stream_tool_answer_at_once_as_json(client):
    response = post(client, rpc("session_counter", arguments={"step": "one"}))
    assert not response.streaming
    result = json.loads(response.content)["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Invalid arguments:")
