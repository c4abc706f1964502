"""A task-serving stack in real processes: gunicorn instances and django-tasks-db workers.

tests/tasks_settings.py is the project: tests/tasks_app on the database backend of Django's
tasks framework, on a SQLite file or (``MCP_TESTS_TASKS_DATABASE=postgres``) on the private
PostgreSQL and Redis of tests/services.py. Each process is started here and stopped by its
PID (``TaskStack.close``), the worker's killed with SIGKILL where a test says so. The
2026-07-28 client is raw HTTP (``RawClient``): no SDK ships the tasks extension yet.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from tests.conformance_app.server import REPO, free_port
from tests.services import log_tail, stop, wait_until_ready
from tests.wire import validate_exchange

SETTINGS = "tests.tasks_settings"
EXTENSION = "io.modelcontextprotocol/tasks"
MODERN = "2026-07-28"
#: The longest any test waits for a task to reach a status.
WAIT_SECONDS = 30.0

CREATE_USER = """
import sys
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_user(username=sys.argv[1], password="unused")
print(Token.objects.create(user=user).key)
"""

TASK_ROWS = """
import json, sys
from mcp_tools.models import ToolTask
rows = ToolTask.objects.filter(pk__in=sys.argv[1:]).values("id", "status", "worker", "attempts")
print(json.dumps({row.pop("id"): row for row in rows}))
"""


CANCEL_ROWS = """
import sys
from mcp_tools.tasks import store as tasks
from mcp_tools.models import ToolTask
for task in ToolTask.objects.filter(pk__in=sys.argv[1:]):
    tasks.cancel(task, "Cancelled by the test")
"""


def django_run(environ: dict[str, str], code: str, *args: str) -> str:
    """Run ``code`` in a Django process of the stack's settings; return its output."""
    command = [sys.executable, "-c", "import django; django.setup()\n" + code, *args]
    done = subprocess.run(
        command, cwd=REPO, env=environ, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"a Django script exited with {done.returncode}:\n{done.stderr}"
    return done.stdout


@dataclass
class TaskStack:
    """The running processes of one stack, and the environment they share."""

    environ: dict[str, str]
    logdir: Path
    urls: list[str] = field(default_factory=list)
    processes: list[subprocess.Popen] = field(default_factory=list)
    _users: int = 0

    def migrate(self) -> None:
        command = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
        done = subprocess.run(
            command, cwd=REPO, env=self.environ, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, done.stderr

    def user(self, name: str | None = None) -> str:
        """Create a user and its DRF token in the stack's database; return the token."""
        self._users += 1
        name = name or f"caller-{self._users}-{time.monotonic_ns()}"
        return django_run(self.environ, CREATE_USER, name).strip()

    def task_row(self, task_id: str) -> dict[str, Any] | None:
        """Return the stored status, worker and attempts of a task, as the database has them."""
        return self.task_rows(task_id).get(task_id)

    def cancel(self, *task_ids: str) -> None:
        """Cancel tasks as an admin would, whichever endpoint made them (one process)."""
        django_run(self.environ, CANCEL_ROWS, *task_ids)

    def task_rows(self, *task_ids: str) -> dict[str, dict[str, Any]]:
        """Return the stored status, worker and attempts of each task, by id (one process)."""
        return json.loads(django_run(self.environ, TASK_ROWS, *task_ids))

    def serve(self, *, workers: int = 2) -> str:
        """Start a gunicorn instance (sync workers); return its base URL once it answers."""
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        command = [
            *(sys.executable, "-m", "gunicorn", "django.core.wsgi:get_wsgi_application()"),
            *("--worker-class", "sync", "--workers", str(workers), "--timeout", "60"),
            *("--bind", f"127.0.0.1:{port}", "--log-level", "warning"),
        ]
        process = self._start(command, f"gunicorn-{port}")
        wait_until_ready(
            process, lambda: answers(url), self.logdir / f"gunicorn-{port}.log", f"gunicorn {url}"
        )
        self.urls.append(url)
        return url

    def worker(self) -> subprocess.Popen:
        """Start a ``db_worker`` (django-tasks-db), polling its queue every 0.1 s."""
        command = [
            *(sys.executable, "manage.py", "db_worker"),
            *("--interval", "0.1", "--no-startup-delay", "--no-reload"),
        ]
        return self._start(command, f"db_worker-{len(self.processes)}")

    def _start(self, command: list[str], name: str) -> subprocess.Popen:
        log = (self.logdir / f"{name}.log").open("wb")
        with log:
            process = subprocess.Popen(
                command, cwd=REPO, env=self.environ, stdout=log, stderr=subprocess.STDOUT
            )
        self.processes.append(process)
        return process

    def kill(self, process: subprocess.Popen) -> None:
        """SIGKILL ``process`` (a worker dying mid-task: no handler, no cleanup) and reap it."""
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{log_tail(path)}" for path in sorted(self.logdir.glob("*.log"))
        )

    def close(self) -> None:
        for process in reversed(self.processes):
            stop(process)


def answers(url: str) -> bool:
    try:
        httpx2.get(f"{url}/mcp", timeout=2)
    except httpx2.TransportError:
        return False
    return True


class RawClient:
    """A 2026-07-28 client of the tasks extension over plain HTTP, as a client without an
    SDK writes one: every exchange is checked against the schemas (2026-07-28's, and the
    extension's for its results)."""

    def __init__(self, url: str, token: str, *, path: str = "/mcp", declares: bool = True) -> None:
        from mcp_tools.test import MCPClient

        capabilities = {"extensions": {EXTENSION: {}}} if declares else {}
        self.url = url
        self.path = path
        self.token = token
        self.shaper = MCPClient(protocol_version=MODERN, client_capabilities=capabilities)
        self.http = httpx2.Client(timeout=30)

    def post(
        self, method: str, params: dict[str, Any], *, url: str | None = None
    ) -> httpx2.Response:
        """POST one request; return the HTTP response, its exchange checked when it is JSON."""
        message = self.shaper.message(method, params)
        headers = {**self.shaper.headers_for(message), "Authorization": f"Token {self.token}"}
        response = self.http.post(f"{url or self.url}{self.path}", json=message, headers=headers)
        # An HTTP-level refusal (a throttle's 429) names no request: its id is null, which
        # JSON-RPC asks for and the MCP schema has no form of; the caller reads those.
        json_answer = response.headers.get("content-type", "").startswith("application/json")
        if response.status_code == 200 and json_answer:
            validate_exchange(MODERN, message, response.status_code, response.content)
        return response

    def send(self, method: str, params: dict[str, Any], *, url: str | None = None) -> dict:
        """Return the JSON-RPC answer (``result`` or ``error``) of one request."""
        response = self.post(method, params, url=url)
        assert response.status_code == 200, (response.status_code, response.text)
        return response.json()

    def result(self, method: str, params: dict[str, Any], *, url: str | None = None) -> Any:
        answer = self.send(method, params, url=url)
        assert "result" in answer, answer
        return answer["result"]

    def error(self, method: str, params: dict[str, Any], *, url: str | None = None) -> dict:
        answer = self.send(method, params, url=url)
        assert "error" in answer, answer
        return answer["error"]

    def get(self, task_id: str, *, url: str | None = None) -> dict[str, Any]:
        return self.result("tasks/get", {"taskId": task_id}, url=url)

    def poll(
        self,
        task_id: str,
        until: Callable[[dict[str, Any]], bool],
        *,
        url: str | None = None,
        timeout: float = WAIT_SECONDS,
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Poll ``tasks/get`` at the task's ``pollIntervalMs`` until ``until(task)``; return
        the last answer and every one before it. Fails after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            task = self.get(task_id, url=url)
            seen.append(task)
            if until(task):
                return task, seen
            assert time.monotonic() < deadline, (
                f"task {task_id} still {task['status']}: {seen[-3:]}"
            )
            time.sleep(task["pollIntervalMs"] / 1000)

    def close(self) -> None:
        self.http.close()


def ended(task: dict[str, Any]) -> bool:
    return task["status"] in {"completed", "failed", "cancelled"}
