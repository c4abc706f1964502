"""In-process micro-benchmark: one trivial ``tools/call`` against the direct request.

No sockets: both requests go through Django's WSGI handler (the whole middleware chain), as
a WSGI server would call it, interleaved in rounds so the machine's noise hits both alike.
Reports the cost of each, what the endpoint adds in microseconds and as a share of the
direct request, and with ``--profile`` where the added time goes: cProfile of both
requests, the tool's view told apart from the endpoint around it, the endpoint's own
functions by cumulative time and the outside code they call.

    .venv/bin/python bench/inprocess.py [--rounds 7] [--calls 2000] [--profile] [--json]
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
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MCP_HEADERS = {
    "ACCEPT": "application/json, text/event-stream",
    "MCP_PROTOCOL_VERSION": "2025-11-25",
}

Call = Callable[[dict], bytes]
#: pstats' key of a function: (file name, first line, function name).
Func = tuple[str, int, str]


def setup() -> Call:
    """Set Django up and return a function that runs one WSGI request and returns its body."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    handler = WSGIHandler()

    def start_response(status: str, headers: list) -> None:
        if not status.startswith("200"):
            raise AssertionError(status)

    def call(environ: dict) -> bytes:
        environ = dict(environ)
        environ["wsgi.input"] = io.BytesIO(environ.pop("body", b""))
        response = handler(environ, start_response)
        body = b"".join(response)
        response.close()
        if b'"isError":true' in body or b'"error":{"code"' in body:
            raise AssertionError(body)
        return body

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


def per_call(call: Call, env: dict, calls: int) -> float:
    """Return the mean seconds of one call over ``calls`` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        call(env)
    return (time.perf_counter() - start) / calls


def profile(call: Call, env: dict, calls: int) -> pstats.Stats:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        call(env)
    profiler.disable()
    return pstats.Stats(profiler, stream=io.StringIO())


# -- attribution ------------------------------------------------------------------------------


@dataclass
class Line:
    """One function's time per call, in microseconds under the profiler."""

    name: str
    cumulative_us: float
    own_us: float = 0.0
    calls: float = 0.0


@dataclass
class Attribution:
    """Where one profiled request's time goes; every figure is microseconds per request."""

    request_us: float
    endpoint_us: float
    view_us: float
    direct_request_us: float
    direct_view_us: float
    ours: list[Line] = field(default_factory=list)
    outside: list[Line] = field(default_factory=list)

    @property
    def around_view_us(self) -> float:
        return self.endpoint_us - self.view_us


def package_dir() -> str:
    import mcp_tools

    return str(Path(mcp_tools.__file__).resolve().parent) + os.sep


def is_ours(func: Func, ours: str) -> bool:
    return func[0].startswith(ours)


def code_key(function: Callable) -> Func:
    """Return pstats' key of a Python function."""
    code = function.__code__
    return (code.co_filename, code.co_firstlineno, code.co_name)


@dataclass(frozen=True)
class Keys:
    """The functions the attribution splits a request at (pstats keys)."""

    #: What Django calls for /mcp, and for the tool's route (the same wrapper, often).
    endpoint: Func
    view: Func
    #: Rendering a DRF response: Django's handler does it for a direct request, the
    #: endpoint for the tool's view; it belongs to the view's cost either way.
    render: Func


def split_keys(tool_path: str) -> Keys:
    from django.template.response import SimpleTemplateResponse
    from django.urls import resolve

    return Keys(
        endpoint=code_key(resolve("/mcp").func),
        view=code_key(resolve(tool_path).func),
        render=code_key(SimpleTemplateResponse.render),
    )


def label(func: Func, ours: str) -> str:
    """Return ``module.function`` for mcp_tools, ``package/module.py:function`` otherwise."""
    filename, _, name = func
    if filename.startswith(ours):
        module = Path(filename).relative_to(ours).with_suffix("").as_posix().replace("/", ".")
        return f"{module}.{name}"
    if filename.startswith("~") or filename.startswith("<"):
        return name.strip("<>")  # built-ins: {method 'join' of 'bytes' objects}
    parts = Path(filename).parts
    cut = max((i for i, part in enumerate(parts) if part in ("site-packages", "lib")), default=0)
    return f"{'/'.join(parts[cut + 1 :])}:{name}"


def _request_us(stats: dict, per: float) -> float:
    """Return the WSGI handler's cumulative time per request."""
    for func, (_, _, _, cumulative, _) in stats.items():
        if func[2] == "__call__" and func[0].replace(os.sep, "/").endswith("handlers/wsgi.py"):
            return cumulative * per
    return 0.0


def _edges(stats: dict, func: Func, *, from_ours: bool, ours: str) -> float:
    """Return the time of ``func`` when called from mcp_tools (or from anything else)."""
    callers = stats.get(func, (0, 0, 0, 0, {}))[4]
    return sum(edge[3] for caller, edge in callers.items() if is_ours(caller, ours) == from_ours)


def attribute(
    tool: pstats.Stats, direct: pstats.Stats, keys: Keys, calls: int, top: int
) -> Attribution:
    """Split a profiled tools/call into the tool's view and the endpoint around it."""
    ours = package_dir()
    per = 1e6 / calls
    stats, direct_stats = tool.stats, direct.stats  # type: ignore[attr-defined]
    view_keys = (keys.view, keys.render)
    # Outside functions that call back into mcp_tools (View.dispatch calling post, say) are
    # passages, not costs of their own: leave them out of the outside list.
    passages = {
        caller
        for func, (*_, callers) in stats.items()
        if is_ours(func, ours)
        for caller in callers
        if not is_ours(caller, ours)
    }
    outside: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for func, (*_, callers) in stats.items():
        if is_ours(func, ours) or func in view_keys or func in passages:
            continue
        for caller, edge in callers.items():
            if is_ours(caller, ours):
                outside[label(func, ours)][0] += edge[3]
                outside[label(func, ours)][1] += edge[1]
    own = [
        Line(label(func, ours), cumulative * per, own_time * per, count / calls)
        for func, (_, count, own_time, cumulative, _) in stats.items()
        if is_ours(func, ours)
    ]
    own.sort(key=lambda line: line.cumulative_us, reverse=True)
    external = [
        Line(name, time_ * per, calls=count / calls) for name, (time_, count) in outside.items()
    ]
    external.sort(key=lambda line: line.cumulative_us, reverse=True)
    return Attribution(
        request_us=_request_us(stats, per),
        endpoint_us=_edges(stats, keys.endpoint, from_ours=False, ours=ours) * per,
        view_us=sum(_edges(stats, key, from_ours=True, ours=ours) for key in view_keys) * per,
        direct_request_us=_request_us(direct_stats, per),
        direct_view_us=sum(
            _edges(direct_stats, key, from_ours=False, ours=ours) for key in view_keys
        )
        * per,
        ours=own[:top],
        outside=external[:top],
    )


def describe(attribution: Attribution, measured_added_us: float) -> str:
    """Return the attribution as an indented, readable summary."""
    a = attribution
    added = a.request_us - a.direct_request_us
    # cProfile slows every Python call alike; scale its figures to the measured cost.
    scale = measured_added_us / added if added > 0 else 1.0
    lines = [
        "Where a trivial tools/call spends its time (cProfile; profiled times run slow, so the",
        f"last column scales them by {scale:.2f} to the unprofiled added time):",
        "",
        f"{'':<58}{'profiled us':>12}{'est. us':>9}",
        f"{'whole tools/call request (WSGI handler)':<58}{a.request_us:>12.1f}",
        f"{'whole direct GET request':<58}{a.direct_request_us:>12.1f}",
        f"{'  added by the endpoint':<58}{added:>12.1f}{added * scale:>9.1f}",
        f"{'the /mcp view, as Django calls it':<58}{a.endpoint_us:>12.1f}",
        f"{'  the tool view and its rendering (direct: ' + f'{a.direct_view_us:.1f})':<58}"
        f"{a.view_us:>12.1f}",
        f"{'  the endpoint around the view':<58}{a.around_view_us:>12.1f}"
        f"{a.around_view_us * scale:>9.1f}",
        "",
        "mcp_tools functions by cumulative time (includes callees; us per tools/call):",
        f"  {'function':<50}{'cumul.':>9}{'own':>8}{'calls':>7}{'est. us':>9}",
    ]
    for line in a.ours:
        lines.append(
            f"  {line.name:<50}{line.cumulative_us:>9.1f}{line.own_us:>8.1f}{line.calls:>7.1f}"
            f"{line.cumulative_us * scale:>9.1f}"
        )
    lines += [
        "",
        "outside code called by mcp_tools, the tool view excepted (us per tools/call):",
        f"  {'function':<58}{'cumul.':>9}{'calls':>7}{'est. us':>9}",
    ]
    for line in a.outside:
        lines.append(
            f"  {line.name:<58}{line.cumulative_us:>9.1f}{line.calls:>7.1f}"
            f"{line.cumulative_us * scale:>9.1f}"
        )
    return "\n".join(lines)


# -- main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    parser.add_argument("--top", type=int, default=15, help="lines per profile list")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    options = parser.parse_args()

    call = setup()
    direct = environ("GET", "/api/trivial/", ACCEPT="application/json")
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "trivial"}}
    tool_call = environ("POST", "/mcp", json.dumps(message).encode(), **MCP_HEADERS)
    for _ in range(300):  # warm: URL resolution, the tool registry, validators
        call(direct)
        call(tool_call)

    directs, tools = [], []
    for _ in range(options.rounds):
        directs.append(per_call(call, direct, options.calls))
        tools.append(per_call(call, tool_call, options.calls))
    d, t = statistics.median(directs) * 1e6, statistics.median(tools) * 1e6
    attribution = None
    if options.profile or options.json:
        attribution = attribute(
            profile(call, tool_call, options.calls),
            profile(call, direct, options.calls),
            split_keys("/api/trivial/"),
            options.calls,
            options.top,
        )
    if options.json:
        figures = {"direct_us": d, "tool_us": t, "added_us": t - d, "ratio": d / t}
        print(json.dumps({**figures, "attribution": asdict(attribution)}))
        return
    print(f"median of {options.rounds} interleaved rounds of {options.calls} calls each")
    print(f"direct GET           {d:8.1f} us")
    print(f"tools/call           {t:8.1f} us")
    print(f"added by the endpoint {t - d:7.1f} us  ({(t - d) / d:.2f} of the direct request)")
    print(f"throughput ratio      {d / t:7.2f}")
    if attribution is not None:
        print()
        print(describe(attribution, t - d))


if __name__ == "__main__":
    main()
