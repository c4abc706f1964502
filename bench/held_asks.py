"""Silent askers: how many a gunicorn server survives while another caller is still served.

A silent asker is a 2025-11-25 client that calls a tool whose view asks its user
(``test_streaming_elicitation``, which elicits on its stream, as a ``confirm=True`` tool
does), reads the question and never answers: the ask waits ``INPUT_TIMEOUT`` (300 s). Each
asker is another anonymous caller (its own ``X-Forwarded-For``, ``NUM_PROXIES`` = 1), so the
process's ``MAX_STREAMS`` is what bounds them, not one caller's share.

The askers come one after another, up to ``--askers``; after each, a ``tools/list`` of yet
another caller, on a new connection, is timed (at most ``--patience`` seconds). Each asker
is counted as held (its question came), refused (its call ended at once: the budget) or
stalled (nothing came within 3 s: no thread took it). A server survives ``k`` askers while
every ``tools/list`` up to the ``k``-th answered in under a second. Then every asker leaves
(its connection closed), and the time until ``tools/list`` answers again (ten times in a
row, each on a new connection, which either worker may take) is measured.

Servers: two gunicorn workers, ``sync`` or ``gthread`` with four threads each, on the test
suite's conformance project (tests/conformance_app), started on a free 127.0.0.1 port and
stopped by PID. docs/reliability.md has the figures.

    .venv/bin/python bench/held_asks.py                     # every configuration: ~3 minutes
    .venv/bin/python bench/held_asks.py --configs gthread-3 --askers 12
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conformance_app.server import running  # noqa: E402

VERSION = "2025-11-25"
#: Seconds an asker's response may take to say whether it was held or refused.
DECIDED_WITHIN = 3.0
#: ``tools/list`` answered this many times in a row under a second: served again.
RECOVERED_AFTER = 10


@dataclass(frozen=True)
class Config:
    name: str
    threads: int  # 1: sync workers
    max_streams: int | None  # None: the default (32)
    workers: int = 2

    def env(self) -> dict[str, str]:
        env = {"MCP_TESTS_NUM_PROXIES": "1"}
        if self.max_streams is not None:
            env["MCP_TOOLS_MAX_STREAMS"] = str(self.max_streams)
        return env

    def describe(self) -> str:
        kind = "sync" if self.threads == 1 else f"gthread, {self.threads} threads"
        streams = "32 (default)" if self.max_streams is None else str(self.max_streams)
        return f"{self.workers} workers, {kind}; MAX_STREAMS {streams}"


CONFIGS = {
    config.name: config
    for config in (
        Config("sync-default", threads=1, max_streams=None),
        Config("sync-0", threads=1, max_streams=0),
        Config("gthread-default", threads=4, max_streams=None),
        Config("gthread-3", threads=4, max_streams=3),
    )
}


def http_request(port: int, message: dict, client: str, close: bool = False) -> bytes:
    body = json.dumps(message).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {VERSION}\r\n"
        f"X-Forwarded-For: {client}\r\nContent-Length: {len(body)}\r\n"
        f"{'Connection: close' + chr(13) + chr(10) if close else ''}\r\n"
    )
    return head.encode() + body


def open_asker(port: int, number: int) -> tuple[str, float, socket.socket]:
    """Start a silent asker; return held, refused or stalled, the seconds that took, and
    its socket (kept open: the asker stays)."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    call["params"] = {"name": "test_streaming_elicitation", "arguments": {}}
    sock = socket.create_connection(("127.0.0.1", port))
    started = time.monotonic()
    sock.sendall(http_request(port, call, f"10.1.0.{number}"))
    sock.settimeout(0.2)
    received = b""
    while time.monotonic() - started < DECIDED_WITHIN:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            break
        received += chunk
        if b'"method":"elicitation/create"' in received.replace(b" ", b""):
            return "held", time.monotonic() - started, sock
        if b'"result"' in received:
            # Done, as a client honouring the answer's "Connection: close" is: gunicorn 27's
            # sync worker lingers up to 2 s for a client that keeps it open (close_graceful).
            sock.close()
            return "refused", time.monotonic() - started, sock
    return "stalled", time.monotonic() - started, sock


def list_tools(port: int, patience: float) -> float | None:
    """Return the seconds another caller's ``tools/list`` took, or None past ``patience``."""
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=patience) as sock:
            sock.sendall(http_request(port, message, "10.2.0.1", close=True))
            received = b""
            while b'"tools"' not in received or not received.rstrip().endswith(b"}"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
    except TimeoutError:
        return None
    if b'"tools"' not in received:
        return None
    return time.monotonic() - started


def measure(config: Config, askers: int, patience: float) -> dict:
    with running("gunicorn", env=config.env(), workers=config.workers, threads=config.threads) as (
        url,
        _,
    ):
        port = urlsplit(url).port
        assert port is not None
        assert list_tools(port, 10) is not None  # warmed up: both workers built the tools
        list_tools(port, 10)
        rows, sockets = [], []
        survived = 0
        for number in range(1, askers + 1):
            outcome, took, sock = open_asker(port, number)
            sockets.append(sock)
            listed = list_tools(port, patience)
            rows.append({"asker": number, "outcome": outcome, "took": took, "list": listed})
            if listed is not None and listed < 1 and survived == number - 1:
                survived = number
        for sock in sockets:
            sock.close()
        left = time.monotonic()
        recovered = None
        in_a_row = 0  # a new connection may reach either worker: ten answers in a row
        while time.monotonic() - left < 60 and in_a_row < RECOVERED_AFTER:
            listed = list_tools(port, 2)
            if listed is not None and listed < 1:
                in_a_row += 1
                if in_a_row == 1:
                    recovered = time.monotonic() - left
            else:
                in_a_row, recovered = 0, None
    return {
        "config": config.name,
        "describe": config.describe(),
        "askers": rows,
        "survived": survived,
        "recovered": recovered,
    }


def summary(result: dict) -> str:
    counts: dict[str, int] = {}
    for row in result["askers"]:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    outcomes = ", ".join(f"{count} {outcome}" for outcome, count in sorted(counts.items()))
    lists = [row["list"] for row in result["askers"]]
    answered = [value for value in lists if value is not None]
    slowest = f"{max(answered) * 1000:.0f} ms" if answered else "none answered"
    timed_out = sum(value is None for value in lists)
    refused = [row["took"] for row in result["askers"] if row["outcome"] == "refused"]
    refused_in = f"{max(refused) * 1000:.0f} ms" if refused else "–"
    recovered = "not within 60 s" if result["recovered"] is None else f"{result['recovered']:.1f} s"
    if not timed_out and all(value < 1 for value in answered):
        recovered = "never stopped"
    return (
        f"| {result['describe']} | {result['survived']} of {len(lists)} | {outcomes} | "
        f"{refused_in} | {slowest}; {timed_out} timed out | {recovered} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--askers", type=int, default=10)
    parser.add_argument("--patience", type=float, default=3.0, help="tools/list's time limit")
    args = parser.parse_args()
    results = []
    for name in args.configs.split(","):
        print(f"{name} ...", file=sys.stderr, flush=True)
        results.append(measure(CONFIGS[name], args.askers, args.patience))
    print(
        "| server | askers survived | askers | slowest refusal | other caller's tools/list | "
        "served again after they left |"
    )
    print("| :--- | ---: | :--- | ---: | :--- | ---: |")
    for result in results:
        print(summary(result))
    print(json.dumps(results), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
