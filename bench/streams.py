"""Streams whose clients never read: the server's resident memory while they hang on.

Three clients each send a 1 MB ``tools/call`` to the bench project's ``progress`` tool (it
reports progress 50 times) with a small receive buffer, and never read the answer. The
server (gunicorn with one gthread worker of four threads, or uvicorn: one process either
way, so one RSS holds all three streams) is started on a free 127.0.0.1 port with
``CALL_TIMEOUT`` at 10 s, and stopped by its process group. Where the megabyte goes:

- ``token``: in ``_meta.progressToken``, which every progress event repeats;
- ``progress``: in an argument the view puts in each progress message;
- ``log``: in an argument the view logs at each step (``log_message``).

For each, the worker's VmRSS: at rest (after warm-up), the most while the three clients
hang on, once ``CALL_TIMEOUT`` (and its grace) has passed with them still connected, and
after they left. In between, the clients read again: the rest of their streams with the
answer, or, where the server ended a stream nobody read, only what it had sent before.
Last, the bytes one client that does read receives for the same request.
docs/reliability.md has the figures, before and after the streams were bounded.

    .venv/bin/python bench/streams.py                       # this checkout: about 2 minutes
    .venv/bin/python bench/streams.py --root ../other-checkout   # serve that mcp_tools
    .venv/bin/python bench/streams.py --servers uvicorn --scenarios token
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import servers  # noqa: E402
from bench.servers import HOST, Server, ServerSpec  # noqa: E402

CLIENTS = 3
CALL_TIMEOUT = 10
#: What the stalled clients' kernels take in before the server's writes block.
CLIENT_RECEIVE_BUFFER = 64 * 1024
#: The megabyte, within the default MAX_REQUEST_BYTES (1,048,576) with the envelope.
NOTE = "x" * 1_000_000
SCENARIOS = ("token", "progress", "log")
SERVERS = ("gunicorn", "uvicorn")


def request_body(scenario: str) -> bytes:
    token = NOTE if scenario == "token" else "p"
    arguments = {} if scenario == "token" else {"note": NOTE, "echo": scenario}
    params = {"name": "progress", "arguments": arguments, "_meta": {"progressToken": token}}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    return json.dumps(message, separators=(",", ":")).encode()


def http_request(port: int, body: bytes) -> bytes:
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def stalled_client(port: int, body: bytes) -> socket.socket:
    """Send the request and return the socket, never to be read."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, CLIENT_RECEIVE_BUFFER)
    sock.connect((HOST, port))
    sock.sendall(http_request(port, body))
    return sock


def received_bytes(port: int, body: bytes, timeout: float = 60) -> int:
    """Return how many bytes a client that reads everything receives for ``body``."""
    total = 0
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(http_request(port, body))
        while chunk := sock.recv(1 << 20):
            total += len(chunk)
    return total


def drain(sock: socket.socket, timeout: float = 30) -> tuple[int, bool]:
    """Read ``sock`` to its end: return the bytes read, and whether the answer was in them."""
    sock.settimeout(timeout)
    data = bytearray()
    try:
        while chunk := sock.recv(1 << 20):
            data += chunk
    except TimeoutError:
        pass
    return len(data), b'{"jsonrpc":"2.0","id":1,' in data


def spec(kind: str, root: Path) -> ServerSpec:
    env = {
        "DJANGO_SETTINGS_MODULE": "bench.project.settings",
        "BENCH_MCP_TOOLS": json.dumps({"CALL_TIMEOUT": CALL_TIMEOUT}),
    }
    if kind == "uvicorn":
        base = servers.uvicorn("bench.project.asgi:application")
        return ServerSpec(base.name, base.argv, env, root=root)
    argv = (
        servers.venv_bin("gunicorn"),
        "bench.project.wsgi:application",
        "--workers=1",
        "--worker-class=gthread",
        "--threads=4",
        "--bind=127.0.0.1:{port}",
        "--log-level=warning",
        "--graceful-timeout=2",
        "--timeout=120",
    )
    return ServerSpec("gunicorn", argv, env, forks_worker=True, root=root)


def warm(server: Server) -> None:
    """Call the tool a few times, reading the answers: the allocator's steady state."""
    small = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": 1}},
        }
    ).encode()
    for _ in range(5):
        received_bytes(server.port, small)


def measure(kind: str, scenario: str, root: Path, work: Path) -> dict[str, Any]:
    body = request_body(scenario)
    with servers.serving(spec(kind, root), "/mcp", work) as server:
        pid = server.worker_pid()
        warm(server)
        time.sleep(0.5)
        rest = server.rss_kib(pid)
        clients = [stalled_client(server.port, body) for _ in range(CLIENTS)]
        started = time.monotonic()
        peak = rest
        # Until well past CALL_TIMEOUT and its grace: the streams end by then, or never.
        while time.monotonic() - started < CALL_TIMEOUT + 8:
            peak = max(peak, server.rss_kib(pid))
            time.sleep(0.1)
        past_timeout = server.rss_kib(pid)
        # Then each client reads again: the rest of its stream, or what was sent before the
        # stream was ended.
        late = [drain(client) for client in clients]
        for client in clients:
            client.close()
        time.sleep(2)
        left = server.rss_kib(pid)
        answered = received_bytes(server.port, body)
    return {
        "server": kind,
        "scenario": scenario,
        "request_bytes": len(body),
        "rest_kib": rest,
        "peak_kib": peak,
        "past_timeout_kib": past_timeout,
        "late_bytes": max(size for size, _ in late),
        "late_answers": sum(answered for _, answered in late),
        "left_kib": left,
        "answer_bytes": answered,
    }


def migrate(root: Path, work: Path) -> dict[str, str]:
    env = {"BENCH_DATABASE": str(work / "streams.sqlite3")}
    subprocess.run(
        [sys.executable, "-m", "django", "migrate", "-v", "0"],
        env={
            **os.environ,
            **env,
            "DJANGO_SETTINGS_MODULE": "bench.project.settings",
            "PYTHONPATH": str(root),
        },
        cwd=root,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return env


def served_root(checkout: Path | None, work: Path) -> Path:
    """Return the folder the servers run in: this repository, or ``checkout``'s mcp_tools
    beside this repository's bench project (links in ``work``)."""
    if checkout is None:
        return ROOT
    root = work / "root"
    root.mkdir()
    (root / "mcp_tools").symlink_to(checkout.resolve() / "mcp_tools")
    (root / "bench").symlink_to(ROOT / "bench")
    return root


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, help="a checkout whose mcp_tools to serve")
    parser.add_argument("--servers", default=",".join(SERVERS))
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mcp-tools-streams-") as folder:
        work = Path(folder)
        root = served_root(args.root, work)
        os.environ.update(migrate(root, work))
        for kind in args.servers.split(","):
            for scenario in args.scenarios.split(","):
                print(f"{kind}, {scenario} ...", file=sys.stderr, flush=True)
                rows.append(measure(kind, scenario, root, work))
    print(
        "| server | 1 MB in | RSS at rest | most, 3 clients | 18 s later | "
        "each stalled client then reads | clients gone | one reader gets |"
    )
    print("| :--- | :--- | ---: | ---: | ---: | :--- | ---: | ---: |")
    for row in rows:
        answers = f"{row['late_answers']} of {CLIENTS} answers"
        print(
            f"| {row['server']} | {row['scenario']} | {mib(row['rest_kib'])} MiB | "
            f"{mib(row['peak_kib'])} MiB | {mib(row['past_timeout_kib'])} MiB | "
            f"≤ {row['late_bytes']:,} B, {answers} | "
            f"{mib(row['left_kib'])} MiB | {row['answer_bytes']:,} B |"
        )
    print(json.dumps(rows), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
