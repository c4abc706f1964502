"""The production profile's Redis, and Debian's packages the bench installs when missing.

A private ``redis-server`` (Debian's), as tests/services.py starts one for the tests: on
127.0.0.1 and a free port, in memory only (no RDB, no AOF), in a directory of its own, and
stopped by its PID when the ``with`` block ends, whatever ends it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HOST = "127.0.0.1"
STARTUP_TIMEOUT = 30.0


class ServiceFailed(RuntimeError):
    """A program could not be installed, or a service did not start."""


def ensure_command(command: str, package: str) -> str:
    """Return ``command``'s path, installing Debian's ``package`` first when it is missing."""
    found = shutil.which(command)
    if found:
        return found
    print(f"{command} is missing: apt-get install -y {package}", file=sys.stderr, flush=True)
    install = ["apt-get", "install", "-y", "-q", package]
    # On stderr, like the progress lines: stdout is the report.
    quiet = {"stdout": sys.stderr, "env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}}
    if subprocess.run(install, **quiet).returncode != 0:
        # A fresh machine may have no package lists yet.
        subprocess.run(["apt-get", "update", "-q"], check=True, **quiet)
        subprocess.run(install, check=True, **quiet)
    found = shutil.which(command)
    if not found:
        raise ServiceFailed(f"{command} is still missing after apt-get install {package}")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def answers_ping(port: int) -> bool:
    """Return whether a Redis on ``port`` answers PING (in RESP, so no client is needed)."""
    try:
        with socket.create_connection((HOST, port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def stop(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    """Send ``sig`` to the process by its PID, SIGKILL it if it still runs after ``timeout``,
    and reap it (the test suite's servers are stopped by this one too)."""
    if process.poll() is None:
        process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)


@dataclass(frozen=True)
class Redis:
    """A running private Redis."""

    port: int
    pid: int

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"


@contextlib.contextmanager
def redis() -> Iterator[Redis]:
    """Run a private Redis for the length of a ``with`` block."""
    binary = ensure_command("redis-server", "redis-server")
    root = Path(tempfile.mkdtemp(prefix="mcp-tools-bench-redis-"))
    try:
        port = free_port()
        command = [
            binary,
            *("--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"),
            *("--daemonize", "no", "--dir", str(root)),
        ]
        log = root / "redis.log"
        with log.open("wb") as out:
            # A session of its own: a Ctrl-C at the terminal reaches the bench, whose
            # ``finally`` stops this process, never this process first.
            process = subprocess.Popen(
                command, cwd=root, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT
            while not answers_ping(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = log.read_text(errors="replace").splitlines()[-10:]
                    raise ServiceFailed("redis-server did not start:\n" + "\n".join(tail))
                time.sleep(0.05)
            yield Redis(port, process.pid)
        finally:
            stop(process)
    finally:
        shutil.rmtree(root, ignore_errors=True)
