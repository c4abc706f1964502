"""MCP tasks on Celery (mcp_tools.contrib.celery, docs/tasks.md#celery).

The unit tests publish for real, to kombu's in-memory broker, and run what a worker would
take off it; the last test runs a real ``celery worker`` on the private Redis of
tests/services.py beside a gunicorn, on one SQLite file.
"""

from __future__ import annotations

import contextlib
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


def make_user(environ: dict[str, str]) -> str:
    """Create alice in the shared database; return her DRF token."""
    code = (
        "import django; django.setup()\n"
        "from django.contrib.auth import get_user_model\n"
        "from rest_framework.authtoken.models import Token\n"
        "user = get_user_model().objects.create_user('alice')\n"
        "print(Token.objects.create(user=user).key)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
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
    """alice's 2026-07-28 client over HTTP, declaring the tasks extension."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.shaper = MCPClient(
            headers={"Authorization": f"Token {token}"},
            protocol_version=MODERN,
            client_capabilities=EXTENSION,
        )
        self.token = token

    def rpc(self, method: str, params: dict) -> dict:
        message = self.shaper.message(method, params)
        headers = {**self.shaper.headers_for(message), "Authorization": f"Token {self.token}"}
        response = httpx2.post(f"{self.url}/mcp", json=message, headers=headers, timeout=30)
        body = response.json()
        assert "result" in body, body
        return body["result"]


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
