"""Tasks across hosts: two gunicorn instances and a db_worker share only PostgreSQL and Redis.

A task created on one instance is run by a ``db_worker`` in a process of its own (standing
for another host) and polled on the other instance; a worker killed with SIGKILL mid-task
leaves its lease to run out (``TASK_LEASE_SECONDS``, 2 s here), and the client's next
``tasks/get`` reads ``failed``. The stack is tests/task_servers.py's, on the private
PostgreSQL and Redis of tests/services.py.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
from pathlib import Path

import pytest

from tests.conformance_app.server import REPO
from tests.services import Postgres, Redis, stop
from tests.task_servers import SETTINGS, RawClient, TaskStack, ended

LEASE_SECONDS = 2
POLL_MS = 200


@pytest.fixture(scope="module")
def stack(postgres: Postgres, redis: Redis):
    root = Path(tempfile.mkdtemp(prefix="mcp-tools-task-scale-"))
    environ = {
        **os.environ,
        **postgres.environ(),
        **redis.environ(),
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "MCP_TESTS_TASKS_DATABASE": "postgres",
        "MCP_TESTS_TASK_LEASE_SECONDS": str(LEASE_SECONDS),
        "MCP_TESTS_TASK_POLL_INTERVAL_MS": str(POLL_MS),
        "PYTHONPATH": str(REPO),
    }
    server = TaskStack(environ, root)
    try:
        server.migrate()
        server.serve(workers=1)
        server.serve(workers=1)
        yield server
    finally:
        server.close()
        for log in root.glob("*.log"):
            log.unlink()
        root.rmdir()


@pytest.fixture
def worker(stack):
    """A db_worker of its own for each test: one test kills its worker."""
    process = stack.worker()
    yield process
    stop(process)  # by its PID, unless the test killed it already


@pytest.fixture
def client(stack):
    raw = RawClient(stack.urls[0], stack.user())
    yield raw
    raw.close()


def worker_of(process) -> str:
    """The prefix of the ``worker`` a task's row names when ``process`` runs it."""
    return f"{socket.gethostname()}:{process.pid}:"


def test_a_task_made_on_one_instance_is_run_elsewhere_and_read_on_the_other(stack, worker, client):
    made_on, polled_on = stack.urls
    handle = client.result(
        "tools/call", {"name": "export_rows", "arguments": {"rows": 2, "seconds": 1}}, url=made_on
    )
    assert handle["resultType"] == "task"
    done, seen = client.poll(handle["taskId"], ended, url=polled_on)
    assert done["status"] == "completed", (done, stack.logs())
    assert done["result"]["structuredContent"]["lines"] == ["row 0", "row 1"]
    assert any(task["status"] == "working" for task in seen)
    row = stack.task_row(handle["taskId"])
    assert row["worker"].startswith(worker_of(worker)), row  # neither instance ran it
    assert row["attempts"] == 1


def test_a_worker_killed_mid_task_fails_it_once_its_lease_runs_out(stack, worker, client):
    made_on, polled_on = stack.urls
    handle = client.result(
        "tools/call", {"name": "export_rows", "arguments": {"rows": 1, "seconds": 60}}, url=made_on
    )
    task_id = handle["taskId"]
    client.poll(task_id, lambda task: "statusMessage" in task, url=polled_on)  # it runs
    assert stack.task_row(task_id)["worker"].startswith(worker_of(worker))
    stack.kill(worker)
    killed = time.monotonic()
    failed, seen = client.poll(task_id, ended, url=polled_on, timeout=LEASE_SECONDS + 10)
    waited = time.monotonic() - killed
    assert failed["status"] == "failed", failed
    assert failed["error"]["code"] == -32603
    assert f":{worker.pid}:" in failed["error"]["message"]  # it names the worker that died
    assert failed["statusMessage"] == "The worker running this task stopped"
    # Working until the lease (renewed every third of it) ran out, then failed at the next poll.
    assert all(task["status"] == "working" for task in seen[:-1])
    assert waited < LEASE_SECONDS + 2 * POLL_MS / 1000 + 1.5, waited
    assert client.get(task_id, url=made_on)["status"] == "failed"  # on both instances
