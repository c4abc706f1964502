"""Scale-out: two server instances share only PostgreSQL and Redis, and no session is sticky.

Two gunicorn processes (sync workers) serve tests/scale_settings.py on two ports; the
official MCP Python SDK sends each HTTP request to the next instance in turn, so every
exchange of one MCP conversation lands on the other instance than the one before it.

To add a scenario: take ``cluster``, make a user with ``cluster.user()``, talk through
``cluster.connect(token)`` (or to one instance through ``cluster.urls[i]``), and read
``router.served`` to see which instance answered which request.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import mcp_types
import psycopg
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from tests.conformance_app.server import REPO, free_port
from tests.helpers import admin_action
from tests.sdk import Wire, listed_and_called
from tests.services import Postgres, Redis, stop, wait_until_ready
from tests.wire import validate_exchange

SETTINGS = "tests.scale_settings"
INSTANCES = 2
# The demo's database-backed tools and a throttled one of the test app.
TOOLS = {"todo_create", "todo_retrieve", "todo_list", "limited"}


# The cluster --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Served:
    """One HTTP request of a conversation: which instance got it, and what it said."""

    instance: int
    message: Any
    headers: httpx2.Headers

    @property
    def method(self) -> str | None:
        return self.message.get("method") if isinstance(self.message, dict) else None

    @property
    def tool(self) -> str | None:
        if self.method != "tools/call":
            return None
        return self.message["params"]["name"]


class RoundRobin(httpx2.AsyncBaseTransport):
    """Send each request to the next instance in turn: two in a row never reach the same one.

    The request is re-addressed in place, so ``response.request.url`` (seen by event hooks,
    such as tests.sdk.Wire's) names the instance that really answered.
    """

    def __init__(self, urls: tuple[str, ...]) -> None:
        self.targets = [httpx2.URL(url) for url in urls]
        self.served: list[Served] = []
        self._turns = itertools.cycle(range(len(urls)))
        self._transport = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        index = next(self._turns)
        target = self.targets[index]
        request.url = request.url.copy_with(host=target.host, port=target.port)
        request.headers["Host"] = f"{target.host}:{target.port}"
        message = json.loads(request.content) if request.content else None
        response = await self._transport.handle_async_request(request)
        self.served.append(Served(index, message, response.headers))
        return response

    async def aclose(self) -> None:
        await self._transport.aclose()

    def responders(self) -> list[int]:
        """Return the instances that took the client's responses (to the server's requests)."""
        return [
            served.instance
            for served in self.served
            if isinstance(served.message, dict) and "id" in served.message and not served.method
        ]

    def instances_of(self, *, method: str | None = None, tool: str | None = None) -> list[int]:
        """Return the instances that answered the requests of ``method`` (or of ``tool``)."""
        return [
            served.instance
            for served in self.served
            if (method is None or served.method == method) and (tool is None or served.tool == tool)
        ]


@dataclass(frozen=True)
class User:
    """A user made in the shared database, with the key of its DRF token."""

    pk: int
    username: str
    password: str
    token: str


@dataclass
class Cluster:
    """The running instances (base URLs, in turn order) and the environment they run in."""

    urls: tuple[str, ...]
    environ: dict[str, str]
    postgres: Postgres
    redis: Redis

    def user(self, *, staff: bool = False, superuser: bool = False) -> User:
        """Create a user and its token in the shared database, as the instances see it."""
        username = f"user-{secrets.token_hex(4)}"
        password = secrets.token_hex(8)
        fields = {
            "username": username,
            "password": password,
            "is_staff": staff or superuser,
            "is_superuser": superuser,
        }
        out = django_run(self.environ, CREATE_USER, json.dumps(fields))
        pk, token = out.split()
        return User(int(pk), username, password, token)

    @asynccontextmanager
    async def connect(
        self,
        token: str | None = None,
        *,
        mode: str = "auto",
        wire: Wire | None = None,
        **client_options: Any,
    ) -> AsyncIterator[tuple[Client, RoundRobin]]:
        """Yield an ``mcp.Client`` whose every HTTP request goes to the next instance.

        ``client_options`` go to ``mcp.Client`` (its elicitation callback, say).
        """
        async with round_robin(self.urls, token, mode=mode, wire=wire, **client_options) as pair:
            yield pair


@asynccontextmanager
async def round_robin(
    urls: tuple[str, ...],
    token: str | None = None,
    *,
    mode: str = "auto",
    wire: Wire | None = None,
    **client_options: Any,
) -> AsyncIterator[tuple[Client, RoundRobin]]:
    """Yield an ``mcp.Client`` of the endpoint at each of ``urls`` whose every HTTP request
    goes to the next instance, and the router that sends them."""
    router = RoundRobin(urls)
    headers = {"Authorization": f"Token {token}"} if token else {}
    hooks = {"response": [wire.hook]} if wire is not None else {}
    http = httpx2.AsyncClient(transport=router, headers=headers, event_hooks=hooks, timeout=30)
    transport = streamable_http_client(f"{urls[0]}/mcp", http_client=http)
    async with http, Client(transport, mode=mode, **client_options) as client:
        yield client, router


CREATE_USER = """
import json, sys
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_user(**json.loads(sys.argv[1]))
print(user.pk, Token.objects.create(user=user).key)
"""


def django_run(environ: dict[str, str], code: str, *args: str) -> str:
    """Run ``code`` in a Django process of the scale-out settings; return its output."""
    prelude = "import django; django.setup()\n"
    return _run([sys.executable, "-c", prelude + code, *args], environ, "a Django script")


def manage(environ: dict[str, str], *args: str) -> str:
    """Run a management command with the scale-out settings; return its output."""
    return _run([sys.executable, "manage.py", *args], environ, f"manage.py {args[0]}")


def _run(command: list[str], environ: dict[str, str], what: str) -> str:
    done = subprocess.run(
        command, cwd=REPO, env=environ, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{what} exited with {done.returncode}:\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def scale_environ(postgres: Postgres, redis: Redis) -> dict[str, str]:
    """Return the environment of the scale-out project, its database migrated (once)."""
    environ = {
        **os.environ,
        **postgres.environ(),
        **redis.environ(),
        "DJANGO_SETTINGS_MODULE": SETTINGS,
    }
    manage(environ, "migrate", "--noinput", "-v", "0")
    return environ


def _ready(url: str) -> bool:
    try:
        httpx2.get(f"{url}/mcp", timeout=2)
    except httpx2.TransportError:
        return False
    return True


#: Each instance's gunicorn worker: one sync worker, which holds no listener's stream.
SYNC = ("--worker-class", "sync")
#: One threaded worker (gthread), which holds listeners' streams (docs/subscriptions.md).
#: Stopped, it waits ``--graceful-timeout`` for the streams it holds, whose clients left:
#: each finds so at its next keep-alive (15 s), so it is told to wait 2 s, not gunicorn's 30.
THREADED = ("--worker-class", "gthread", "--threads", "4", "--graceful-timeout", "2")


@contextmanager
def instances(
    environ: dict[str, str], postgres: Postgres, redis: Redis, worker: tuple[str, ...]
) -> Iterator[Cluster]:
    """Yield two gunicorn instances (one ``worker`` each) of the scale-out project.

    Both start at once, to halve the wait; each is ready when it answers HTTP, not when its
    port is bound (gunicorn binds before its worker has imported Django). Both are stopped
    by their PIDs at the end.
    """
    logdir = Path(tempfile.mkdtemp(prefix="mcp-tools-scale-"))
    processes: list[subprocess.Popen] = []
    urls, logs = [], []
    try:
        for index in range(INSTANCES):
            port = free_port()
            log = logdir / f"gunicorn-{index}.log"
            command = [
                *(sys.executable, "-m", "gunicorn", "django.core.wsgi:get_wsgi_application()"),
                *worker,
                *("--workers", "1", "--timeout", "60"),
                *("--bind", f"127.0.0.1:{port}", "--log-level", "warning"),
            ]
            with log.open("wb") as out:
                processes.append(
                    subprocess.Popen(
                        command, cwd=REPO, env=environ, stdout=out, stderr=subprocess.STDOUT
                    )
                )
            urls.append(f"http://127.0.0.1:{port}")
            logs.append(log)
        for process, url, log in zip(processes, urls, logs, strict=True):
            wait_until_ready(process, partial(_ready, url), log, f"gunicorn at {url}")
        yield Cluster(tuple(urls), environ, postgres, redis)
    finally:
        for process in processes:
            stop(process)
        for log in logs:
            log.unlink(missing_ok=True)
        logdir.rmdir()


@pytest.fixture(scope="session")
def cluster(scale_environ: dict[str, str], postgres: Postgres, redis: Redis) -> Iterator[Cluster]:
    """Yield two gunicorn instances, one sync worker each: no instance holds a listener."""
    with instances(scale_environ, postgres, redis, SYNC) as running:
        yield running


@pytest.fixture(scope="session")
def threaded_cluster(
    scale_environ: dict[str, str], postgres: Postgres, redis: Redis
) -> Iterator[Cluster]:
    """Yield two more gunicorn instances, one gthread worker each, that hold listeners.

    A pair of their own: ``cluster``'s scenarios are of sync workers, whose only thread a
    held stream takes (the handshake-era ask handed over through Redis), and whose
    capabilities promise no list change."""
    with instances(scale_environ, postgres, redis, THREADED) as running:
        yield running


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def modern_call(url: str, token: str, name: str, **params: Any) -> dict[str, Any]:
    """POST one 2026-07-28 ``tools/call`` of ``name`` (a client that declares elicitation)
    to the instance at ``url``; return its result, its exchange checked against the schema."""
    from mcp_tools.test import MCPClient

    shaper = MCPClient(protocol_version="2026-07-28", client_capabilities={"elicitation": {}})
    message = shaper.message("tools/call", {"name": name, **params})
    headers = {**shaper.headers_for(message), "Authorization": f"Token {token}"}
    response = httpx2.post(f"{url}/mcp", json=message, headers=headers, timeout=30)
    validate_exchange("2026-07-28", message, response.status_code, response.content)
    return response.json()["result"]


def destroy_a_todo_confirmed(call: Any, *, asking: str, accepting: str) -> dict[str, Any]:
    """Create a todo and destroy it at 2026-07-28 through ``call(url, name, **params)``: its
    confirmation asked by the instance at ``asking``, accepted at ``accepting``, where the
    view runs. Return the accepted retry's params, for a replay."""
    from mcp_tools.inputs.asks import CONFIRM_KEY

    todo = call(asking, "todo_create", arguments={"title": "Once"})["structuredContent"]
    arguments = {"pk": todo["id"]}
    asked = call(asking, "todo_destroy", arguments=arguments)
    assert list(asked["inputRequests"]) == [CONFIRM_KEY]
    accepted = {
        "arguments": arguments,
        "inputResponses": {CONFIRM_KEY: {"action": "accept"}},
        "requestState": asked["requestState"],
    }
    done = call(accepting, "todo_destroy", **accepted)
    assert done["resultType"] == "complete" and done["isError"] is False, done
    return accepted


def destroy_asked_on_one_answered_on_the_other(urls: tuple[str, ...], token: str) -> dict:
    """Create a todo and destroy it in 2025-11-25 through ``round_robin(urls)``: the call's
    stream is held by one instance's only worker, and the client's answer to its
    confirmation goes to the other, which hands it over. Return the todo."""
    asked = []

    async def elicitation(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept")

    async def scenario():
        async with round_robin(urls, token, mode="legacy", elicitation_callback=elicitation) as (
            client,
            router,
        ):
            todo = (await client.call_tool("todo_create", {"title": "Asked"})).structured_content
            deleted = await client.call_tool("todo_destroy", {"pk": todo["id"]})
            return todo, deleted, router

    todo, deleted, router = run(scenario())
    assert deleted.is_error is False, deleted
    assert asked == [f"Delete todo {todo['id']}? This cannot be undone."]
    [streaming] = router.instances_of(tool="todo_destroy")
    [answering] = router.responders()
    assert streaming != answering
    assert_not_sticky(router)
    return todo


def validate_wire(version: str, wire: Wire) -> None:
    """Check every exchange of the conversation against the negotiated version's schema."""
    posts = wire.posts()
    assert posts
    for message, status, _, body in posts:
        validate_exchange(version, message, status, body)


def assert_not_sticky(router: RoundRobin) -> None:
    """Check that requests took turns and that no answer tried to pin the client."""
    assert [served.instance for served in router.served] == [
        turn % INSTANCES for turn in range(len(router.served))
    ]
    for served in router.served:
        assert "mcp-session-id" not in served.headers, served
        assert "set-cookie" not in served.headers, served


# The scenarios ------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_a_conversation_alternating_between_instances_reads_what_the_other_wrote(
    cluster, mode, version
):
    user = cluster.user()
    wire = Wire()

    async def scenario():
        async with cluster.connect(user.token, mode=mode, wire=wire) as (client, router):
            assert client.session.protocol_version == version
            listed = await client.list_tools()
            assert {tool.name for tool in listed.tools} >= TOOLS
            created = await client.call_tool("todo_create", {"title": "Written on one"})
            assert created.is_error is False, created
            todo = created.structured_content
            fetched = await client.call_tool("todo_retrieve", {"pk": todo["id"]})
            assert fetched.is_error is False, fetched
            listed_todos = await client.call_tool("todo_list")
            assert listed_todos.is_error is False, listed_todos
            return todo, fetched.structured_content, listed_todos.structured_content, router

    todo, fetched, items, router = run(scenario())
    assert fetched == todo
    items = items if version == "2026-07-28" else items["items"]
    assert [item["id"] for item in items] == [todo["id"]]
    # The row was written by one instance and read back by the other.
    [wrote] = router.instances_of(tool="todo_create")
    [read] = router.instances_of(tool="todo_retrieve")
    assert wrote != read
    assert set(router.instances_of(method="tools/call")) == set(range(INSTANCES))
    assert_not_sticky(router)
    validate_wire(version, wire)
    # ... and it is in the private PostgreSQL, not in some per-process database.
    with psycopg.connect(cluster.postgres.conninfo()) as connection:
        row = connection.execute(
            "SELECT title, owner_id FROM todos_todo WHERE id = %s", [todo["id"]]
        ).fetchone()
    assert row == ("Written on one", user.pk)


def test_a_views_throttle_counts_the_calls_of_every_instance_in_the_shared_cache(cluster):
    # The tool `limited` allows two calls a minute per user. Its counter lives in the default
    # cache: with one cache per process the third call, on the first instance again, would
    # be that instance's second and pass.
    user = cluster.user()
    wire = Wire()

    async def scenario():
        async with cluster.connect(user.token, wire=wire) as (client, router):
            results = [await client.call_tool("limited") for _ in range(3)]
            return results, router

    results, router = run(scenario())
    assert [result.is_error for result in results] == [False, False, True]
    assert "throttled" in results[2].content[0].text
    assert set(router.instances_of(tool="limited")) == set(range(INSTANCES))
    assert_not_sticky(router)
    validate_wire("2026-07-28", wire)
    redis = cluster.redis.client()
    try:
        assert redis.keys(f"*throttle_limited_{user.pk}") != []
    finally:
        redis.close()


def test_an_input_required_call_started_on_one_instance_completes_on_the_other(cluster):
    # todo_destroy asks its user first (docs/input.md): the first round is answered by one
    # instance, the retry with the answer and the signed requestState by the other. Nothing
    # was stored between them: the state travelled through the client.
    user = cluster.user()
    wire = Wire()
    asked = []

    async def elicitation(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept")

    async def scenario():
        async with cluster.connect(user.token, wire=wire, elicitation_callback=elicitation) as (
            client,
            router,
        ):
            created = await client.call_tool("todo_create", {"title": "Done on both"})
            todo = created.structured_content
            deleted = await client.call_tool("todo_destroy", {"pk": todo["id"]})
            return todo, deleted, router

    todo, deleted, router = run(scenario())
    assert deleted.is_error is False, deleted
    assert asked == [f"Delete todo {todo['id']}? This cannot be undone."]
    asking, completing = router.instances_of(tool="todo_destroy")
    assert asking != completing
    rounds = [
        json.loads(body)["result"]["resultType"]
        for message, _, _, body in wire.posts()
        if message.get("method") == "tools/call" and message["params"]["name"] == "todo_destroy"
    ]
    assert rounds == ["input_required", "complete"]
    assert_not_sticky(router)
    validate_wire("2026-07-28", wire)
    with psycopg.connect(cluster.postgres.conninfo()) as connection:
        row = connection.execute("SELECT 1 FROM todos_todo WHERE id = %s", [todo["id"]]).fetchone()
    assert row is None


def test_a_handshake_era_ask_is_answered_on_the_other_instance(cluster):
    # The answer reaches the instance that asked through Redis.
    todo = destroy_asked_on_one_answered_on_the_other(cluster.urls, cluster.user().token)
    with psycopg.connect(cluster.postgres.conninfo()) as connection:
        row = connection.execute("SELECT 1 FROM todos_todo WHERE id = %s", [todo["id"]]).fetchone()
    assert row is None


def test_an_admin_change_made_through_one_instance_is_seen_by_the_other_within_the_max_age(
    cluster,
):
    # Through the admin of the first instance, signed in as a person would; then the
    # requests that reach the second instance (its catalog warm from before) see it within
    # ADMIN_STATE_MAX_AGE (1 s), the time a process trusts the stamp it read.
    user = cluster.user()
    admin = cluster.user(superuser=True)
    first, second = cluster.urls
    wire = Wire()

    def on(url):
        return listed_and_called(f"{url}/mcp", user.token, "todo_list", wire)

    names, listed = run(on(second))
    assert "todo_list" in names and listed.is_error is False

    admin_action(first, "todo_list", "disable_tools", (admin.username, admin.password))
    time.sleep(1.1)
    names, refused = run(on(second))
    assert "todo_list" not in names
    assert isinstance(refused, MCPError) and refused.message == "Unknown tool: todo_list"

    admin_action(second, "todo_list", "enable_tools", (admin.username, admin.password))
    time.sleep(1.1)
    names, listed = run(on(first))
    assert "todo_list" in names and listed.is_error is False
    validate_wire("2026-07-28", wire)
    # The stamp that told them is in Redis, the change in PostgreSQL.
    redis = cluster.redis.client()
    try:
        assert [key for key in redis.keys("*") if b"mcp_tools" in key] != []
    finally:
        redis.close()
    with psycopg.connect(cluster.postgres.conninfo()) as connection:
        [(enabled,)] = connection.execute(
            "SELECT enabled FROM mcp_tools_exposedtool WHERE name = 'todo_list'"
        ).fetchall()
    assert enabled is True


def test_an_accepted_confirmation_runs_the_view_once_whichever_instance_gets_the_replay(
    cluster,
):
    # todo_destroy asks first. Accepted on one instance, it runs there; the same accepted
    # retry sent again, to either instance, asks the user again: the spent acceptance is
    # remembered in the shared Redis (docs/input.md), not in the process that ran it.
    from mcp_tools.inputs.asks import CONFIRM_KEY

    user = cluster.user()
    first, second = cluster.urls

    def call(url, name, **params):
        return modern_call(url, user.token, name, **params)

    accepted = destroy_a_todo_confirmed(call, asking=first, accepting=second)
    for url in (first, second, first):
        again = call(url, "todo_destroy", **accepted)
        assert list(again["inputRequests"]) == [CONFIRM_KEY], again


def test_an_endpoint_throttle_counts_every_call_of_every_batch_on_every_instance(cluster):
    # /mcp-throttled allows four requests a minute per user (tests/scale_urls.py), counted
    # in Redis. Four batches of five tools/call, alternating instances: four calls run.
    from mcp_tools.test import MCPClient

    user = cluster.user()
    shaper = MCPClient(protocol_version="2025-03-26")
    outcomes = []
    for turn in range(4):
        url = cluster.urls[turn % INSTANCES]
        batch = [shaper.message("tools/call", {"name": "todo_list"}) for _ in range(5)]
        headers = {**shaper.headers_for(batch), "Authorization": f"Token {user.token}"}
        response = httpx2.post(f"{url}/mcp-throttled", json=batch, headers=headers, timeout=30)
        if response.status_code == 429:
            outcomes.append("request refused")
            continue
        assert response.status_code == 200
        for message, answer in zip(batch, response.json(), strict=True):
            validate_exchange("2025-03-26", message, 200, json.dumps(answer).encode())
            outcomes.append("ran" if "result" in answer else answer["error"]["code"])
    assert outcomes[:5] == ["ran"] * 4 + [-32029]
    assert outcomes.count("ran") == 4
    assert set(outcomes[5:]) <= {-32029, "request refused"}


def test_a_nul_a_client_sends_loses_no_call_log_row_in_postgresql(cluster):
    # PostgreSQL stores no NUL in text or jsonb: a refused call whose argument name holds one
    # must neither be lost nor take the batch's other rows with it; nor may a client name.
    from mcp_tools.test import MCPClient

    user = cluster.user()
    batch = MCPClient(protocol_version="2025-03-26")
    messages = [
        batch.message("tools/call", {"name": "todo_retrieve", "arguments": arguments})
        for arguments in ({"bogus": 1}, {"bo\u0000gus": 2}, {"bogus": 3})
    ]
    headers = {**batch.headers_for(messages), "Authorization": f"Token {user.token}"}
    response = httpx2.post(f"{cluster.urls[0]}/mcp", json=messages, headers=headers, timeout=30)
    assert [answer["result"]["isError"] for answer in response.json()] == [True] * 3
    modern = MCPClient(protocol_version="2026-07-28")
    info = {"io.modelcontextprotocol/clientInfo": {"name": "sneaky\u0000", "version": "1"}}
    message = modern.message(
        "tools/call", {"name": "todo_retrieve", "arguments": {}, "_meta": info}
    )
    headers = {**modern.headers_for(message), "Authorization": f"Token {user.token}"}
    response = httpx2.post(f"{cluster.urls[1]}/mcp", json=message, headers=headers, timeout=30)
    assert response.json()["result"]["isError"] is True
    deadline = time.monotonic() + 30  # each instance's call-log writer writes its batch
    while True:
        with psycopg.connect(cluster.postgres.conninfo()) as connection:
            rows = connection.execute(
                "SELECT argument_names, client_name FROM mcp_tools_toolcall WHERE user_id = %s "
                "ORDER BY started_at",
                [user.pk],
            ).fetchall()
        if len(rows) >= 4 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert [names for names, _ in rows] == [["bogus"], ["bo\ufffdgus"], ["bogus"], []]
    assert rows[-1][1] == "sneaky\ufffd"


# Live changes across instances --------------------------------------------------------------

CREATE_TODO = """
import sys
from demo_project.todos.models import Todo
print(Todo.objects.create(owner_id=int(sys.argv[1]), title="Followed").pk)
"""

SAVE_TODO = """
import sys, time
from demo_project.todos.models import Todo
todo = Todo.objects.get(pk=int(sys.argv[1]))
todo.title = "Saved in another process"
todo.save()  # autocommit: its stamp is written and published before save() returns
print(time.time())
"""

#: The longest a listener may wait to hear of a change made on the other instance. With
#: Redis it hears at once (milliseconds); by polling alone it would be ADMIN_STATE_MAX_AGE.
HEARD_WITHIN = 5.0


def test_a_listener_on_one_instance_hears_changes_made_through_the_other_at_once(
    threaded_cluster, capsys
):
    # A 2026-07-28 client listens on the first instance only (no round robin): an admin
    # disables a tool through the second instance's admin, then another process saves the
    # listener's todo. Both reach the first instance through Redis pub/sub, well within
    # ADMIN_STATE_MAX_AGE, as the tools/list_changed and resources/updated of its stream.
    from mcp.shared.subscriptions import ResourceUpdated, ToolsListChanged

    from tests.sdk import connect

    cluster = threaded_cluster
    user = cluster.user()
    admin = cluster.user(superuser=True)
    first, second = cluster.urls
    pk = int(django_run(cluster.environ, CREATE_TODO, str(user.pk)))
    uri = f"todo://{pk}"
    credentials = (admin.username, admin.password)
    heard: list[tuple[float, Any]] = []

    async def next_event(events: asyncio.Queue) -> tuple[float, Any]:
        return await asyncio.wait_for(events.get(), timeout=HEARD_WITHIN)

    async def scenario():
        async with connect(f"{first}/mcp", token=user.token) as client:
            assert client.session.protocol_version == "2026-07-28"
            async with client.listen(tools_list_changed=True, resource_subscriptions=[uri]) as sub:
                assert sub.honored.tools_list_changed is True
                assert sub.honored.resource_subscriptions == [uri]
                events: asyncio.Queue = asyncio.Queue()

                async def hear():
                    async for event in sub:
                        events.put_nowait((time.time(), event))

                hearing = asyncio.create_task(hear())
                try:
                    started = time.time()
                    await asyncio.to_thread(
                        admin_action, second, "todo_list", "disable_tools", credentials
                    )
                    done = time.time()
                    at, event = await next_event(events)
                    heard.append(("tool disabled", started, done, at, event))
                    saved = float(
                        await asyncio.to_thread(django_run, cluster.environ, SAVE_TODO, str(pk))
                    )
                    at, event = await next_event(events)
                    heard.append(("todo saved", saved, saved, at, event))
                    await asyncio.sleep(0.5)
                    assert events.empty(), events.get_nowait()  # nothing more, once each
                finally:
                    hearing.cancel()

    try:
        run(scenario())
    finally:
        admin_action(second, "todo_list", "enable_tools", credentials)
    (_, disable_started, disabled, tool_heard, tool_event), saved_row = heard
    _, _, saved, todo_heard, todo_event = saved_row
    assert tool_event == ToolsListChanged()
    assert todo_event == ResourceUpdated(uri=uri)
    # The admin's change is published as its transaction commits, before its answer: heard
    # from the admin action's start (sign-in included) and from its end.
    assert tool_heard - disable_started < HEARD_WITHIN
    assert todo_heard - saved < HEARD_WITHIN
    with capsys.disabled():
        print(
            f"\nlisten on A: tools/list_changed {tool_heard - disabled:+.3f} s after B's admin "
            f"answered ({tool_heard - disable_started:.3f} s after its sign-in began); "
            f"resources/updated {todo_heard - saved:.3f} s after another process saved {uri}"
        )


def test_a_sync_worker_holds_no_listener_and_says_so(cluster):
    # gunicorn's sync worker has one thread: a held stream would take it. Its instance
    # refuses subscriptions/listen, whichever instance gets it (docs/subscriptions.md#servers).
    from tests.sdk import connect

    user = cluster.user()

    async def scenario():
        async with connect(f"{cluster.urls[0]}/mcp", token=user.token) as client:
            with pytest.raises(MCPError) as refused:
                async with client.listen(tools_list_changed=True):
                    pass  # pragma: no cover - never acknowledged
            return refused.value

    refused = run(scenario())
    assert refused.error.code == -32601, refused
    assert "single-threaded WSGI worker" in refused.error.message
