"""In-process: a trivial ``tools/call`` answered as an SSE stream against the same call
answered as JSON.

A call with a progress token streams: its view runs in one of the process's call threads
while the request's thread relays the stream (docs/performance.md#what-the-hand-over-costs).
Both calls go through Django's WSGI handler, as a WSGI server would call it, in interleaved
rounds. Reports the CPU time of the whole process per call (the view's thread included),
what the stream adds, and the context switches per call (``getrusage``: the process's, both
threads'). ``--cpu N`` pins the process to core N before any thread starts, as the bench's
gunicorn worker is pinned: on two cores the two threads run side by side and cost more.

    bench/.venv/bin/python bench/streamed.py [--rounds 5] [--calls 1500] [--cpu 1]
                                             [--production] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import cases  # noqa: E402
from bench.inprocess import MCP_HEADERS, Call, environ, profile, profile_headers, setup  # noqa: E402


def tool_call(*, streamed: bool) -> dict:
    """Return the environ of a ``tools/call`` of the trivial tool, with a progress token when
    ``streamed`` (the answer is then an SSE stream)."""
    body = cases.tool_call("trivial", {}, progress_token=streamed).encode()
    return environ("POST", "/mcp", body, **MCP_HEADERS, **profile_headers())


def switches() -> int:
    """Return the context switches of this process so far, voluntary or not."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_nvcsw + usage.ru_nivcsw


def per_call(call: Call, env: dict, calls: int) -> tuple[float, float]:
    """Return the process's CPU seconds and context switches per call, over ``calls``."""
    cpu, switched = time.process_time(), switches()
    for _ in range(calls):
        call(env)
    return (time.process_time() - cpu) / calls, (switches() - switched) / calls


def measure(options: argparse.Namespace) -> dict:
    call = setup()
    plain, streamed = tool_call(streamed=False), tool_call(streamed=True)
    first = call(streamed)
    if not first.startswith(b"event: message\ndata: ") or b'"result"' not in first:
        raise AssertionError(f"the call with a progress token was not streamed: {first[:200]!r}")
    for _ in range(300):  # warm: the catalog, the validators, the call thread
        call(plain)
        call(streamed)
    rounds = {"plain": [], "streamed": []}
    for _ in range(options.rounds):
        rounds["plain"].append(per_call(call, plain, options.calls))
        rounds["streamed"].append(per_call(call, streamed, options.calls))
    figures = {}
    for name, measured in rounds.items():
        figures[f"{name}_us"] = statistics.median(cpu for cpu, _ in measured) * 1e6
        figures[f"{name}_switches"] = statistics.median(switched for _, switched in measured)
    figures["added_us"] = figures["streamed_us"] - figures["plain_us"]
    figures["ratio"] = figures["plain_us"] / figures["streamed_us"]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--cpu", type=int, help="pin the process to this core first")
    parser.add_argument("--production", action="store_true", help="the production profile")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    options = parser.parse_args()
    if options.cpu is not None:
        os.sched_setaffinity(0, {options.cpu})  # threads started later inherit it
    with profile(options.production):
        figures = measure(options)
    if options.json:
        print(json.dumps(figures))
        return
    pinned = f"pinned to core {options.cpu}" if options.cpu is not None else "not pinned"
    print(f"median of {options.rounds} interleaved rounds of {options.calls} calls, {pinned}")
    for label, name in (("answered as JSON", "plain"), ("answered as SSE", "streamed")):
        cpu, switched = figures[f"{name}_us"], figures[f"{name}_switches"]
        print(f"{label:<21} {cpu:7.1f} us   {switched:.1f} context switches")
    print(f"added by the stream   {figures['added_us']:7.1f} us   (ratio {figures['ratio']:.2f})")


if __name__ == "__main__":
    main()
