"""Drive load with wrk, pinned to core 1, and read its figures (bench/wrk/requests.lua)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import services

LUA = Path(__file__).resolve().parent / "wrk" / "requests.lua"
LOAD_CORE = "1"
RESULT_PREFIX = "BENCH_RESULT "
LIMIT_MARKER = "BENCH_LIMIT_REACHED"


class LoadFailed(RuntimeError):
    """wrk did not run, or printed no result."""


@dataclass(frozen=True)
class Request:
    """One HTTP request of a load: its body is compact JSON, or empty."""

    method: str
    path: str
    body: str = ""


@dataclass(frozen=True)
class Load:
    """What one wrk run sends: its requests in turn, all with the same headers."""

    requests: tuple[Request, ...]
    headers: tuple[tuple[str, str], ...] = ()
    #: Give each request its own JSON-RPC id: needed when calls share one MCP session.
    unique_ids: bool = False

    def in_session(self, session: str) -> Load:
        """Return this load sent in the MCP session ``session``."""
        return Load(self.requests, self.headers + (("Mcp-Session-Id", session),), True)


@dataclass(frozen=True)
class Result:
    """The figures of one wrk run."""

    requests: int
    seconds: float
    bytes: int
    p50_ms: float
    p99_ms: float
    #: Non-2xx answers, JSON-RPC errors or isError results, and socket errors or timeouts.
    bad: int
    first_bad: str
    #: CPU seconds the server's worker used during the run (set by the caller).
    server_cpu_s: float = 0.0
    #: The slowest answer of the run.
    max_ms: float = 0.0

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def cpu_us(self) -> float:
        """Return the server's CPU microseconds per request."""
        return self.server_cpu_s / self.requests * 1e6 if self.requests else 0.0


def ensure_wrk() -> str:
    """Return wrk's path, installing Debian's package first when it is missing."""
    try:
        return services.ensure_command("wrk", "wrk")
    except services.ServiceFailed as exc:
        raise LoadFailed(str(exc)) from exc


def write_requests(load: Load, directory: Path) -> Path:
    """Write the load's requests in the Lua script's format: METHOD, PATH, BODY by tabs."""
    handle, name = tempfile.mkstemp(prefix="requests-", suffix=".tsv", dir=directory)
    with os.fdopen(handle, "w") as out:
        for request in load.requests:
            if "\t" in request.body or "\n" in request.body:
                raise ValueError("a request body must be compact JSON (no tab, no newline)")
            out.write(f"{request.method}\t{request.path}\t{request.body}\n")
    return Path(name)


def run(
    base_url: str,
    load: Load,
    *,
    connections: int,
    seconds: float,
    max_requests: int = 0,
    work_dir: Path,
) -> Result:
    """Run wrk once against ``base_url`` and return its figures.

    With ``max_requests``, stop as soon as that many responses came back (``seconds`` is then
    only a bound): the Lua script says so, and wrk, sent SIGINT, reports at once.
    """
    requests_file = write_requests(load, work_dir)
    duration = max(1, round(seconds))
    argv = ["taskset", "-c", LOAD_CORE, ensure_wrk(), "-t1", f"-c{connections}"]
    argv += [f"-d{duration}s", "--timeout=10s", "-s", str(LUA)]
    for name, value in load.headers:
        argv += ["-H", f"{name}: {value}"]
    argv.append(base_url)
    env = {**os.environ, "BENCH_REQUESTS": str(requests_file)}
    if max_requests:
        env["BENCH_MAX_REQUESTS"] = str(max_requests)
    if load.unique_ids:
        env["BENCH_UNIQUE_IDS"] = "1"
    try:
        output = _wrk(argv, env, duration + 30, stop_on_limit=bool(max_requests))
    finally:
        requests_file.unlink(missing_ok=True)
    return parse(output)


def _wrk(argv: list[str], env: dict[str, str], timeout: float, *, stop_on_limit: bool) -> str:
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    try:
        for line in process.stdout:
            lines.append(line)
            if stop_on_limit and line.strip() == LIMIT_MARKER:
                process.send_signal(signal.SIGINT)
            if time.monotonic() > deadline:
                break
        process.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return "".join(lines)


def parse(output: str) -> Result:
    """Read the ``BENCH_RESULT`` line the Lua script's done() prints."""
    for line in output.splitlines():
        if line.startswith(RESULT_PREFIX):
            data = json.loads(line[len(RESULT_PREFIX) :])
            break
    else:
        raise LoadFailed(f"wrk printed no result:\n{output[-2000:]}")
    return Result(
        requests=data["requests"],
        seconds=data["duration_us"] / 1e6,
        bytes=data["bytes"],
        p50_ms=data["p50_us"] / 1000,
        p99_ms=data["p99_us"] / 1000,
        bad=data["bad"] + data["tool_errors"] + data["socket_errors"] + data["timeouts"],
        first_bad=data["first_bad"],
        max_ms=data["max_us"] / 1000,
    )
