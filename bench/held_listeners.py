"""Held listeners: how many ``subscriptions/listen`` streams a server holds while another
caller is still served, and how soon all of them hear a change.

Each listener is another anonymous caller (its own ``X-Forwarded-For``, ``NUM_PROXIES`` = 1)
that opens a 2026-07-28 ``subscriptions/listen`` for ``toolsListChanged`` on a connection of
its own and keeps reading. Listeners come one after another, up to ``--listeners``; after
each, a ``tools/list`` of yet another caller, on a new connection, is timed (at most
``--patience`` seconds). Each listener is counted as held (its acknowledgement came),
refused (429 at once: the budget) or stalled (nothing within 3 s: no thread took it). Then
one call of ``test_trigger_tool_change`` retitles a tool in the admin, and the time until
every held listener has read its ``notifications/tools/list_changed`` is measured.

Servers, on the test suite's conformance project (tests/conformance_app), one worker each,
started on a free 127.0.0.1 port and stopped by PID: uvicorn (ASGI), gunicorn ``gthread``
with four threads, and gunicorn ``sync``. docs/deployment.md has the figures.

    .venv/bin/python bench/held_listeners.py  # docs/deployment.md's table: ~5 minutes
    .venv/bin/python bench/held_listeners.py --configs uvicorn-1000 --listeners 500
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conformance_app.server import running  # noqa: E402

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "held-listeners", "version": "1"},
}
DECIDED_WITHIN = 3.0


@dataclass(frozen=True)
class Config:
    name: str
    kind: str
    threads: int = 1
    max_streams: int | None = None

    def env(self) -> dict[str, str]:
        # A cache of its own: servers copied from one migrated database share its admin
        # state's epoch, and a stamp another run left in a shared cache would pass for theirs.
        cache = tempfile.mkdtemp(prefix="mcp-tools-held-listeners-")
        env = {"MCP_TESTS_NUM_PROXIES": "1", "MCP_TESTS_CACHE": cache}
        if self.max_streams is not None:
            env["MCP_TOOLS_MAX_STREAMS"] = str(self.max_streams)
        return env

    def describe(self) -> str:
        kind = {"uvicorn": "uvicorn (ASGI)", "gunicorn": "gunicorn"}[self.kind]
        if self.kind == "gunicorn":
            kind += " sync" if self.threads == 1 else f" gthread, {self.threads} threads"
        streams = "32 (default)" if self.max_streams is None else str(self.max_streams)
        return f"{kind}; MAX_STREAMS {streams}"


CONFIGS = {
    config.name: config
    for config in (
        Config("uvicorn-default", "uvicorn"),
        Config("uvicorn-100", "uvicorn", max_streams=100),
        Config("uvicorn-1000", "uvicorn", max_streams=1000),
        Config("gthread-3", "gunicorn", threads=4, max_streams=3),
        Config("gthread-default", "gunicorn", threads=4),
        Config("sync", "gunicorn"),
    )
}


#: The configurations of docs/deployment.md's table (uvicorn-1000 is run with 500 listeners).
DEFAULT_CONFIGS = ("uvicorn-default", "uvicorn-100", "gthread-3", "gthread-default", "sync")


def http_request(port: int, message: dict, client: str, close: bool = False) -> bytes:
    body = json.dumps(message).encode()
    method = message["method"]
    headers = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"MCP-Protocol-Version: {VERSION}",
        f"Mcp-Method: {method}",
        f"X-Forwarded-For: {client}",
        f"Content-Length: {len(body)}",
    ]
    if method == "tools/call":
        headers.append(f"Mcp-Name: {message['params']['name']}")
    if close:
        headers.append("Connection: close")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


def open_listener(port: int, number: int) -> tuple[str, float, socket.socket]:
    """Open a listener; return held, refused or stalled, the seconds that took, its socket."""
    listen = {"jsonrpc": "2.0", "id": number, "method": "subscriptions/listen"}
    listen["params"] = {"notifications": {"toolsListChanged": True}, "_meta": META}
    sock = socket.create_connection(("127.0.0.1", port))
    started = time.monotonic()
    sock.sendall(http_request(port, listen, f"10.3.{number // 250}.{number % 250 + 1}"))
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
        if b"subscriptions/acknowledged" in received:
            return "held", time.monotonic() - started, sock
        if b" 429 " in received.split(b"\r\n", 1)[0] or b'"error"' in received:
            sock.close()
            return "refused", time.monotonic() - started, sock
    return "stalled", time.monotonic() - started, sock


def rpc(port: int, message: dict, patience: float, expect: bytes) -> float | None:
    """Return the seconds another caller's request took, or None past ``patience``."""
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=patience) as sock:
            sock.sendall(
                http_request(
                    port,
                    {**message, "params": {**message["params"], "_meta": META}},
                    "10.2.0.1",
                    close=True,
                )
            )
            received = b""
            while expect not in received or not received.rstrip().endswith(b"}"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
    except TimeoutError:
        return None
    return time.monotonic() - started if expect in received else None


def list_tools(port: int, patience: float) -> float | None:
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    return rpc(port, message, patience, b'"tools"')


def heard_by_all(port: int, sockets: list[socket.socket], patience: float) -> dict:
    """Trigger a change of the tool list; return whether the trigger answered, how many
    listeners read their ``list_changed`` within ``patience``, and when the last did."""
    selector = selectors.DefaultSelector()
    waiting = {}
    for sock in sockets:
        sock.setblocking(False)
        try:  # what came before (keep-alive comments) is not the change
            while sock.recv(65536):
                pass
        except BlockingIOError:
            pass
        selector.register(sock, selectors.EVENT_READ)
        waiting[sock] = b""
    started = time.monotonic()
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}
    call["params"] = {"name": "test_trigger_tool_change", "arguments": {}}
    triggered = rpc(port, call, patience, b'"result"') is not None
    last = None
    while triggered and waiting and time.monotonic() - started < patience:
        for key, _ in selector.select(timeout=0.1):
            sock = key.fileobj
            try:
                waiting[sock] += sock.recv(65536)
            except BlockingIOError:
                continue
            if b"notifications/tools/list_changed" in waiting[sock]:
                selector.unregister(sock)
                del waiting[sock]
                last = time.monotonic() - started
    return {"triggered": triggered, "heard": len(sockets) - len(waiting), "last": last}


def measure(config: Config, listeners: int, patience: float) -> dict:
    with running(config.kind, env=config.env(), threads=config.threads) as (url, _):
        port = urlsplit(url).port
        assert port is not None
        assert list_tools(port, 10) is not None  # warmed up
        rows, held = [], []
        survived = 0
        for number in range(1, listeners + 1):
            outcome, took, sock = open_listener(port, number)
            if outcome == "held":
                held.append(sock)
            listed = list_tools(port, patience)
            rows.append({"listener": number, "outcome": outcome, "took": took, "list": listed})
            if listed is not None and listed < 1 and survived == number - 1:
                survived = number
        heard = heard_by_all(port, held, 10) if held else None
        for sock in held:
            sock.close()
    return {
        "config": config.name,
        "describe": config.describe(),
        "listeners": rows,
        "survived": survived,
        "held": len(held),
        "heard": heard,
    }


def summary(result: dict) -> str:
    counts: dict[str, int] = {}
    for row in result["listeners"]:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    outcomes = ", ".join(f"{count} {outcome}" for outcome, count in sorted(counts.items()))
    lists = [row["list"] for row in result["listeners"]]
    answered = [value for value in lists if value is not None]
    slowest = f"{max(answered) * 1000:.0f} ms" if answered else "none answered"
    timed_out = sum(value is None for value in lists)
    refused = [row["took"] for row in result["listeners"] if row["outcome"] == "refused"]
    refused_in = f"{max(refused) * 1000:.0f} ms" if refused else "–"
    heard = result["heard"]
    if heard is None:
        told = "– (none held)"
    elif not heard["triggered"]:
        told = "the change's call did not answer"
    else:
        last = "–" if heard["last"] is None else f"{heard['last'] * 1000:.0f} ms"
        told = f"{heard['heard']} of {result['held']}, the last in {last}"
    return (
        f"| {result['describe']} | {result['survived']} of {len(lists)} | {outcomes} | "
        f"{refused_in} | {slowest}; {timed_out} timed out | {told} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    parser.add_argument("--listeners", type=int, default=40)
    parser.add_argument("--patience", type=float, default=3.0, help="tools/list's time limit")
    args = parser.parse_args()
    results = []
    for name in args.configs.split(","):
        print(f"{name} ...", file=sys.stderr, flush=True)
        results.append(measure(CONFIGS[name], args.listeners, args.patience))
    print(
        "| server | listeners survived | listeners | slowest refusal | other caller's "
        "tools/list | held listeners that heard a change |"
    )
    print("| :--- | ---: | :--- | ---: | :--- | ---: |")
    for result in results:
        print(summary(result))
    print(json.dumps(results), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
