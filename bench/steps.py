"""What each step of a trivial ``tools/call`` costs, timed without a tracer.

``bench/inprocess.py --profile`` shows the whole call tree, but its tracer adds a few
microseconds to every Python call, more than many steps cost, so its small figures are good
to a few microseconds at best. This harness times only the steps named in ``STEPS``: each
is wrapped in a function that reads ``time.perf_counter_ns()`` before and after (about 0.1
us a step), and every step's time is split into the time of the steps it calls and its own.
The trivial call and the direct GET run as in ``bench/inprocess.py``, in interleaved rounds.

Times on a shared machine move by 15% from run to run, more than a step's change. So it
also counts the Python and C function calls of one request of each kind (with
``sys.setprofile``, after the timed rounds): the same count on every run, and a close guide
to CPU time (the ratio of the counts, direct over tools/call, was 0.60 against a measured
throughput ratio of 0.61 to 0.65 in the current profile, 0.76 against 0.74 to 0.77 in the
production one).

    .venv/bin/python bench/steps.py [--rounds 7] [--calls 2000] [--production]
                                    [--without redis,middleware,admin,auth] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import inprocess  # noqa: E402

#: The steps timed, as (the module or class the call looks the name up in, the name, a
#: label). A function imported by name is wrapped where its caller looks it up.
STEPS = [
    ("mcp_tools.endpoint.view:MCPView", "dispatch", "the /mcp view"),
    ("mcp_tools.endpoint.view:MCPView", "check_transport", "transport checks"),
    ("mcp_tools.endpoint.view:MCPView", "read_body", "reading the body"),
    ("mcp_tools.protocol.jsonrpc", "loads", "parsing the JSON"),
    ("mcp_tools.endpoint.view:MCPView", "authenticate", "the caller"),
    ("mcp_tools.endpoint.server", "serve_message", "the message, up to the view"),
    ("mcp_tools.endpoint.server", "parse_message", "the JSON-RPC message"),
    ("mcp_tools.endpoint.tracing", "begin", "the span"),
    ("mcp_tools.protocol.versions", "detect", "the era"),
    ("mcp_tools.endpoint.exchange:Exchange", "plan", "the tool, its plan and visibility"),
    ("mcp_tools.pipeline.invocation:Invocation", "__init__", "the invocation"),
    ("mcp_tools.pipeline.invocation:Invocation", "start", "arguments and the view's request"),
    ("mcp_tools.auth.caller:Caller", "identity_for", "the caller handed over"),
    ("mcp_tools.pipeline.invocation", "build_inner_request", "the view's request"),
    ("mcp_tools.pipeline.inner_requests", "client_environ", "the client's environ"),
    ("django.core.handlers.wsgi:WSGIRequest", "__init__", "WSGIRequest()"),
    ("mcp_tools.pipeline.inner_requests", "carried_attributes", "the middleware's attributes"),
    ("mcp_tools.endpoint.view:MCPView", "run_invocation", "running the call"),
    ("mcp_tools.endpoint.server", "serve_invocation", "the invocation served"),
    ("mcp_tools.pipeline.invocation:Invocation", "run", "the invocation run"),
    ("mcp_tools.pipeline.invocation", "call_view", "the middleware chain and the view"),
    ("mcp_tools.pipeline.formatters:ResponseFormatter", "format_response", "formatting"),
    ("mcp_tools.pipeline.invocation:Invocation", "finish", "processors and output schema"),
    ("mcp_tools.endpoint.server", "complete", "the envelope"),
    ("mcp_tools.endpoint.server", "project", "projection"),
    ("mcp_tools.endpoint.server", "result_envelope", "encoding"),
    ("mcp_tools.pipeline.invocation:Invocation", "answered", "the report (signal, call log)"),
    ("mcp_tools.endpoint.view", "answer_response", "the HttpResponse"),
]


class Clock:
    """Each wrapped step's total and own nanoseconds, for the calls made while it runs."""

    def __init__(self) -> None:
        self.total: dict[str, int] = defaultdict(int)
        self.own: dict[str, int] = defaultdict(int)
        self.count: dict[str, int] = defaultdict(int)
        #: The callees' time of each step running now, innermost last.
        self.stack: list[int] = []

    def wrap(self, label: str, function: Callable) -> Callable:
        clock = time.perf_counter_ns

        @functools.wraps(function)
        def timed(*args, **kwargs):
            stack = self.stack
            stack.append(0)
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                spent = clock() - start
                inner = stack.pop()
                self.total[label] += spent
                self.own[label] += spent - inner
                self.count[label] += 1
                if stack:
                    stack[-1] += spent

        return timed

    def reset(self) -> None:
        self.total.clear()
        self.own.clear()
        self.count.clear()


@contextlib.contextmanager
def wrapped(clock: Clock) -> Iterator[None]:
    """Wrap every step of ``STEPS`` while the block runs."""
    undo = []
    for where, name, label in STEPS:
        module, _, cls = where.partition(":")
        owner = importlib.import_module(module)
        if cls:
            owner = getattr(owner, cls)
        original = owner.__dict__[name]
        undo.append((owner, name, original))
        setattr(owner, name, clock.wrap(label, original))
    try:
        yield
    finally:
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)


def measure(options: argparse.Namespace) -> dict:
    """Time the steps in interleaved rounds, then count the calls of each request."""
    call = inprocess.setup()
    headers = inprocess.profile_headers()
    direct = inprocess.environ("GET", "/api/trivial/", ACCEPT="application/json", **headers)
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "trivial"}}
    body = json.dumps(message).encode()
    tool_call = inprocess.environ("POST", "/mcp", body, **inprocess.MCP_HEADERS, **headers)
    for _ in range(300):
        call(direct)
        call(tool_call)
    rows: dict[str, list] = defaultdict(list)
    for _ in range(options.rounds):
        round_of(call, direct, tool_call, options.calls, inprocess.CLOCKS["wall"], rows)
    from django.conf import settings

    return {
        "profile": settings.BENCH_PROFILE,
        "without": os.environ.get("BENCH_PRODUCTION_WITHOUT", ""),
        "calls": {"direct": count_calls(call, direct), "tool": count_calls(call, tool_call)},
        "direct_us": statistics.median(rows.pop("direct")),
        "tool_us": statistics.median(rows.pop("tool")),
        "steps": {
            label: [statistics.median(each[i] for each in timed) for i in range(3)]
            for label, timed in rows.items()
        },
    }


def round_of(
    call: Callable[[dict], bytes],
    direct: dict,
    tool_call: dict,
    calls: int,
    timer: Callable[[], float],
    rows: dict[str, list],
) -> None:
    """Time one round: the direct GET, the tool call, and the tool call with its steps."""
    rows["direct"].append(inprocess.per_call(call, direct, calls, timer) * 1e6)
    rows["tool"].append(inprocess.per_call(call, tool_call, calls, timer) * 1e6)
    clock = Clock()
    with wrapped(clock):
        timed = inprocess.per_call(call, tool_call, calls, timer)
    for label in clock.total:
        rows[label].append(
            (
                clock.total[label] / calls / 1000,
                clock.own[label] / calls / 1000,
                clock.count[label] / calls,
            )
        )
    rows["(the whole request, steps timed)"].append((timed * 1e6, 0.0, 1.0))


def count_calls(call: Callable[[dict], bytes], environ: dict, requests: int = 20) -> dict:
    """Return the Python and C calls one request makes, by where the function lives (warm:
    a variant's switch of settings makes the next request build its catalog again)."""
    for _ in range(50):
        call(environ)
    calls: dict[str, int] = defaultdict(int)

    def counted(frame, event, arg) -> None:
        if event == "call":
            calls[package_of(frame.f_code.co_filename)] += 1
        elif event == "c_call":
            calls["C functions"] += 1

    sys.setprofile(counted)
    try:
        for _ in range(requests):
            call(environ)
    finally:
        sys.setprofile(None)
    return {where: count / requests for where, count in sorted(calls.items())}


PACKAGES = ("mcp_tools", "rest_framework", "django", "redis", "opentelemetry", "bench")


def package_of(filename: str) -> str:
    parts = Path(filename).parts
    return next((name for name in PACKAGES if name in parts), "the standard library, other")


def describe(figures: dict) -> str:
    order = [label for _, _, label in STEPS] + ["(the whole request, steps timed)"]
    title = f"{figures['profile']} profile" + (
        f" without {figures['without']}" if figures["without"] else ""
    )
    added = figures["tool_us"] - figures["direct_us"]
    lines = [
        f"{title}: wall clock, medians of the rounds",
        f"direct GET            {figures['direct_us']:8.1f} us",
        f"tools/call            {figures['tool_us']:8.1f} us",
        f"added by the endpoint {added:8.1f} us",
        "",
        f"  {'step (us per tools/call)':<44}{'total':>8}{'own':>8}{'calls':>7}",
    ]
    for label in order:
        if label in figures["steps"]:
            total, own, count = figures["steps"][label]
            lines.append(f"  {label:<44}{total:>8.1f}{own:>8.1f}{count:>7.2f}")
    direct, tool = (figures["calls"][side] for side in ("direct", "tool"))
    lines += [
        "",
        f"  {'Python and C calls per request':<44}{'direct':>8}{'tool':>8}{'added':>7}",
    ]
    for where in sorted(set(direct) | set(tool)):
        d, t = direct.get(where, 0), tool.get(where, 0)
        lines.append(f"  {where:<44}{d:>8.0f}{t:>8.0f}{t - d:>+7.0f}")
    d, t = sum(direct.values()), sum(tool.values())
    lines.append(f"  {'all':<44}{d:>8.0f}{t:>8.0f}{t - d:>+7.0f}  (ratio {d / t:.2f})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--production", action="store_true")
    parser.add_argument("--without", default="")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    with inprocess.profile(options.production, options.without):
        figures = measure(options)
    print(json.dumps(figures) if options.json else describe(figures))


if __name__ == "__main__":
    main()
