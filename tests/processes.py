"""Starting the servers and commands tests run, and stopping them by PID, bounded in time."""

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


def stop(process: subprocess.Popen) -> None:
    """Terminate ``process``, kill it if it is still running after 10 s, and reap it."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextmanager
def gunicorn(application: str, env: dict[str, str]) -> Iterator[str]:
    """Serve ``application`` (``module:callable``) with one gunicorn sync worker on a free
    port of 127.0.0.1; yield its base URL, and stop it by PID after."""
    from tests.conformance_app.server import REPO, free_port, wait_for_port

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", application]
        + ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--log-level", "warning"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, server, time.monotonic() + 30)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(server)


def manage(env: dict[str, str], *command: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run ``manage.py command`` of a test project (its settings in ``env``); fail the test
    with its stderr unless it exits 0."""
    from tests.conformance_app.server import REPO

    done = subprocess.run(
        [sys.executable, "manage.py", *command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done
