"""MCP tasks on Celery (mcp_tools.contrib.celery, docs/tasks.md#celery).

The unit tests publish for real, to kombu's in-memory broker, and run what a worker would
take off it; the last test runs a real ``celery worker`` on the private Redis of
tests/services.py beside a gunicorn, on one SQLite file.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from mcp_tools.contrib.celery.executor import CeleryExecutor
from mcp_tools.contrib.celery.tasks import NAME
from mcp_tools.models import ToolTask
from mcp_tools.tasks import store as tasks
from mcp_tools.test import MCPClient, MCPError
from tests.conformance_app.server import REPO, free_port, migrated_database, running
from tests.helpers import MODERN
from tests.processes import stop

EXTENSION = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
EXECUTOR = "mcp_tools.contrib.celery.executor.CeleryExecutor"


@pytest.fixture
def app():
    """A Celery app of its own, current for the test, on kombu's in-memory broker."""
    from celery import Celery
    from celery._state import get_current_app

    previous = get_current_app()
    made = Celery("mcp-tools-unit", set_as_current=True)
    made.conf.update(broker_url="memory://", broker_connection_retry_on_startup=True)
    taken(made)  # the memory broker is the process's: nothing left from another test
    yield made
    made.close()
    previous.set_current()


@pytest.fixture
def celery_tasks(settings, app):
    settings.ROOT_URLCONF = "tests.tasks_app.urls"
    settings.MCP_TOOLS = {"TASK_EXECUTOR": EXECUTOR, "TASK_IMMEDIATE_SECONDS": 0}
    tasks._executors.clear()
    yield settings
    tasks._executors.clear()


def taken(app) -> list[tuple[str, list]]:
    """Take every message waiting on the app's default queue: (task name, args) each."""
    messages = []
    with app.connection_for_read() as connection, connection.SimpleQueue("celery") as queue:
        while True:
            try:
                message = queue.get(block=False)
            except queue.Empty:
                return messages
            messages.append((message.headers["task"], message.payload[0]))
            message.ack()


def client_for(user, capabilities=EXTENSION, version=MODERN):
    return MCPClient(
        headers={"Authorization": f"Token {user.token}"},
        protocol_version=version,
        client_capabilities=capabilities,
    )


@pytest.mark.django_db(transaction=True)
class TestTheMessage:
    def test_it_is_sent_once_the_transaction_commits(self, app):
        executor = CeleryExecutor()
        with transaction.atomic():
            executor.enqueue("a1")
            assert taken(app) == []  # a worker would not find the row yet
        assert taken(app) == [(NAME, ["a1"])]

    def test_none_is_sent_when_the_transaction_rolls_back(self, app):
        executor = CeleryExecutor()
        with pytest.raises(RuntimeError), transaction.atomic():
            executor.enqueue("a1")
            raise RuntimeError("the row is not written")
        assert taken(app) == []

    def test_a_task_call_sends_its_id_and_the_workers_task_runs_it(self, celery_tasks, app, alice):
        agent = client_for(alice)
        handle = agent.call_tool("export_rows", {"rows": 2})
        assert handle["resultType"] == "task"
        ((name, args),) = taken(app)
        assert (name, args) == (NAME, [handle["taskId"]])  # the id only
        app.tasks[name](*args)  # what the worker runs for the message
        done = agent.rpc("tasks/get", {"taskId": handle["taskId"]})
        assert done["status"] == "completed"
        assert done["result"]["structuredContent"] == {"user": "alice", "lines": ["row 0", "row 1"]}

    def test_answered_input_sends_the_task_again(self, celery_tasks, app, alice):
        agent = client_for(alice, {**EXTENSION, "elicitation": {}})
        task_id = agent.call_tool("asking_task")["taskId"]
        ((name, args),) = taken(app)
        app.tasks[name](*args)
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "input_required"
        answer = {"name": {"action": "accept", "content": {"name": "Ada"}}}
        agent.rpc("tasks/update", {"taskId": task_id, "inputResponses": answer})
        ((name, args),) = taken(app)  # sent once the task is working again, committed
        app.tasks[name](*args)
        done = agent.rpc("tasks/get", {"taskId": task_id})
        assert done["result"]["structuredContent"] == {"greeting": "Hello, Ada!"}

    def test_in_eager_mode_a_call_is_answered_inline(self, celery_tasks, app, alice):
        # task_always_eager runs the task as it is sent, after the commit, in this thread:
        # within TASK_IMMEDIATE_SECONDS, so the call is answered as an inline one.
        app.conf.task_always_eager = True
        celery_tasks.MCP_TOOLS = {"TASK_EXECUTOR": EXECUTOR}
        result = client_for(alice).call_tool("export_rows", {"rows": 1})
        assert result["resultType"] == "complete"
        assert result["structuredContent"] == {"user": "alice", "lines": ["row 0"]}
        assert not ToolTask.objects.exists() and taken(app) == []


def test_the_app_must_be_installed(settings):
    # Without it no worker registers the task: every message would be dropped, unread.
    settings.INSTALLED_APPS = [
        name for name in settings.INSTALLED_APPS if name != "mcp_tools.contrib.celery"
    ]
    with pytest.raises(ImproperlyConfigured, match="add 'mcp_tools.contrib.celery'"):
        CeleryExecutor()


@pytest.fixture
def broker_down(celery_tasks, app):
    """The app's broker a closed port, its password one the client must never read; the
    default TASK_IMMEDIATE_SECONDS, within which the call sees its task failed."""
    celery_tasks.MCP_TOOLS = {"TASK_EXECUTOR": EXECUTOR}
    app.conf.broker_url = f"redis://:broker-secret@127.0.0.1:{free_port()}/0"
    app.conf.task_publish_retry_policy = {"max_retries": 1, "interval_start": 0}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("broker_down")
class TestABrokerOutage:
    def test_the_call_fails_and_no_task_is_left_working(self, alice, caplog):
        with pytest.raises(MCPError) as failed:
            client_for(alice).call_tool("export_rows", {"rows": 1})
        assert failed.value.code == -32603
        assert failed.value.message == "Internal error: the task could not be queued"
        reference = failed.value.data["errorRef"]
        assert "broker-secret" not in str(failed.value.data)
        assert not ToolTask.objects.filter(status="working").exists()
        (record,) = [r for r in caplog.records if reference in r.getMessage()]
        assert "could not be sent to Celery's broker" in record.getMessage()
        assert record.exc_info is not None  # the broker's error, with its traceback

    def test_a_2025_11_25_client_reads_the_failure_on_its_task(self, alice):
        legacy = client_for(alice, {"tasks": {}}, version="2025-11-25")
        created = legacy.rpc(
            "tools/call", {"name": "export_rows", "arguments": {"rows": 1}, "task": {}}
        )
        got = legacy.rpc("tasks/get", {"taskId": created["task"]["taskId"]})
        assert got["status"] == "failed"
        assert ToolTask.objects.get().error["message"] == (
            "Internal error: the task could not be queued"
        )


# -- A real worker -------------------------------------------------------------------------

SETTINGS = "tests.celery_settings"
#: Each server's entry point into the Celery test project.
ENTRY_POINTS = {
    "gunicorn": "tests.celery_web:application",
    "uvicorn": "tests.celery_web:asgi_application",
}
#: Bounds of every wait of the end-to-end test.
READY_TIMEOUT = 60.0
DONE_TIMEOUT = 60.0


def make_user(environ: dict[str, str], name: str = "alice") -> str:
    """Create the user ``name`` in the shared database; return a DRF token of theirs."""
    return django_run(environ, f"user = get_user_model().objects.create_user({name!r})")


def new_token(environ: dict[str, str], name: str) -> str:
    """Revoke ``name``'s DRF token (a regenerated key, as an admin would); return the new."""
    code = f"user = get_user_model().objects.get(username={name!r}); user.auth_token.delete()"
    return django_run(environ, code)


def django_run(environ: dict[str, str], code: str) -> str:
    """Run ``code`` (which binds ``user``) in a process of the shared settings; print a new
    token of that user's."""
    script = (
        "import django; django.setup()\n"
        "from django.contrib.auth import get_user_model\n"
        "from rest_framework.authtoken.models import Token\n"
        f"{code}\n"
        "print(Token.objects.create(user=user).key)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


@contextlib.contextmanager
def celery_worker(environ: dict[str, str], log: Path):
    """Run ``celery worker`` (one process, the solo pool) until it says it is ready; stop it
    by its PID on exit."""
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "tests.celery_app",
        "worker",
        "--pool=solo",
        "--concurrency=1",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=REPO, env=environ, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while b" ready." not in log.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        yield process
    finally:
        stop(process)


class Agent:
    """A client over HTTP: alice's at 2026-07-28 declaring the tasks extension by default;
    ``token=None`` an anonymous one, ``address`` the client address a proxy forwards."""

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        version: str = MODERN,
        address: str | None = None,
        path: str = "/mcp",
    ) -> None:
        self.url = f"{url}{path}"
        capabilities = EXTENSION if version == MODERN else {"tasks": {}}
        self.shaper = MCPClient(protocol_version=version, client_capabilities=capabilities)
        self.headers = {"Authorization": f"Token {token}"} if token else {}
        if address is not None:
            self.headers["X-Forwarded-For"] = address  # as the one proxy appends it

    def send(self, method: str, params: dict) -> dict:
        """Return the JSON-RPC answer to ``method``, from a JSON body or the last event."""
        message = self.shaper.message(method, params)
        headers = {**self.shaper.headers_for(message), **self.headers}
        response = httpx2.post(self.url, json=message, headers=headers, timeout=30)
        if response.headers["content-type"].startswith("text/event-stream"):
            events = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
            return json.loads(events[-1])
        return response.json()

    def rpc(self, method: str, params: dict) -> dict:
        body = self.send(method, params)
        assert "result" in body, body
        return body["result"]

    def error(self, method: str, params: dict) -> dict:
        body = self.send(method, params)
        assert "error" in body, body
        return body["error"]

    def task(self, name: str, arguments: dict | None = None, **task: int) -> dict:
        """Make a 2025-11-25 task of ``name`` (``task`` its param: a ttl); answer its handle."""
        params = {"name": name, "arguments": arguments or {}, "task": task}
        return self.rpc("tools/call", params)["task"]


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["gunicorn", "uvicorn"])
def test_a_real_celery_worker_runs_a_task_sent_while_it_was_down(kind, redis, tmp_path):
    database = migrated_database(SETTINGS, tmp_path)
    environ = {
        **os.environ,
        **redis.environ(),
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "MCP_TESTS_DATABASE": str(database),
        "MCP_TESTS_CACHE": str(tmp_path / "cache"),  # the admin state's stamp, shared
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    token = make_user(environ)
    shared = {key: environ[key] for key in ("MCP_TESTS_REDIS_URL", "MCP_TESTS_CACHE")}
    served = running(kind, SETTINGS, env=shared, database=database, application=ENTRY_POINTS[kind])
    with served as (url, _):
        agent = Agent(url, token)
        # No worker yet: the handle comes back, and the message waits in Redis.
        handle = agent.rpc(
            "tools/call", {"name": "export_rows", "arguments": {"rows": 3, "seconds": 1}}
        )
        assert handle["resultType"] == "task" and handle["status"] == "working"
        task_id = handle["taskId"]
        assert agent.rpc("tasks/get", {"taskId": task_id})["status"] == "working"
        with celery_worker(environ, tmp_path / "worker.log") as worker:
            deadline = time.monotonic() + DONE_TIMEOUT
            while (got := agent.rpc("tasks/get", {"taskId": task_id}))["status"] == "working":
                assert time.monotonic() < deadline, got
                time.sleep(handle["pollIntervalMs"] / 1000)
            assert got["status"] == "completed", got
            assert got["result"]["structuredContent"] == {
                "user": "alice",
                "lines": ["row 0", "row 1", "row 2"],
            }
            with contextlib.closing(sqlite3.connect(database)) as connection:
                (ran_by,) = connection.execute(
                    "SELECT worker FROM mcp_tools_tooltask WHERE id = ?", (task_id,)
                ).fetchone()
            assert ran_by.split(":")[1] == str(worker.pid)  # the solo pool: the worker itself


#: What the hardening test's server runs with: Redis the cache, two tasks a caller, clients
#: behind one proxy, and a short wait for a worker (none runs at first).
HARDENED = {
    "MCP_TESTS_REDIS_CACHE": "1",
    "MCP_TESTS_TASK_MAX_PER_CALLER": "2",
    "MCP_TESTS_NUM_PROXIES": "1",
    "MCP_TESTS_TASK_PICKUP_SECONDS": "0.3",
}


def ended(agent: Agent, task_id: str) -> dict:
    """Poll ``task_id`` until it is no longer working; return what tasks/get answered."""
    deadline = time.monotonic() + DONE_TIMEOUT
    while True:
        got = agent.rpc("tasks/get", {"taskId": task_id})
        if got["status"] != "working":
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.2)


@pytest.mark.e2e
def test_tasks_hold_their_callers_identity_and_quotas_on_celery_and_redis(redis, tmp_path):
    """docs/tasks.md#who-runs-the-view and #limits, on Celery with Redis as the cache: the
    view's own authentication decides who a task runs as, a revoked token fails its task,
    a short TTL doesn't dodge the quota, and anonymous clients each have their own."""
    database = migrated_database(SETTINGS, tmp_path)
    environ = {
        **os.environ,
        **redis.environ(),
        **HARDENED,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "MCP_TESTS_DATABASE": str(database),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    alice_token, bob_token = make_user(environ, "alice"), make_user(environ, "bob")
    shared = {"MCP_TESTS_REDIS_URL": environ["MCP_TESTS_REDIS_URL"], **HARDENED}
    served = running(
        "gunicorn", SETTINGS, env=shared, database=database, application=ENTRY_POINTS["gunicorn"]
    )
    with served as (url, _):
        alice, bob = Agent(url, alice_token), Agent(url, bob_token)
        legacy = Agent(url, alice_token, version="2025-11-25")
        # No worker yet: every task waits in Redis.
        token_task = alice.rpc("tools/call", {"name": "token_whoami", "arguments": {}})
        assert token_task["resultType"] == "task"
        # A TTL of one second is raised to TASK_MIN_TTL, and the room is full at two.
        session_task = legacy.task("session_whoami", ttl=1000)
        assert session_task["ttl"] == 60_000
        time.sleep(1.2)  # past the TTL the client asked for: still working, still counted
        refused = legacy.error(
            "tools/call", {"name": "export_rows", "arguments": {"rows": 1}, "task": {"ttl": 1000}}
        )
        assert refused["code"] == -32602 and "Too many tasks" in refused["message"], refused
        # At 2026-07-28 an optional task tool runs inline once the room is full, and sees who
        # a session-only view sees with a token: nobody.
        inline = alice.rpc("tools/call", {"name": "session_whoami", "arguments": {}})
        assert inline["resultType"] == "complete"
        assert inline["structuredContent"] == {"user": "AnonymousUser", "auth": None}
        # bob's token is regenerated after his task was made.
        revoked_task = bob.rpc("tools/call", {"name": "token_whoami", "arguments": {}})
        assert revoked_task["resultType"] == "task"
        bob = Agent(url, new_token(environ, "bob"))  # his task's credential is gone

        # Anonymous clients, told apart by the address the proxy forwards.
        first, second = (
            Agent(url, None, version="2025-11-25", address=address, path="/mcp-open")
            for address in ("10.0.0.1", "10.0.0.2")
        )
        held = [first.task("session_whoami", ttl=60_000) for _ in range(2)]
        refused = first.error(
            "tools/call", {"name": "session_whoami", "arguments": {}, "task": {"ttl": 60_000}}
        )
        assert "Too many tasks" in refused["message"], refused
        theirs = second.task("session_whoami", ttl=60_000)  # a room of its own
        modern_first = Agent(url, None, address="10.0.0.1", path="/mcp-open")
        inline = modern_first.rpc("tools/call", {"name": "session_whoami", "arguments": {}})
        assert inline["resultType"] == "complete"  # its room is full: run inline
        # An anonymous task is anyone's who holds its id: the quota is by address, not it.
        assert second.rpc("tasks/get", {"taskId": held[0]["taskId"]})["status"] == "working"

        with celery_worker(environ, tmp_path / "worker.log"):
            got = ended(alice, token_task["taskId"])
            assert got["status"] == "completed", got
            assert got["result"]["structuredContent"] == {
                "user": "alice",
                "auth": "Token",
                "token_of": "alice",
            }
            ended(legacy, session_task["taskId"])
            result = legacy.rpc("tasks/result", {"taskId": session_task["taskId"]})
            assert result["structuredContent"] == {"user": "AnonymousUser", "auth": None}
            got = ended(bob, revoked_task["taskId"])
            assert got["status"] == "failed", got
            assert got["error"]["code"] == -32001 and "revoked" in got["error"]["message"]
            for handle in [*held, theirs]:
                assert ended(first, handle["taskId"])["status"] == "completed"
