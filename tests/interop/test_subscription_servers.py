"""Live changes under real servers, heard by independent clients over HTTP
(docs/subscriptions.md): gunicorn with gthread workers and uvicorn serve the conformance app;
another process (``manage.py shell`` on the same database and shared cache) disables a tool in
the admin and stamps ``test://watched-resource``, and each client must hear both:

- the official Python SDK at 2026-07-28, through ``Client.listen``;
- the official TypeScript SDK 1.x in the handshake era, through the GET stream it opens itself
  and ``resources/subscribe``;
- the TypeScript client v2 at 2026-07-28, through ``client.listen``.

Every notification read off the wire is validated against its version's schema. Then the
held streams' budget over HTTP (a listener past ``MAX_STREAMS`` is refused at once while a
plain request is still served), and a gunicorn sync worker, which holds no stream and says so.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client.subscriptions import PromptsListChanged, ResourceUpdated, ToolsListChanged

from tests.conformance_app.server import DATABASE_ENV, REPO, migrated_database, running, serve
from tests.interop.test_results_clients import node_dir
from tests.sdk import StreamingWire, connect
from tests.wire import validate_notification as valid
from tests.wire import validator

pytestmark = pytest.mark.e2e

SETTINGS = "tests.conformance_app.settings"
MODERN = "2026-07-28"
WATCHED = "test://watched-resource"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
EVENT_STREAM = "text/event-stream"
#: Seconds a client waits for what it should hear (the watcher polls every second).
BOUND = 10


#: Run by ``manage.py shell`` on the served database and cache: what staff (the admin) and
#: the project's code (``resource_updated``) do, in another process than the server's.
CHANGE = """
from mcp_tools.models import ExposedTool
from mcp_tools.resources.stamps import resource_updated
row = ExposedTool.objects.get(name={tool!r})
row.enabled = False
row.save()
resource_updated({uri!r})
"""


class Served:
    """A running server: its MCP URL, and the environment another process needs to change
    what it serves (the same SQLite file and shared cache)."""

    def __init__(self, kind: str, url: str, env: dict[str, str]) -> None:
        self.kind = kind
        self.url = url
        self.env = env

    def change(self, tool: str, uri: str = WATCHED) -> None:
        """Disable ``tool`` and stamp ``uri``, from a process of their own."""
        code = CHANGE.format(tool=tool, uri=uri)
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr


@contextmanager
def served(kind: str, threads: int = 1, env: dict[str, str] | None = None) -> Iterator[Served]:
    """A server of ``kind`` over a database and cache of its own, which ``Served.change``
    reaches too."""
    folder = Path(tempfile.mkdtemp(prefix="mcp-tools-subscriptions-"))
    try:
        database = migrated_database(SETTINGS, folder)
        environ = {"MCP_TESTS_CACHE": str(folder / "cache"), **(env or {})}
        with serve(kind, SETTINGS, environ, database, workers=1, threads=threads) as base:
            other = {
                **os.environ,
                **environ,
                "DJANGO_SETTINGS_MODULE": SETTINGS,
                DATABASE_ENV: str(database),
            }
            yield Served(kind, f"{base}/mcp", other)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["gunicorn", "uvicorn"], scope="module")
def server(request):
    """gunicorn with one gthread worker of four threads (a threaded WSGI server holds
    listeners' streams), and uvicorn (ASGI)."""
    with served(request.param, threads=4) as running:
        yield running


def sse_messages(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an SSE body."""
    return [
        json.loads(line[len("data:") :])
        for line in body.decode().splitlines()
        if line.startswith("data:")
    ]


def methods(messages: list[dict[str, Any]]) -> list[str]:
    return [message["method"] for message in messages]


# -- 1. The Python SDK at 2026-07-28 ----------------------------------------------------------


async def python_listens(server: Served, tool: str) -> dict[str, Any]:
    """Listen with the Python SDK while another process changes the tool and the resource;
    return what it negotiated, was acknowledged, heard, and what came on the wire."""
    wire = StreamingWire()
    heard: list[Any] = []
    async with connect(server.url, wire=wire) as client:
        version = client.protocol_version
        capabilities = client.server_capabilities
        async with client.listen(
            tools_list_changed=True, resource_subscriptions=[WATCHED]
        ) as subscription:
            honored = subscription.honored
            changing = asyncio.create_task(asyncio.to_thread(server.change, tool))

            async def hear() -> None:
                async for event in subscription:
                    heard.append(event)
                    kinds = {type(each) for each in heard}
                    if {ToolsListChanged, ResourceUpdated} <= kinds:
                        return

            started = time.monotonic()
            with suppress(TimeoutError):
                await asyncio.wait_for(hear(), BOUND)
            heard_in = time.monotonic() - started
            await changing
        listed = [tool.name for tool in (await client.list_tools()).tools]
    listens = [
        exchange
        for exchange in wire.exchanges
        if (exchange[0] or {}).get("method") == "subscriptions/listen"
    ]
    return {
        "version": version,
        "capabilities": capabilities,
        "honored": honored,
        "heard": heard,
        "heard_in": heard_in,
        "listed": listed,
        "listens": listens,
    }


def test_the_python_sdk_hears_a_tool_disabled_and_a_resource_updated_in_another_process(server):
    report = asyncio.run(python_listens(server, "test_simple_text"))
    assert report["version"] == MODERN
    assert report["capabilities"].tools.list_changed is True
    assert report["capabilities"].resources.subscribe is True
    assert report["honored"].tools_list_changed is True
    assert report["honored"].resource_subscriptions == [WATCHED]
    heard = report["heard"]
    assert any(isinstance(event, ToolsListChanged) for event in heard), heard
    assert [event.uri for event in heard if isinstance(event, ResourceUpdated)] == [WATCHED]
    assert "test_simple_text" not in report["listed"]  # what it heard is so
    # The wire, as the SDK read it: the acknowledgement first, then the two notifications,
    # each stamped with the listen's id, each valid at 2026-07-28.
    [(request, status, content_type, body)] = report["listens"]
    assert (status, content_type.split(";")[0]) == (200, EVENT_STREAM)
    messages = [valid(MODERN, message) for message in sse_messages(body)]
    assert methods(messages)[0] == "notifications/subscriptions/acknowledged"
    assert sorted(methods(messages)[1:]) == [
        "notifications/resources/updated",
        "notifications/tools/list_changed",
    ]
    for message in messages:
        assert message["params"]["_meta"] == {SUBSCRIPTION_ID: request["id"]}
    assert messages[0]["params"]["notifications"] == {
        "toolsListChanged": True,
        "resourceSubscriptions": [WATCHED],
    }


async def python_hears_another_client(server: Served) -> tuple[list[Any], list[str]]:
    """Listen for the prompt list with the Python SDK while a second client calls the
    conformance app's ``test_trigger_prompt_change``; return what the listener heard and the
    prompts it then lists."""
    heard: list[Any] = []
    async with connect(server.url) as listener, connect(server.url) as other:
        async with listener.listen(prompts_list_changed=True) as subscription:
            assert subscription.honored.prompts_list_changed is True
            called = await other.call_tool("test_trigger_prompt_change", {})
            assert not called.is_error, called

            async def hear() -> None:
                async for event in subscription:
                    heard.append(event)
                    return

            with suppress(TimeoutError):
                await asyncio.wait_for(hear(), BOUND)
        prompts = [prompt.name for prompt in (await listener.list_prompts()).prompts]
    return heard, prompts


def test_the_python_sdk_hears_a_prompt_another_client_added(server):
    heard, prompts = asyncio.run(python_hears_another_client(server))
    assert [type(event) for event in heard] == [PromptsListChanged]
    assert "test_changing_prompt" in prompts


# -- 2. and 3. The TypeScript SDK 1.x (handshake era) and client v2 (2026-07-28) ---------------


def node_follows(script: str, server: Served, tool: str, home: Path) -> tuple:
    """Run ``tests/js/<script>`` against ``server``; once it says it is ready (its stream is
    open), make the change from another process, and return what the script said when
    ready and its report."""
    root = node_dir()
    process = subprocess.Popen(
        [str(root / "node_modules" / ".bin" / "node"), str(REPO / "tests" / "js" / script)]
        + [server.url, WATCHED, str((BOUND + 5) * 1000)],
        env={**os.environ, "NODE_PATH": str(root / "node_modules"), "HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()  # the script's own deadline bounds it
        if not line:
            _, errors = process.communicate(timeout=30)
            pytest.fail(f"{script} stopped before it was ready: {errors}")
        ready = json.loads(line)
        server.change(tool)
        out, errors = process.communicate(timeout=60)
        assert process.returncode == 0, errors
        return ready, json.loads(out.strip().splitlines()[-1])
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_typescript_sdk_hears_changes_on_its_get_stream(server, tmp_path):
    # No pause between resources/subscribe and the update: the GET stream hears of an update
    # made before the watcher next reads the caller's set.
    ready, report = node_follows("watch_changes.cjs", server, "test_image_content", tmp_path)
    # The SDK's GET stream opened (its status and headers came) as soon as it asked.
    assert ready["gets"] == [200]
    assert ready["getOpenedMs"] < 2000
    assert ready["subscribed"] == {}
    version = report["protocolVersion"]
    assert version in ("2025-06-18", "2025-11-25")
    assert report["capabilities"]["tools"] == {"listChanged": True}
    assert report["capabilities"]["resources"]["subscribe"] is True
    assert report["gets"] == [200]  # one GET stream, kept open throughout
    handled = report["handled"]
    assert [n["method"] for n in handled["tools"]] == ["notifications/tools/list_changed"]
    assert [n["params"]["uri"] for n in handled["updated"]] == [WATCHED]
    raw = [valid(version, message) for message in report["raw"]]
    assert sorted(methods(raw)) == [
        "notifications/resources/updated",
        "notifications/tools/list_changed",
    ]
    updated = next(m for m in raw if m["method"] == "notifications/resources/updated")
    assert updated["params"] == {"uri": WATCHED}  # no subscription id: no listen opened it


def test_the_typescript_client_v2_hears_changes_through_listen(server, tmp_path):
    ready, report = node_follows("listen_changes.cjs", server, "test_audio_content", tmp_path)
    expected = {"toolsListChanged": True, "resourceSubscriptions": [WATCHED]}
    assert ready["honored"] == expected
    assert report["protocolVersion"] == MODERN
    assert report["capabilities"]["tools"] == {"listChanged": True}
    assert ["subscriptions/listen", 200] in report["posts"]
    handled = report["handled"]
    assert [n["method"] for n in handled["tools"]] == ["notifications/tools/list_changed"]
    assert [n["params"]["uri"] for n in handled["updated"]] == [WATCHED]
    raw = [valid(MODERN, message) for message in report["raw"]]
    assert methods(raw)[0] == "notifications/subscriptions/acknowledged"
    assert raw[0]["params"]["notifications"] == expected
    assert sorted(methods(raw)[1:]) == [
        "notifications/resources/updated",
        "notifications/tools/list_changed",
    ]
    assert len({json.dumps(m["params"]["_meta"]) for m in raw}) == 1  # one listen's id
    assert all(SUBSCRIPTION_ID in m["params"]["_meta"] for m in raw)
    assert report["closed"] == "local"


# -- 4. The held streams' budget over HTTP -----------------------------------------------------

#: MAX_STREAMS of the budget's server; every client here is the same anonymous caller
#: (127.0.0.1), whose share is set above it so that the process's bound is the one met.
STREAMS = 2
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def modern_post(method: str, request_id: int, params: dict[str, Any] | None = None) -> dict:
    """The arguments of an httpx POST of ``method`` at 2026-07-28."""
    return {
        "headers": {
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": method,
            "Accept": f"application/json, {EVENT_STREAM}",
            "Content-Type": "application/json",
        },
        "content": json.dumps(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": method,
                "params": {**(params or {}), "_meta": MODERN_META},
            }
        ),
    }


def listen_post(request_id: int) -> dict:
    return modern_post(
        "subscriptions/listen", request_id, {"notifications": {"toolsListChanged": True}}
    )


@pytest.fixture(scope="module")
def budget_server():
    env = {"MCP_TOOLS_MAX_STREAMS": str(STREAMS), "MCP_TOOLS_MAX_STREAMS_PER_CALLER": "10"}
    with served("gunicorn", threads=4, env=env) as running:
        yield running


def first_event(lines: Iterator[str]) -> dict[str, Any]:
    for line in lines:
        if line.startswith("data:"):
            return json.loads(line[len("data:") :])
    raise AssertionError("the stream ended before its first event")


def test_past_max_streams_a_listener_is_refused_at_once_and_others_are_served(budget_server):
    url = budget_server.url
    with ExitStack() as held:
        for number in range(STREAMS):
            client = held.enter_context(httpx2.Client(timeout=BOUND))
            response = held.enter_context(client.stream("POST", url, **listen_post(number + 1)))
            assert response.status_code == 200
            assert response.headers["content-type"].startswith(EVENT_STREAM)
            ack = valid(MODERN, first_event(response.iter_lines()))
            assert ack["method"] == "notifications/subscriptions/acknowledged"
            assert ack["params"]["_meta"] == {SUBSCRIPTION_ID: number + 1}
        with httpx2.Client(timeout=BOUND) as third:
            started = time.monotonic()
            refused = third.post(url, **listen_post(99))
            refused_in = time.monotonic() - started
        with httpx2.Client(timeout=BOUND) as other:
            started = time.monotonic()
            listed = other.post(url, **modern_post("tools/list", 100))
            listed_in = time.monotonic() - started
    print(f"\nrefused in {refused_in:.3f} s, tools/list in {listed_in:.3f} s")
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "15"
    answer = refused.json()
    validator(MODERN, "JSONRPCErrorResponse").validate(answer)
    assert answer["id"] == 99
    assert answer["error"]["code"] == -32029
    assert f"MAX_STREAMS: {STREAMS}" in answer["error"]["message"]
    assert refused_in < 1
    assert listed.status_code == 200
    assert any(t["name"] == "test_trigger_tool_change" for t in listed.json()["result"]["tools"])
    assert listed_in < 1


# -- 5. A gunicorn sync worker holds no stream ------------------------------------------------


def test_a_gunicorn_sync_worker_says_its_lists_dont_change_and_opens_no_stream():
    with served("gunicorn", threads=1) as sync:
        version = "2025-06-18"
        headers = {"Accept": f"application/json, {EVENT_STREAM}"}
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "django-mcp-tools-tests", "version": "1.0.0"},
            },
        }
        answer = httpx2.post(sync.url, json=initialize, headers=headers, timeout=BOUND)
        got = httpx2.get(
            sync.url,
            headers={"Accept": EVENT_STREAM, "MCP-Protocol-Version": version},
            timeout=BOUND,
        )
        listen = httpx2.post(sync.url, timeout=BOUND, **listen_post(2))
    capabilities = answer.json()["result"]["capabilities"]
    assert capabilities["tools"] == {"listChanged": False}
    assert capabilities["resources"]["subscribe"] is False
    assert (got.status_code, got.headers["Allow"]) == (405, "POST")
    assert listen.json()["error"]["code"] == -32601


# -- 6. A stopping worker ends its listeners gracefully ----------------------------------------


def test_a_stopping_gunicorn_worker_ends_its_listeners_with_their_result_and_exits_at_once(
    tmp_path,
):
    """SIGTERM to gunicorn: its gthread worker stops taking requests, each listen stream ends
    with its result (the spec's graceful end: the client listens again elsewhere), and the
    worker exits then, not after its graceful timeout (30 s) of streams that never end."""
    database = migrated_database(SETTINGS, tmp_path)
    env = {"MCP_TESTS_CACHE": str(tmp_path / "cache")}
    with running("gunicorn", SETTINGS, env, database, threads=4) as (base, process):
        with (
            httpx2.Client(timeout=BOUND) as client,
            client.stream("POST", f"{base}/mcp", **listen_post(7)) as response,
        ):
            lines = response.iter_lines()
            assert first_event(lines)["method"] == "notifications/subscriptions/acknowledged"
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            ended = first_event(lines)
        process.wait(timeout=10)
        stopped_in = time.monotonic() - started
    validator(MODERN, "SubscriptionsListenResultResponse").validate(ended)
    assert ended["id"] == 7
    assert ended["result"]["resultType"] == "complete"
    assert ended["result"]["_meta"][SUBSCRIPTION_ID] == 7
    assert stopped_in < 5, stopped_in
