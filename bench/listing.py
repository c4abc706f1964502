"""In-process figures of ``tools/list`` with ``BENCH_TOOLS`` generated tools, all pages.

Run by bench/run.py once per catalog size, in a fresh process (the tools are declared when
the URLconf is imported). Prints one JSON object: the pages and bytes of a whole listing,
the time to declare the tools, the first (cold) listing, and the p50 and p99 of whole warm
listings through Django's WSGI handler, without sockets.

    BENCH_TOOLS=500 .venv/bin/python bench/listing.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.inprocess import MCP_HEADERS, environ, setup  # noqa: E402


def page_environ(cursor: str | None) -> dict:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    if cursor is not None:
        message["params"]["cursor"] = cursor
    return environ("POST", "/mcp", json.dumps(message).encode(), **MCP_HEADERS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--min-listings", type=int, default=20)
    options = parser.parse_args()
    count = int(os.environ.get("BENCH_TOOLS") or 0)
    if count <= 0:
        parser.error("set BENCH_TOOLS to the number of tools to list")

    call = setup()
    start = time.perf_counter()
    from django.urls import get_resolver

    patterns = get_resolver().url_patterns  # imports the URLconf: declares and routes the tools
    declared = time.perf_counter()
    assert len(patterns) == count + 1, "the generated routes and /mcp"

    # The first listing resolves the registry and builds every page; it finds the cursors.
    pages, cursor, names = [], None, 0
    while True:
        env = page_environ(cursor)
        body = call(env)
        pages.append(env)
        result = json.loads(body)["result"]
        names += len(result["tools"])
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    first = time.perf_counter()
    total_bytes = sum(len(call(env)) for env in pages)

    times = []
    deadline = time.perf_counter() + options.seconds
    while len(times) < options.min_listings or time.perf_counter() < deadline:
        begin = time.perf_counter()
        for env in pages:
            call(env)
        times.append(time.perf_counter() - begin)
    times.sort()
    print(
        json.dumps(
            {
                "tools": names,
                "pages": len(pages),
                "bytes": total_bytes,
                "declare_ms": (declared - start) * 1000,
                "first_ms": (first - declared) * 1000,
                "p50_ms": statistics.median(times) * 1000,
                "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))] * 1000,
                "listings": len(times),
            }
        )
    )


if __name__ == "__main__":
    main()
