"""The servers under test: one worker each, pinned to core 0, stopped by their process group."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER_CORE = "0"
HOST = "127.0.0.1"
PEERS_VENV = ROOT / "bench" / ".venv-peers"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class ServerFailed(RuntimeError):
    """A server did not start, or did not answer its ready check in time."""


@dataclass(frozen=True)
class ServerSpec:
    """How to start one server: a command with ``{port}`` in it, and its environment."""

    name: str
    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    #: gunicorn forks its worker: the resident memory to read is the child's.
    forks_worker: bool = False
    #: The folder it runs in and imports from (the repository, unless another is made up of
    #: links: another checkout's ``mcp_tools`` beside this one's ``bench``, say).
    root: Path = ROOT


@dataclass
class Server:
    """A running server."""

    spec: ServerSpec
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def worker_pids(self) -> list[int]:
        """Return the PIDs of the processes that serve requests (gunicorn's workers)."""
        if not self.spec.forks_worker:
            return [self.process.pid]
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def worker_pid(self) -> int:
        """Return the PID of the one process that serves requests."""
        pids = self.worker_pids()
        if len(pids) != 1:
            raise ServerFailed(f"{self.spec.name}: expected one worker, found {pids}")
        return pids[0]

    def cpu_seconds(self) -> float:
        """Return the CPU time the workers have used so far, their finished threads included.

        Per request, it hardly depends on what else runs on the machine, unlike req/s.
        """
        total = 0
        for pid in self.worker_pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime: fields 14, 15 of proc(5)
        return total / CLOCK_TICKS

    def rss_kib(self, pid: int | None = None) -> int:
        """Return the resident memory of the worker (or of process ``pid``) in KiB (VmRSS)."""
        pid = self.worker_pid() if pid is None else pid
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise ServerFailed(f"{self.spec.name}: no VmRSS")


def venv_bin(name: str, venv: Path | None = None) -> str:
    """Return the path of a venv's script: the running interpreter's venv by default."""
    directory = venv / "bin" if venv is not None else Path(sys.executable).parent
    return str(directory / name)


def gunicorn(app: str, *, venv: Path | None = None, workers: int = 1, **env: str) -> ServerSpec:
    """Return the spec of gunicorn with sync workers (one by default)."""
    argv = (
        venv_bin("gunicorn", venv),
        app,
        f"--workers={workers}",
        "--worker-class=sync",
        "--bind=127.0.0.1:{port}",
        "--log-level=warning",
        "--graceful-timeout=2",
    )
    return ServerSpec("gunicorn", argv, env, forks_worker=True)


def uvicorn(app: str, *, venv: Path | None = None, lifespan: str = "off", **env: str) -> ServerSpec:
    """Return the spec of uvicorn, one process (no --workers), uvloop and httptools if there."""
    argv = [
        venv_bin("uvicorn", venv),
        app,
        "--host=127.0.0.1",
        "--port={port}",
        "--log-level=warning",
        "--no-access-log",
        f"--lifespan={lifespan}",
    ]
    python = venv_bin("python", venv)
    for option, module in (("--loop=uvloop", "uvloop"), ("--http=httptools", "httptools")):
        if has_module(python, module):
            argv.append(option)
    return ServerSpec("uvicorn", tuple(argv), env)


_MODULES: dict[tuple[str, str], bool] = {}


def has_module(python: str, module: str) -> bool:
    """Return whether ``python`` can import ``module`` (cached)."""
    key = (python, module)
    if key not in _MODULES:
        probe = [python, "-c", f"import {module}"]
        _MODULES[key] = subprocess.run(probe, capture_output=True).returncode == 0
    return _MODULES[key]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start(spec: ServerSpec, ready_path: str, log_dir: Path, timeout: float = 60.0) -> Server:
    """Start ``spec`` on a free port, pinned to the server core; wait until it answers."""
    port = free_port()
    argv = ["taskset", "-c", SERVER_CORE, *(arg.format(port=port) for arg in spec.argv)]
    env = {**os.environ, **spec.env, "PYTHONPATH": str(spec.root), "PYTHONDONTWRITEBYTECODE": "1"}
    log = log_dir / f"{spec.name}-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv,
            cwd=spec.root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Server(spec, port, process, log)
    try:
        wait_ready(server, ready_path, timeout)
    except BaseException:
        stop(server)
        raise
    return server


def wait_ready(server: Server, path: str, timeout: float) -> None:
    """Wait until a GET of ``path`` gets an answer below 500, or raise ``ServerFailed``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise ServerFailed(f"{server.spec.name} exited: {tail(server.log)}")
        try:
            with urllib.request.urlopen(server.base_url + path, timeout=5):
                return
        except urllib.error.HTTPError as exc:
            if exc.code < 500:  # it answers: a GET of /mcp is a 405, say
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise ServerFailed(f"{server.spec.name} did not answer {path} in {timeout:g} s")


def stop(server: Server) -> None:
    """Stop the server's process group: SIGTERM, then SIGKILL after a few seconds."""
    if server.process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.process.pid, signal.SIGTERM)
    try:
        server.process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=5)


@contextlib.contextmanager
def serving(spec: ServerSpec, ready_path: str, log_dir: Path) -> Iterator[Server]:
    """Run ``spec`` for the length of a ``with`` block."""
    server = start(spec, ready_path, log_dir)
    try:
        yield server
    finally:
        stop(server)


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
