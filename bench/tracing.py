"""What tracing costs one in-process ``tools/call``: without OpenTelemetry, with its API alone,
and with the SDK recording every span.

Each configuration runs in a process of its own (a process sets its tracer provider once,
and "absent" must hide the package before anything imports it), the processes taking turns
so that the machine's noise falls on all alike. The call is bench/inprocess.py's: Django's
WSGI handler, the whole middleware chain, a trivial tool.

- ``absent``: ``opentelemetry`` cannot be imported (a project without the ``[otel]`` extra
  and without ``mcp``'s dependency on it): every trace is the shared no-op object;
- ``api``: the API installed, nothing in the process importing it (what ``pip install
  django-mcp-tools`` gives, since ``mcp`` depends on the API): the endpoint doesn't import
  it either, so this is "absent" again;
- ``sdk``: the SDK's tracer provider with a span processor that drops what it gets, the
  cost of recording itself (attributes, span objects), less any exporter's;
- ``sdk+context``: the same, the request carrying a ``traceparent`` in ``_meta``.

    .venv/bin/python bench/tracing.py [--turns 5] [--calls 2000] [--json]
    .venv/bin/python bench/tracing.py --instructions   # valgrind: repeatable on a busy machine
    .venv/bin/python bench/tracing.py --no-op          # what "absent" adds, timed alone

``--instructions`` counts what one call executes under callgrind instead of timing it: the
difference between two runs of different lengths, so start-up and warm-up cancel out, and
the count does not depend on what else the machine is doing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGURATIONS = ("absent", "api", "sdk", "sdk+context")
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def child(configuration: str, calls: int, warm: int = 300) -> float:
    """Measure one configuration in this process; return the mean microseconds per call."""
    sys.path.insert(0, str(ROOT))
    if configuration == "absent":
        sys.modules["opentelemetry"] = None  # type: ignore[assignment]  # import fails
    elif configuration.startswith("sdk"):
        from opentelemetry import trace
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

        provider = TracerProvider()
        provider.add_span_processor(SpanProcessor())
        trace.set_tracer_provider(provider)
    from bench.inprocess import CLOCKS, MCP_HEADERS, environ, per_call, setup

    call = setup()
    params: dict = {"name": "trivial"}
    if configuration == "sdk+context":
        params["_meta"] = {"traceparent": TRACEPARENT}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    tool_call = environ("POST", "/mcp", json.dumps(message).encode(), **MCP_HEADERS)
    from mcp_tools.endpoint import tracing

    for _ in range(warm):
        call(tool_call)
    # The API alone is never imported: nothing in this process uses it (mcp_tools.endpoint.tracing).
    assert (tracing.trace is None) == (configuration in ("absent", "api"))
    cpu = CLOCKS["cpu"]
    return statistics.median(per_call(call, tool_call, calls, cpu) for _ in range(3)) * 1e6


def no_op_cost(repeat: int = 200_000) -> float:
    """Return the nanoseconds the no-op trace adds to one request (``opentelemetry`` absent).

    What the server calls on it per request: ``begin``, ``version``, ``active``, ``result``,
    ``end``. Timed alone, since it is far below the noise of a whole call.
    """
    import os
    import timeit

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
    import django

    django.setup()
    from django.test import RequestFactory

    from mcp_tools.endpoint import tracing
    from mcp_tools.protocol.jsonrpc import parse_message

    assert not tracing._loaded()  # as without the package: nothing here imported it
    message = parse_message(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "trivial"}}
    )
    request = RequestFactory().post("/mcp")

    def one_request() -> None:
        trace = tracing.begin(message, request)
        trace.version("2025-11-25")
        with trace.active():
            pass
        trace.result(None)
        trace.end()

    return min(timeit.repeat(one_request, number=repeat, repeat=5)) / repeat * 1e9


def instructions(configuration: str, short: int = 10, long: int = 60) -> float:
    """Return the instructions one call executes (callgrind), start-up and warm-up cancelled.

    A fixed hash seed makes the runs repeatable (dict layouts, and so the collector's turns).
    """
    counts = []
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for calls in (short, long):
        command = [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            "--child",
            configuration,
            "--calls",
            str(calls),
            "--warm",
            "20",
        ]
        done = subprocess.run(
            command, cwd=ROOT, env=env, check=True, capture_output=True, text=True
        )
        counts.append(int(re.search(r"Collected : (\d+)", done.stderr).group(1)))
    # The child measures three runs of ``calls`` calls each.
    return (counts[1] - counts[0]) / (3 * (long - short))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--instructions", action="store_true", help="count, under callgrind")
    parser.add_argument("--no-op", action="store_true", help="time the absent case's no-op alone")
    parser.add_argument("--child", choices=CONFIGURATIONS, help=argparse.SUPPRESS)
    parser.add_argument("--warm", type=int, default=300, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        print(child(options.child, options.calls, options.warm))
        return
    if options.no_op:
        print(f"the no-op trace of one request: {no_op_cost():.0f} ns")
        return
    if options.instructions:
        counted = {name: instructions(name) for name in CONFIGURATIONS}
        if options.json:
            print(json.dumps({"instructions_per_call": counted}))
            return
        base = counted["absent"]
        print("tools/call, instructions per call (callgrind)")
        for name, value in counted.items():
            print(f"{name:12s} {value:12,.0f}  ({(value - base) / base:+.2%} vs absent)")
        return
    samples: dict[str, list[float]] = {name: [] for name in CONFIGURATIONS}
    for _ in range(options.turns):
        for name in CONFIGURATIONS:
            out = subprocess.run(
                [sys.executable, __file__, "--child", name, "--calls", str(options.calls)],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            samples[name].append(float(out.strip().splitlines()[-1]))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    if options.json:
        print(json.dumps({"us_per_call": medians, "samples": samples}))
        return
    base = medians["absent"]
    print(f"tools/call, median of {options.turns} processes per configuration")
    for name, value in medians.items():
        spread = f"{min(samples[name]):.1f}-{max(samples[name]):.1f}"
        print(f"{name:12s} {value:7.1f} us  ({value - base:+6.1f} us vs absent; range {spread})")


if __name__ == "__main__":
    main()
