"""The call log's queue in real servers: a clean shutdown (SIGTERM) writes every queued row,
under gunicorn's sync worker and under uvicorn; a killed worker loses what it had queued;
the processes that need no handler keep theirs; a project's own test suites read the log
right after their calls (docs/calllog.md)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from mcp_tools.test import MCPClient
from tests.conformance_app.server import REPO, migrated_database, running
from tests.wire import validate_exchange

SETTINGS = "tests.conformance_app.settings"
CALLS = 25
#: Every call logged, and a writer that lets its batch gather for far longer than the test
#: runs: the rows are still queued when the server is stopped.
ENV = {"MCP_TOOLS_CALL_LOG": "all", "MCP_TOOLS_CALL_LOG_FLUSH_INTERVAL": "600"}
#: How each server ends on SIGTERM once it has shut down: gunicorn's worker and arbiter
#: through sys.exit; uvicorn raises the signal again with its default handler, so its
#: process runs no atexit (docs/calllog.md).
CLEAN_EXIT = {"gunicorn": 0, "uvicorn": -signal.SIGTERM}


def call(url: str, turn: int) -> None:
    shaper = MCPClient(protocol_version="2026-07-28")
    message = shaper.message("tools/call", {"name": "test_simple_text", "arguments": {}})
    response = httpx2.post(f"{url}/mcp", json=message, headers=shaper.headers_for(message))
    validate_exchange("2026-07-28", message, response.status_code, response.content)
    assert response.json()["result"]["isError"] is False, (turn, response.text)


def logged(database: Path) -> int:
    # closing(): sqlite3's own context manager commits, but never closes the connection.
    with contextlib.closing(sqlite3.connect(database)) as connection:
        return connection.execute("SELECT count(*) FROM mcp_tools_toolcall").fetchone()[0]


def worker_of(process) -> int:
    """The PID of gunicorn's one worker, a child of its arbiter."""
    (child,) = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    return int(child)


@pytest.mark.parametrize("kind", ["gunicorn", "uvicorn"])
def test_a_clean_shutdown_writes_every_queued_row(kind, tmp_path):
    database = migrated_database(SETTINGS, tmp_path)
    with running(kind, SETTINGS, env=ENV, database=database) as (url, process):
        for turn in range(CALLS):
            call(url, turn)
        assert logged(database) == 0  # queued: no request wrote its own row
        process.send_signal(signal.SIGTERM)  # gunicorn's arbiter passes it to its worker
        assert process.wait(timeout=30) == CLEAN_EXIT[kind]  # not the fixture's kill
    assert logged(database) == CALLS


@pytest.mark.parametrize("kind", ["gunicorn", "uvicorn"])
def test_a_killed_worker_loses_the_rows_it_had_queued(kind, tmp_path):
    # What docs/calllog.md says a crash costs: the rows of the last CALL_LOG_FLUSH_INTERVAL.
    database = migrated_database(SETTINGS, tmp_path)
    with running(kind, SETTINGS, env=ENV, database=database) as (url, process):
        for turn in range(CALLS):
            call(url, turn)
        victim = worker_of(process) if kind == "gunicorn" else process.pid
        os.kill(victim, signal.SIGKILL)
        if kind == "uvicorn":
            process.wait(timeout=30)
    assert logged(database) == 0


def test_two_uvicorn_workers_write_every_queued_row_on_sigterm(tmp_path):
    # The supervisor sends each spawned worker SIGTERM: each ends by the signal, as one
    # uvicorn process does, and writes its queue first.
    database = migrated_database(SETTINGS, tmp_path)
    with running("uvicorn", SETTINGS, env=ENV, database=database, workers=2) as (url, process):
        for turn in range(CALLS):
            call(url, turn)
        assert logged(database) == 0
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    assert logged(database) == CALLS


# -- What a project's processes keep ---------------------------------------------------------

#: gunicorn's worker, in the order it runs: its signal handlers, SA_RESTART on SIGTERM
#: (siginterrupt False: a request's system calls are not interrupted), then the app
#: (django.setup(), this app's ready()). Prints whether the handler and the flag are still
#: gunicorn's. Linux's struct sigaction.
GUNICORN_LIKE = """
import ctypes, signal, sys
class sigaction_t(ctypes.Structure):
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]
def restarts():
    old = sigaction_t()
    ctypes.CDLL(None).sigaction(signal.SIGTERM, None, ctypes.byref(old))
    return bool(old.flags & 0x10000000)
def handle_exit(number, frame):
    sys.exit(0)
signal.signal(signal.SIGTERM, handle_exit)
signal.siginterrupt(signal.SIGTERM, False)
assert restarts()
import django
django.setup()
print(signal.getsignal(signal.SIGTERM) is handle_exit, restarts())
"""

#: A script or management command: the default handler, which must stay.
COMMAND_LIKE = """
import signal
import django
django.setup()
print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
"""


def in_a_process(code: str) -> str:
    environ = {
        **os.environ,
        **ENV,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(sys.platform != "linux", reason="reads Linux's struct sigaction")
def test_a_gunicorn_workers_sigterm_handler_and_its_flags_are_left_alone():
    assert in_a_process(GUNICORN_LIKE) == "True True"


def test_a_commands_sigterm_stays_the_default():
    assert in_a_process(COMMAND_LIKE) == "True"


#: A project's own tests, as docs/testing.md has them: every call logged, the log read right
#: after the calls, by a TestCase (the caller created in the test's transaction) and by a
#: TransactionTestCase (rows seen at once, none written into the next test).
PROJECT_TESTS = """
from django.contrib.auth import get_user_model
from django.test import TestCase, TransactionTestCase, override_settings
from rest_framework.authtoken.models import Token

from mcp_tools.models import ToolCall
from mcp_tools.test import MCPClient

SETTINGS = {"SERVER_NAME": "t", "CACHE": "mcp", "CALL_LOG": "all"}


def client_of(name):
    user = get_user_model().objects.create_user(name)
    return MCPClient(headers={"Authorization": f"Token {Token.objects.create(user=user).key}"})


@override_settings(MCP_TOOLS=SETTINGS)
class A_InATransaction(TestCase):
    def test_the_row_is_there(self):
        client = client_of("alice")
        assert client.call_tool("todo_list")["isError"] is False
        self.assertEqual(
            list(ToolCall.objects.values_list("tool_name", "user__username")),
            [("todo_list", "alice")],
        )


@override_settings(MCP_TOOLS=SETTINGS)
class B_Committed(TransactionTestCase):
    def test_one(self):
        assert client_of("bob").call_tool("todo_list")["isError"] is False
        self.assertEqual(
            list(ToolCall.objects.values_list("tool_name", "user__username")),
            [("todo_list", "bob")],
        )

    def test_two(self):
        assert client_of("carol").call_tool("todo_list")["isError"] is False
        self.assertEqual(
            list(ToolCall.objects.values_list("tool_name", "user__username")),
            [("todo_list", "carol")],
        )
"""


@pytest.mark.parametrize("runner", ["manage.py test", "pytest-django"])
def test_a_projects_own_tests_read_the_log_right_after_their_calls(runner, tmp_path):
    package = tmp_path / "project_tests"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "test_log.py").write_text(PROJECT_TESTS)
    environ = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]),
        "MCP_TESTS_DATABASE": str(tmp_path / "db.sqlite3"),
    }
    if runner == "manage.py test":
        command = [sys.executable, "manage.py", "test", "project_tests", "-v", "2"]
        cwd = REPO
    else:  # its own rootdir: none of this suite's conftest
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "pytest_django",
            "-p",
            "no:cacheprovider",
            "-q",
            str(package),
        ]
        cwd = tmp_path
    done = subprocess.run(
        command, cwd=cwd, env=environ, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
