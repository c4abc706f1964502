"""Start a real server for the tests on a free 127.0.0.1 port, and stop it by its PID."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.processes import stop

REPO = Path(__file__).resolve().parents[2]
#: The environment variable the test settings read their SQLite file from.
DATABASE_ENV = "MCP_TESTS_DATABASE"
PUBLIC_URL_ENV = "MCP_TESTS_PUBLIC_URL"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


SERVERS = {
    # ASGI: uvicorn's event loop relays the async iterator.
    "uvicorn": ["-m", "uvicorn", "tests.conformance_app.asgi:application", "--host", "127.0.0.1"],
    # WSGI: one gunicorn sync worker, the strictest case (one request at a time).
    "gunicorn": ["-m", "gunicorn", "tests.conformance_app.wsgi:application", "--workers", "1"],
}


#: A migrated SQLite database per settings module, copied for each server (migrating takes
#: seconds; copying a file takes none).
_templates: dict[str, Path] = {}


def _template(settings: str) -> Path:
    template = _templates.get(settings)
    if template is None:
        folder = Path(tempfile.mkdtemp(prefix="mcp-tools-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = folder / "db.sqlite3"
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=REPO,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": settings, DATABASE_ENV: str(template)},
            check=True,
            timeout=120,
        )
        _templates[settings] = template
    return template


def migrated_database(settings: str, folder: Path) -> Path:
    """Return a fresh, migrated SQLite database for ``settings`` in ``folder``."""
    database = folder / "db.sqlite3"
    shutil.copyfile(_template(settings), database)
    return database


@contextmanager
def serve(
    kind: str = "uvicorn",
    settings: str = "tests.conformance_app.settings",
    env: dict[str, str] | None = None,
    database: Path | None = None,
    workers: int = 1,
    threads: int = 1,
) -> Iterator[str]:
    """Yield the base URL of a server of ``kind`` (see SERVERS); stop it by PID on exit.

    The server has its own copy of a migrated SQLite database (the admin state lives
    there), unless ``database`` names one that several servers share. ``workers`` sets
    gunicorn's sync workers (a call that asks its client needs a second one to receive
    the answer), or uvicorn's; ``threads`` above 1 makes gunicorn's workers ``gthread``
    ones with that many threads.
    """
    with running(kind, settings, env, database, workers, threads=threads) as (url, _):
        yield url


@contextmanager
def running(
    kind: str = "uvicorn",
    settings: str = "tests.conformance_app.settings",
    env: dict[str, str] | None = None,
    database: Path | None = None,
    workers: int = 1,
    application: str | None = None,
    threads: int = 1,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """``serve``, yielding the server's process too, for a test that signals it itself
    (stopped by PID on exit if it still runs). ``application`` names another entry point
    (``module:callable``) than the conformance server's."""
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="mcp-tools-server-"))
    if database is None:
        database = migrated_database(settings, folder)
    environ = {
        **os.environ,
        # The endpoint's public URL, which OAuth settings read (tests/oauth_app/settings.py).
        PUBLIC_URL_ENV: f"http://127.0.0.1:{port}/mcp",
        **(env or {}),
        "DJANGO_SETTINGS_MODULE": settings,
        DATABASE_ENV: str(database),
    }
    command = [sys.executable, *SERVERS[kind]]
    if application is not None:
        command[3] = application  # [python, -m, server, entry point, ...]
    if kind == "gunicorn":
        command[command.index("--workers") + 1] = str(workers)
        if threads > 1:
            command += ["--worker-class", "gthread", "--threads", str(threads)]
    if kind == "uvicorn":
        command += ["--port", str(port), "--log-level", "warning"]
        if workers > 1:  # a supervisor and its spawned workers
            command += ["--workers", str(workers)]
    else:
        command += ["--bind", f"127.0.0.1:{port}", "--timeout", "60", "--log-level", "warning"]
    process = subprocess.Popen(
        command, cwd=REPO, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process, time.monotonic() + 30)
        yield f"http://127.0.0.1:{port}", process
    finally:
        stop(process)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def task_workers(
    database: Path,
    settings: str = "tests.conformance_app.settings",
    count: int = 1,
    env: dict[str, str] | None = None,
    interval: float | None = None,
) -> Iterator[list[subprocess.Popen]]:
    """Run ``count`` django-tasks-db ``db_worker`` processes on ``database``, the one a
    server of ``settings`` serves: they run the tasks the server enqueues. Yields once each
    looks for jobs; stopped by their PIDs on exit.

    By default each runs at db_worker's own settings (a look for jobs every second, after a
    random delay at start), as a project's would: whether a task call is answered inline
    depends on what its view did in ``TASK_IMMEDIATE_SECONDS`` once a worker took it, not on
    how soon one did (docs/tasks.md). ``interval`` sets ``--interval``.
    """
    folder = Path(tempfile.mkdtemp(prefix="mcp-tools-workers-"))
    environ = {**os.environ, **(env or {}), "DJANGO_SETTINGS_MODULE": settings}
    environ[DATABASE_ENV] = str(database)
    command = [sys.executable, "manage.py", "db_worker", "--no-reload", "-v", "1"]
    if interval is not None:
        command += ["--interval", str(interval)]
    started: list[tuple[subprocess.Popen, Path]] = []
    try:
        for number in range(count):  # started together: each takes seconds to set Django up
            log = folder / f"worker-{number}.log"
            with log.open("wb") as output:
                process = subprocess.Popen(
                    command, cwd=REPO, env=environ, stdout=output, stderr=subprocess.STDOUT
                )
            started.append((process, log))
        deadline = time.monotonic() + 60
        for process, log in started:
            while b"Starting worker" not in log.read_bytes():  # its first line, once Django is up
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"a task worker did not start: {log.read_text()[-2000:]}")
                time.sleep(0.05)
        yield [process for process, _ in started]
    finally:
        for process, _ in started:  # all asked to stop first, then each waited for
            process.terminate()
        for process, _ in started:
            stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def node_tool(*parts: str) -> Path:
    """Locate a tool of `make node-tools`; fail under CI, skip locally, when it is missing."""
    root = Path(os.environ.get("MCP_TOOLS_NODE_DIR") or REPO / ".mcp-tools")
    path = root.joinpath(*parts)
    if not (path.exists() and (root / "node_modules" / ".bin" / "node").exists()):
        message = f"{path} is missing: run `make node-tools`"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path
