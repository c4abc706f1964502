"""In-process micro-benchmark: one trivial ``tools/call`` against the direct request.

No sockets: both requests go through Django's WSGI handler (the whole middleware chain), as
a WSGI server would call it, interleaved in rounds so the machine's noise hits both alike.
Reports the cost of each, what the endpoint adds in microseconds and as a share of the
direct request, and with ``--profile`` where the added time goes (cProfile, by function).

    .venv/bin/python bench/inprocess.py [--rounds 7] [--calls 2000] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def setup() -> Callable[[dict], None]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    handler = WSGIHandler()

    def start_response(status: str, headers: list) -> None:
        if not status.startswith("200"):
            raise AssertionError(status)

    def call(environ: dict) -> None:
        environ = dict(environ)
        environ["wsgi.input"] = io.BytesIO(environ.pop("body", b""))
        response = handler(environ, start_response)
        body = b"".join(response)
        response.close()
        if b'"isError":true' in body:
            raise AssertionError(body)

    return call


def environ(method: str, path: str, body: bytes = b"", **headers: str) -> dict:
    env = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
        "body": body,
        "CONTENT_LENGTH": str(len(body)),
    }
    if body:
        env["CONTENT_TYPE"] = "application/json"
    env.update({f"HTTP_{name.upper()}": value for name, value in headers.items()})
    return env


def per_call(call: Callable[[dict], None], env: dict, calls: int) -> float:
    """Return the mean seconds of one call over ``calls`` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        call(env)
    return (time.perf_counter() - start) / calls


def profile(call: Callable[[dict], None], env: dict, calls: int, top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        call(env)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    parser.add_argument("--top", type=int, default=30)
    options = parser.parse_args()

    call = setup()
    direct = environ("GET", "/api/trivial/", HTTP_ACCEPT="application/json")
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "trivial"}}
    tool_call = environ(
        "POST",
        "/mcp",
        json.dumps(message).encode(),
        ACCEPT="application/json, text/event-stream",
        MCP_PROTOCOL_VERSION="2025-11-25",
    )
    for _ in range(300):  # warm: URL resolution, the tool registry, validators
        call(direct)
        call(tool_call)

    directs, tools = [], []
    for _ in range(options.rounds):
        directs.append(per_call(call, direct, options.calls))
        tools.append(per_call(call, tool_call, options.calls))
    d, t = statistics.median(directs) * 1e6, statistics.median(tools) * 1e6
    print(f"median of {options.rounds} interleaved rounds of {options.calls} calls each")
    print(f"direct GET           {d:8.1f} us")
    print(f"tools/call           {t:8.1f} us")
    print(f"added by the endpoint {t - d:7.1f} us  ({(t - d) / d:.2f} of the direct request)")
    print(f"throughput ratio      {d / t:7.2f}")
    if options.profile:
        print("\n== tools/call, by own time\n")
        print(profile(call, tool_call, options.calls, options.top))


if __name__ == "__main__":
    main()
