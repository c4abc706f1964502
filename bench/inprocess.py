"""In-process micro-benchmark: one trivial ``tools/call`` against the direct request.

No sockets: both requests go through Django's WSGI handler (the whole middleware chain), as
a WSGI server would call it, interleaved in rounds so the machine's noise hits both alike.
Reports the cost of each, what the endpoint adds in microseconds and as a share of the
direct request, and with ``--profile`` where the added time goes: the call trees of both
requests (bench/calltree.py), the tool's view told apart from the endpoint around it, the
endpoint's own functions by cumulative time and the outside code they call, each less the
tracer's own cost.

``--production`` measures the project's production profile (bench/project/settings.py):
Redis as the shared cache (a private one, started here unless ``BENCH_REDIS_URL`` names
one), startproject's middleware, and a token on both requests. ``--case retrieve`` calls
the token-retrieve view instead (a token on both requests, in either profile).

    .venv/bin/python bench/inprocess.py [--rounds 7] [--calls 2000] [--clock cpu|wall]
                                        [--production] [--case trivial|retrieve]
                                        [--profile] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.calltree import CallTree, Key, Node, calibrate  # noqa: E402

MCP_HEADERS = {
    "ACCEPT": "application/json, text/event-stream",
    "MCP_PROTOCOL_VERSION": "2025-11-25",
}

Call = Callable[[dict], bytes]
Func = Key


def setup() -> Call:
    """Set Django up and return a function that runs one WSGI request and returns its body."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command

    call_command("migrate", verbosity=0)  # the admin state's tables; quick when up to date
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


def seeded() -> dict:
    """Seed the bench database (``seed_bench``); return its token and item."""
    from django.core.management import call_command

    out = io.StringIO()
    call_command("seed_bench", stdout=out)
    return json.loads(out.getvalue())


def profile_headers() -> dict[str, str]:
    """Return the headers every request carries in the profile: the production one's token."""
    from django.conf import settings

    if not settings.PRODUCTION:
        return {}
    return {"AUTHORIZATION": f"Token {seeded()['token']}"}


#: What ``--case`` measures: the trivial view, or the token-retrieve view (a token on both
#: requests, in either profile), as bench/cases.py's cases of the same names.
CASES = ("trivial", "retrieve")


def requests_of(case: str) -> tuple[dict, dict, str]:
    """Return the direct request, the tool call and the direct path of ``case``."""
    if case == "trivial":
        headers, path, name, arguments = profile_headers(), "/api/trivial/", "trivial", {}
    else:
        seed = seeded()
        headers = {"AUTHORIZATION": f"Token {seed['token']}"}
        path, name, arguments = f"/api/items/{seed['item']}/", "item_retrieve", {"pk": seed["item"]}
    direct = environ("GET", path, ACCEPT="application/json", **headers)
    params = {"name": name, "arguments": arguments}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    tool_call = environ("POST", "/mcp", json.dumps(message).encode(), **MCP_HEADERS, **headers)
    return direct, tool_call, path


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


#: What ``--clock`` measures with: the thread's CPU time (the default: what another process
#: on a shared machine steals is not counted) or the wall clock.
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}


def per_call(call: Call, env: dict, calls: int, clock: Callable[[], float]) -> float:
    """Return the mean seconds of one call over ``calls`` calls."""
    start = clock()
    for _ in range(calls):
        call(env)
    return (clock() - start) / calls


def trace(call: Call, env: dict, calls: int) -> CallTree:
    tree = CallTree()
    tree.trace(lambda: call(env), calls)
    return tree


# -- attribution ------------------------------------------------------------------------------


@dataclass
class Line:
    """One function's time per request, in microseconds, the profiler's cost taken out."""

    name: str
    cumulative_us: float
    own_us: float = 0.0
    calls: float = 0.0


@dataclass
class Attribution:
    """Where one request's time goes, in microseconds per request, the profiler's cost out."""

    request_us: float
    endpoint_us: float
    view_us: float
    direct_request_us: float
    direct_view_us: float
    #: What the tracer added per Python call and per C call it saw, in microseconds.
    python_cost_us: float = 0.0
    c_cost_us: float = 0.0
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
    """Return the call tree's key of a Python function."""
    code = function.__code__
    return (code.co_filename, code.co_firstlineno, code.co_name)


@dataclass(frozen=True)
class Keys:
    """The functions the attribution splits a request at."""

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
    if filename.startswith("<"):
        return f"{filename}:{name}"  # made at run time: a dataclass's __init__, say
    parts = Path(filename).parts
    cut = max((i for i, part in enumerate(parts) if part in ("site-packages", "lib")), default=0)
    return f"{'/'.join(parts[cut + 1 :])}:{name}"


def top_node(tree: CallTree) -> Node:
    """Return the node of the traced function itself (one whole request per call)."""
    return next(iter(tree.root.children.values()))


def attribute(
    tool: CallTree, direct: CallTree, keys: Keys, measured: tuple[float, float], top: int
) -> Attribution:
    """Split a traced tools/call into the tool's view and the endpoint around it.

    ``measured`` is (tools/call, direct) in microseconds per request without the tracer,
    which calibrates the tracer's cost; every figure returned leaves that cost out.
    """
    ours = package_dir()
    calls = top_node(tool).calls
    costs, _ = calibrate(
        [
            (tool, top_node(tool), measured[0] * 1e3 * calls),
            (direct, top_node(direct), measured[1] * 1e3 * top_node(direct).calls),
        ]
    )

    def us(tree: CallTree, nodes: Iterator[Node] | list[Node]) -> float:
        return sum(tree.corrected_ns(node) for node in nodes) / calls / 1e3

    def from_ours(node: Node) -> bool:
        return node.parent is not None and is_ours(node.parent.key, ours)

    view_keys = (keys.view, keys.render)
    tool_nodes = list(top_node(tool).walk())
    # Outermost nodes of each mcp_tools function, so recursion is not counted twice.
    functions: dict[Func, list[Node]] = defaultdict(list)
    for node in tool_nodes:
        if is_ours(node.key, ours) and all(a.key != node.key for a in node.ancestors()):
            functions[node.key].append(node)
    own = []
    for func, nodes in functions.items():
        children = [child for node in nodes for child in node.children.values()]
        cumulative = us(tool, nodes)
        own.append(
            Line(
                label(func, ours),
                cumulative,
                max(cumulative - us(tool, children), 0.0),
                sum(node.calls for node in nodes) / calls,
            )
        )
    own.sort(key=lambda line: line.cumulative_us, reverse=True)
    # Outside code that mcp_tools calls; a passage that leads back into mcp_tools (Django's
    # View.dispatch calling post) is no cost of its own.
    outside: dict[str, list[Node]] = defaultdict(list)
    for node in tool_nodes:
        if is_ours(node.key, ours) or node.key in view_keys or not from_ours(node):
            continue
        if any(is_ours(below.key, ours) for below in node.walk()):
            continue
        outside[label(node.key, ours)].append(node)
    external = [
        Line(name, us(tool, nodes), calls=sum(node.calls for node in nodes) / calls)
        for name, nodes in outside.items()
    ]
    external.sort(key=lambda line: line.cumulative_us, reverse=True)
    direct_nodes = list(top_node(direct).walk())
    return Attribution(
        request_us=measured[0],
        endpoint_us=us(
            tool, [n for n in tool_nodes if n.key == keys.endpoint and not from_ours(n)]
        ),
        view_us=us(tool, [n for n in tool_nodes if n.key in view_keys and from_ours(n)]),
        direct_request_us=measured[1],
        direct_view_us=us(
            direct, [n for n in direct_nodes if n.key in view_keys and not from_ours(n)]
        ),
        python_cost_us=costs.python_ns / 1e3,
        c_cost_us=costs.c_ns / 1e3,
        ours=own[:top],
        outside=external[:top],
    )


def describe(a: Attribution) -> str:
    """Return the attribution as an indented, readable summary."""
    added = a.request_us - a.direct_request_us
    lines = [
        "Where a trivial tools/call spends its time: the call trees of both requests, less what",
        f"the tracer adds per Python call ({a.python_cost_us:.2f} us) and per C call "
        f"({a.c_cost_us:.2f} us),",
        "calibrated on the untraced timings above; good to a few microseconds, not to one.",
        "",
        f"{'':<58}{'us':>9}",
        f"{'whole tools/call request (WSGI handler, measured)':<58}{a.request_us:>9.1f}",
        f"{'whole direct GET request (measured)':<58}{a.direct_request_us:>9.1f}",
        f"{'  added by the endpoint':<58}{added:>9.1f}",
        f"{'the /mcp view, as Django calls it':<58}{a.endpoint_us:>9.1f}",
        f"{'  the tool view and its rendering':<58}{a.view_us:>9.1f}",
        f"{'    (the same in the direct request)':<58}{a.direct_view_us:>9.1f}",
        f"{'  the endpoint around the view':<58}{a.around_view_us:>9.1f}",
        "",
        "mcp_tools functions by cumulative time (callees included; us per tools/call):",
        f"  {'function':<50}{'cumul.':>9}{'own':>8}{'calls':>7}",
    ]
    for line in a.ours:
        lines.append(
            f"  {line.name:<50}{line.cumulative_us:>9.1f}{line.own_us:>8.1f}{line.calls:>7.1f}"
        )
    lines += [
        "",
        "outside code called by mcp_tools, the tool view excepted (us per tools/call):",
        f"  {'function':<58}{'cumul.':>9}{'calls':>7}",
    ]
    for line in a.outside:
        lines.append(f"  {line.name:<58}{line.cumulative_us:>9.1f}{line.calls:>7.1f}")
    return "\n".join(lines)


# -- main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    parser.add_argument("--top", type=int, default=15, help="lines per profile list")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--clock", choices=CLOCKS, default="cpu", help="CPU time or wall clock")
    parser.add_argument("--case", choices=CASES, default="trivial", help="the view called")
    parser.add_argument(
        "--production", action="store_true", help="the production profile (Redis, a token)"
    )
    parser.add_argument(
        "--without",
        default="",
        help="parts of the production profile left out: redis,middleware,admin,auth",
    )
    options = parser.parse_args()
    with profile(options.production, options.without):
        measure(options)


@contextlib.contextmanager
def profile(production: bool, without: str = "") -> Iterator[None]:
    """Set the bench project's profile for the block: with ``production``, its Redis (a
    private one, started and stopped here, unless ``BENCH_REDIS_URL`` names one) and the
    parts of it left out (``without``)."""
    with contextlib.ExitStack() as stack:
        if production:
            os.environ["BENCH_PROFILE"] = "production"
            os.environ["BENCH_PRODUCTION_WITHOUT"] = without
            if "redis" not in without and not os.environ.get("BENCH_REDIS_URL"):
                from bench import services

                os.environ["BENCH_REDIS_URL"] = stack.enter_context(services.redis()).url
        yield


def measure(options: argparse.Namespace) -> None:
    """Measure both requests in interleaved rounds; print the figures (and the profile)."""
    call = setup()
    direct, tool_call, path = requests_of(options.case)
    for _ in range(300):  # warm: URL resolution, the tool registry, validators
        call(direct)
        call(tool_call)

    directs, tools = [], []
    for _ in range(options.rounds):
        directs.append(per_call(call, direct, options.calls, CLOCKS[options.clock]))
        tools.append(per_call(call, tool_call, options.calls, CLOCKS[options.clock]))
    d, t = statistics.median(directs) * 1e6, statistics.median(tools) * 1e6
    attribution = None
    if options.profile or options.json:
        attribution = attribute(
            trace(call, tool_call, options.calls),
            trace(call, direct, options.calls),
            split_keys(path),
            (t, d),
            options.top,
        )
    if options.json:
        from django.conf import settings

        figures = {"direct_us": d, "tool_us": t, "added_us": t - d, "ratio": d / t}
        figures["profile"] = settings.BENCH_PROFILE
        print(json.dumps({**figures, "attribution": asdict(attribution)}))
        return
    from django.conf import settings

    rounds = f"{options.rounds} interleaved rounds of {options.calls} calls each"
    where = f"{settings.BENCH_PROFILE} profile, {options.case} case"
    print(f"{where}: median of {rounds}, {options.clock} time")
    print(f"direct GET           {d:8.1f} us")
    print(f"tools/call           {t:8.1f} us")
    print(f"added by the endpoint {t - d:7.1f} us  ({(t - d) / d:.2f} of the direct request)")
    print(f"throughput ratio      {d / t:7.2f}")
    if attribution is not None:
        print()
        print(describe(attribution))


if __name__ == "__main__":
    main()
