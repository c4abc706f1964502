"""The floor of a streamed answer under gunicorn, outside Django: what the worker's CPU pays
per request for the stream itself (chunked) and for a hand-over between two threads.

The three applications of ``bench/floor_app.py`` each under the bench's gunicorn (one sync
worker pinned to one core, wrk on the other, c=1), in interleaved repetitions; the worker's
CPU per request is the figure (docs/performance.md#what-the-hand-over-costs).

    bench/.venv/bin/python bench/handoff.py [--seconds 4] [--reps 3] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import load, servers  # noqa: E402

APPS = ("plain", "stream", "handed")
CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trivial"}}'
LOAD = load.Load((load.Request("POST", "/", CALL),), (("Content-Type", "application/json"),))


def measure(seconds: int, reps: int, work: Path) -> dict[str, dict[str, float]]:
    """Return each application's median worker CPU (µs) per request and req/s."""
    cpu: dict[str, list[float]] = {app: [] for app in APPS}
    rps: dict[str, list[float]] = {app: [] for app in APPS}
    with contextlib.ExitStack() as stack:
        running = {}
        for app in APPS:
            spec = servers.gunicorn(f"bench.floor_app:{app}")
            running[app] = stack.enter_context(servers.serving(spec, "/", work))
            load.run(running[app].base_url, LOAD, connections=1, seconds=1, work_dir=work)
        for rep in range(reps):
            for app in APPS if rep % 2 == 0 else reversed(APPS):
                server = running[app]
                before = server.cpu_seconds()
                result = load.run(
                    server.base_url, LOAD, connections=1, seconds=seconds, work_dir=work
                )
                if result.bad or not result.requests:
                    raise load.LoadFailed(f"{app}: {result.first_bad or 'no answer'}")
                cpu[app].append((server.cpu_seconds() - before) / result.requests * 1e6)
                rps[app].append(result.rps)
    return {
        app: {"cpu_us": statistics.median(cpu[app]), "rps": statistics.median(rps[app])}
        for app in APPS
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    options = parser.parse_args()
    load.ensure_wrk()
    with tempfile.TemporaryDirectory(prefix="bench-handoff-") as work:
        figures = measure(options.seconds, options.reps, Path(work))
    if options.json:
        print(json.dumps(figures))
        return
    base = figures["plain"]["cpu_us"]
    print(f"gunicorn, one sync worker, c=1: median of {options.reps} runs of {options.seconds} s")
    for app in APPS:
        cpu, rate = figures[app]["cpu_us"], figures[app]["rps"]
        print(f"{app:<8} {cpu:7.1f} us of CPU per request (+{cpu - base:5.1f})  {rate:8.0f} req/s")


if __name__ == "__main__":
    main()
