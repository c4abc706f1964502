"""Benchmark the /mcp endpoint against direct calls of the same DRF views, over real HTTP.

Every server runs one worker pinned to core 0 (gunicorn sync and uvicorn); wrk drives it
from core 1, on 127.0.0.1 only. Each figure that compares two things (direct and MCP, a
feature off and on) comes from interleaved repetitions in the same run, and the report gives
medians. The groups that measure the bench project run in each profile of it (cases.PROFILES:
the current set-up, and a production one with Redis as its shared cache), one table each.
bench/README.md says what each figure means.

    make bench                  # the full run, both profiles
    make bench-smoke            # every case for a second or so: proves the harness works
    bench/.venv/bin/python bench/run.py [--smoke] [--only http,features] [--seconds 4]
                                        [--profile current|production|both]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import cases, faults, load, report, servers, services  # noqa: E402
from bench.cases import Case, Peer, Variant  # noqa: E402
from bench.load import Load, Request  # noqa: E402
from bench.report import Comparison, Listing, Memory  # noqa: E402
from bench.servers import PEERS_VENV, Server, ServerSpec  # noqa: E402

GROUPS = ("inprocess", "http", "features", "peers", "listing", "memory", "faults")
#: The groups measured once per profile. The others run once, in the current profile: the
#: peers are other projects, faults.py sets up its own servers, and the listing's catalog
#: project (BENCH_TOOLS) is a project of its own.
PER_PROFILE = ("inprocess", "http", "features", "memory")
CONCURRENCY = (1, 16)
LISTING_SIZES = (10, 100, 500, 1000, 5000)
#: The catalog size of the cold first tools/list (bench/coldstart.py).
COLD_TOOLS = 500
RESULTS = ROOT / "bench" / "results"


@dataclass(frozen=True)
class Plan:
    """How long and how often: the full run and the smoke run differ only here."""

    seconds: int = 4
    reps: int = 3
    warm_requests: int = 500
    memory_calls: int = 10_000
    listing_seconds: float = 2.0
    #: Fresh processes per mode for the cold first tools/list.
    cold_reps: int = 7
    inprocess_rounds: int = 7
    inprocess_calls: int = 2000
    smoke: bool = False


FULL = Plan()
SMOKE = Plan(
    seconds=1,
    reps=1,
    warm_requests=50,
    memory_calls=500,
    listing_seconds=0.2,
    cold_reps=1,
    inprocess_rounds=1,
    inprocess_calls=200,
    smoke=True,
)


STARTED = time.monotonic()
LOAD_AT_START = os.getloadavg()[0]


def log(message: str) -> None:
    """Print a progress line on stderr (stdout is the report)."""
    print(f"[{time.monotonic() - STARTED:6.0f} s] {message}", file=sys.stderr, flush=True)


class Bench:
    """One run: its scratch directory, database, plan, and the figures gathered so far."""

    def __init__(self, plan: Plan, work: Path) -> None:
        self.plan = plan
        self.work = work
        self.database = work / "bench.sqlite3"
        self.token = ""
        self.item = 0
        #: The profile the groups measure now (cases.PROFILES), and whether the group is one
        #: of those measured per profile (its tables then say which).
        self.profile = "current"
        self.per_profile = False
        #: The production profile's Redis, while there is one.
        self.redis_url = ""
        self.sections: list[tuple[str, str]] = []
        self.raw: dict[str, object] = {}
        #: The figures of each group measured per profile: group -> profile -> figures.
        self.by_profile: dict[str, dict[str, object]] = {}
        self.problems: list[str] = []

    @property
    def env(self) -> dict[str, str]:
        """Return the bench project's environment in the current profile."""
        env = {
            "DJANGO_SETTINGS_MODULE": "bench.project.settings",
            "BENCH_DATABASE": str(self.database),
            "BENCH_PROFILE": self.profile,
        }
        if self.profile == "production":
            env["BENCH_REDIS_URL"] = self.redis_url
        return env

    @property
    def where(self) -> str:
        """Return what names the profile in a title or a problem, when the group has one."""
        return f"{self.profile} profile" if self.per_profile else ""

    # -- set-up ---------------------------------------------------------------------------

    def seed(self) -> None:
        """Migrate and seed the bench database; keep the token and item the cases use."""
        self.migrate()
        seeded = self.python([sys.executable, "-m", "django", "seed_bench"])
        data = json.loads(seeded)
        self.token, self.item = data["token"], data["item"]

    def migrate(self, **env: str) -> None:
        """Apply the migrations the settings of ``env`` need (a variant's app may add some)."""
        self.python([sys.executable, "-m", "django", "migrate", "-v", "0"], **env)

    def cases(self) -> dict[str, Case]:
        return cases.our_cases(self.token, self.item, self.profile)

    def ours(self, kind: str, **env: str) -> ServerSpec:
        """Return the spec of the bench project under gunicorn or uvicorn."""
        env = {**self.env, **env}
        if kind == "gunicorn":
            return servers.gunicorn("bench.project.wsgi:application", **env)
        return servers.uvicorn("bench.project.asgi:application", **env)

    @contextlib.contextmanager
    def serving(self, spec: ServerSpec, ready_path: str = "/api/trivial/") -> Iterator[Server]:
        with servers.serving(spec, ready_path, self.work) as server:
            yield server

    # -- measuring ------------------------------------------------------------------------

    def warm(self, server: Server, *loads: Load) -> None:
        """Send each load ``warm_requests`` times first: caches, the registry, validators."""
        for item in loads:
            load.run(
                server.base_url,
                item,
                connections=1,
                seconds=60,
                max_requests=self.plan.warm_requests,
                work_dir=self.work,
            )

    def measure(self, server: Server, item: Load, connections: int, **options: int) -> load.Result:
        """Run wrk once; add the CPU time the server's worker spent meanwhile."""
        cpu = server.cpu_seconds()
        result = load.run(
            server.base_url,
            item,
            connections=connections,
            seconds=options.get("seconds", self.plan.seconds),
            max_requests=options.get("max_requests", 0),
            work_dir=self.work,
        )
        return dataclasses.replace(result, server_cpu_s=server.cpu_seconds() - cpu)

    def compare(
        self, name: str, a: tuple[Server, Load], b: tuple[Server, Load], connections: int
    ) -> Comparison:
        """Measure two loads in interleaved repetitions (a b, b a, a b...)."""
        comparison = Comparison(name, a[0].spec.name, connections)
        for rep in range(self.plan.reps):
            order = [(a, comparison.a), (b, comparison.b)]
            for (server, item), results in order if rep % 2 == 0 else reversed(order):
                results.append(self.measure(server, item, connections))
        log(f"  {name} {a[0].spec.name} c={connections}: ratio {comparison.ratio:.2f}")
        if comparison.bad:
            where = ", ".join(filter(None, [comparison.server, self.where]))
            self.problems.append(f"{name} ({where}): {comparison.bad[0]}")
        return comparison

    def section(self, title: str, body: str) -> None:
        """Add a section to the report; a group measured per profile names it in the title."""
        self.sections.append((f"{title} ({self.where})" if self.where else title, body))

    def record(self, group: str, figures: object) -> None:
        """Keep a group's figures for the JSON file (per profile when it is measured so)."""
        if self.per_profile:
            self.by_profile.setdefault(group, {})[self.profile] = figures
            self.raw[group] = self.by_profile[group]
        else:
            self.raw[group] = figures

    # -- the groups -----------------------------------------------------------------------

    def run_inprocess(self) -> None:
        """Run bench/inprocess.py: the added microseconds and where they go."""
        log("in-process micro-benchmark")
        argv = ["taskset", "-c", servers.SERVER_CORE, sys.executable, "bench/inprocess.py"]
        argv += ["--json", f"--rounds={self.plan.inprocess_rounds}"]
        argv += [f"--calls={self.plan.inprocess_calls}"]
        data = json.loads(self.python(argv))
        self.record("inprocess", data)
        self.section(
            "In-process: one trivial tools/call against the direct GET", report.inprocess(data)
        )

    def run_http(self) -> None:
        """Compare each case's direct request with its tools/call, under both servers."""
        rows = []
        for kind in ("gunicorn", "uvicorn"):
            log(f"tools/call against direct requests, {kind}")
            with self.serving(self.ours(kind)) as server:
                for case in self.cases().values():
                    self.warm(server, case.direct, case.mcp())
                    for connections in CONCURRENCY:
                        rows.append(
                            self.compare(
                                case.name,
                                (server, case.direct),
                                (server, case.mcp()),
                                connections,
                            )
                        )
        self.record("http", rows)
        self.section(
            "tools/call against the direct request of the same view, same server",
            report.comparisons(rows, "direct", "MCP"),
        )

    def run_features(self) -> None:
        """Compare tools/call with each feature variant on and off (cases.VARIANTS)."""
        rows = []
        our_cases = self.cases()
        for variant in cases.VARIANTS:
            if self.profile not in variant.profiles:
                continue
            log(f"feature: {variant.name}")
            case = our_cases[variant.case]
            for kind in variant_servers(variant):
                with contextlib.ExitStack() as stack:
                    base = stack.enter_context(self.serving(self.ours(kind, **variant.off_env)))
                    on = base
                    if variant.env:
                        self.migrate(**variant.env)
                        on = stack.enter_context(self.serving(self.ours(kind, **variant.env)))
                    off_load, on_load = case.mcp(), case.mcp(progress_token=variant.progress_token)
                    self.warm(base, off_load)
                    self.warm(on, on_load)
                    rows.append(
                        self.compare(
                            f"{variant.name}: {variant.case}", (base, off_load), (on, on_load), 1
                        )
                    )
        self.record("features", rows)
        self.section(
            "The price of each feature: tools/call with it on against off",
            report.comparisons(rows, "off", "on", first="feature: case", ratio="on/off"),
        )

    def run_peers(self) -> None:
        """Compare each peer's tool with its own direct endpoint, or say why not."""
        rows: list[Comparison] = []
        notes = []
        for peer in cases.PEERS:
            log(f"peer: {peer.name}")
            missing = peer_missing(peer)
            if missing:
                notes.append(f"- {peer.name}: not measured, {missing}.")
                log(f"  {peer.name}: not measured, {missing}")
                continue
            try:
                rows += self.measure_peer(peer)
            except (servers.ServerFailed, load.LoadFailed, OSError) as exc:
                notes.append(f"- {peer.name}: could not run here: {first_line(exc)}")
                log(f"  {peer.name}: could not run: {exc}")
        self.record("peers", rows)
        body = report.comparisons(rows, "direct", "MCP", first="peer") if rows else ""
        self.section(
            "Peers: each MCP tool against its own direct endpoint, same server",
            "\n\n".join(part for part in (body, "\n".join(notes)) if part),
        )

    def measure_peer(self, peer: Peer) -> list[Comparison]:
        """Serve one peer and compare its direct endpoint with its tool at each c."""
        venv = PEERS_VENV if peer.in_peers_venv else None
        env = {**peer.env, "BENCH_DATABASE": str(self.work / "peer.sqlite3")}
        if peer.server == "gunicorn":
            spec = servers.gunicorn(peer.app, venv=venv, **env)
        else:
            spec = servers.uvicorn(peer.app, venv=venv, lifespan=peer.lifespan, **env)
        rows = []
        with self.serving(spec, peer.direct_path) as server:
            mcp = peer.mcp()
            if peer.stateful:
                mcp = mcp.in_session(open_session(server, peer))
            self.warm(server, peer.direct(), mcp)
            for connections in CONCURRENCY:
                rows.append(
                    self.compare(peer.name, (server, peer.direct()), (server, mcp), connections)
                )
        return rows

    def run_listing(self) -> None:
        """Time whole tools/list listings by catalog size, in-process and over HTTP."""
        items = []
        for size in LISTING_SIZES:
            log(f"tools/list with {size} tools")
            # A database of its own per size: each catalog leaves its tools' admin rows
            # behind, which the groups after this one (memory) must not read.
            env = {"BENCH_TOOLS": str(size), "BENCH_DATABASE": str(self.work / f"list{size}.db")}
            self.migrate(**env)
            argv = [
                "taskset",
                "-c",
                servers.SERVER_CORE,
                sys.executable,
                "bench/listing.py",
                f"--seconds={self.plan.listing_seconds}",
            ]
            item = Listing(size, json.loads(self.python(argv, **env)))
            spec = self.ours("gunicorn", **env)
            with self.serving(spec, "/mcp") as server:
                pages = list_pages(server)
                self.warm(server, pages)
                for _ in range(self.plan.reps):
                    item.http_page.append(self.measure(server, pages, 1))
                    if item.http_page[-1].bad:
                        self.problems.append(
                            f"tools/list, {size} tools: {item.http_page[-1].first_bad}"
                        )
            items.append(item)
        self.record("listing", items)
        self.section("tools/list, every page, by catalog size", report.listings(items))
        self.run_cold_listing()

    def run_cold_listing(self) -> None:
        """Time the first tools/list of a new process, lazy and prepared at start-up."""
        log(f"the first tools/list of a new process, {COLD_TOOLS} tools")
        env = {
            "BENCH_TOOLS": str(COLD_TOOLS),
            "BENCH_DATABASE": str(self.work / f"cold{COLD_TOOLS}.db"),
        }
        argv = ["taskset", "-c", servers.SERVER_CORE, sys.executable, "bench/coldstart.py"]
        argv += [f"--reps={self.plan.cold_reps}"]
        data = json.loads(self.python(argv, **env))
        self.raw["cold_listing"] = data
        self.section(
            f"tools/list: the first listing of a new process, {COLD_TOOLS} tools",
            report.cold_listing(data),
        )

    def run_memory(self) -> None:
        """Read the worker's RSS without and with mcp_tools, before and after many calls."""
        items = []
        our_cases = self.cases()
        auth = our_cases["retrieve"].headers
        directs = [case.direct for case in our_cases.values()]
        # The same views in turn, direct and as tools; the token is harmless to the trivial one.
        direct_cycle = Load(
            tuple(request for case in our_cases.values() for request in case.direct.requests),
            cases.JSON_BODY + auth,
        )
        tool_cycle = Load(
            tuple(request for case in our_cases.values() for request in case.mcp().requests),
            cases.MCP_HEADERS + auth,
        )
        # The token, for the production profile's endpoint; the current one's ignores it.
        listing = Load((Request("POST", "/mcp", cases.list_page(None)),), cases.MCP_HEADERS + auth)
        for kind in ("gunicorn", "uvicorn"):
            log(f"resident memory, {kind}")
            with self.serving(self.ours(kind, BENCH_WITHOUT_MCP_TOOLS="1")) as server:
                self.warm(server, *directs)
                without = server.rss_kib()
                without_after = self.calls(server, direct_cycle)
            # jsonschema's own share, told apart (bench/README.md#how-it-measures).
            alone = self.ours(kind, BENCH_WITHOUT_MCP_TOOLS="1", BENCH_JSONSCHEMA="1")
            with self.serving(alone) as server:
                self.warm(server, *directs)
                jsonschema = server.rss_kib()
            with self.serving(self.ours(kind)) as server:
                self.warm(server, *directs, tool_cycle, listing)
                before = server.rss_kib()
                after = self.calls(server, tool_cycle)
            items.append(
                Memory(
                    kind, without, without_after, before, after, self.plan.memory_calls, jsonschema
                )
            )
        self.record("memory", items)
        modules = self.module_difference()
        self.section(
            "Resident memory of the worker (VmRSS) after warm-up",
            "\n\n".join([report.memories(items), modules]),
        )

    def run_faults(self) -> None:
        """Run bench/faults.py: load, a slow view, memory and faults, on two workers."""
        log("load and faults (bench/faults.py)")
        work = self.work / "faults"
        work.mkdir()
        run = faults.Faults(faults.SMOKE if self.plan.smoke else faults.FULL, work)
        run.measure_all()
        self.record("faults", run.raw)
        self.problems += [f"faults: {problem}" for problem in run.problems]
        self.section("Load and faults: gunicorn with two workers", run.markdown())

    def calls(self, server: Server, cycle: Load) -> int:
        """Make ``memory_calls`` calls of ``cycle`` at c=1; return the worker's RSS after."""
        result = self.measure(server, cycle, 1, seconds=900, max_requests=self.plan.memory_calls)
        if result.bad:
            self.problems.append(f"memory run ({server.spec.name}): {result.first_bad}")
        return server.rss_kib()

    def module_difference(self) -> str:
        """Say which packages only the project with mcp_tools imports (bench/modules.py)."""
        argv = [sys.executable, "bench/modules.py"]
        with_ = json.loads(self.python(argv))
        without = json.loads(self.python(argv, BENCH_WITHOUT_MCP_TOOLS="1"))
        extra = {name: count - without.get(name, 0) for name, count in with_.items()}
        extra = {name: count for name, count in extra.items() if count > 0}
        self.record("modules_only_with_mcp_tools", extra)
        top = sorted(extra.items(), key=lambda item: item[1], reverse=True)
        listed = ", ".join(f"{name} {count}" for name, count in top[:12])
        return (
            f"Modules imported only with mcp_tools, once warm: {sum(extra.values())} "
            f"(by top-level package: {listed}{', ...' if len(top) > 12 else ''})."
        )

    # -- helpers --------------------------------------------------------------------------

    def python(self, argv: list[str], **env: str) -> str:
        """Run a bench script in the bench project's environment and return its output."""
        full_env = {**os.environ, **self.env, **env, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            argv, env=full_env, cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
        return done.stdout


def variant_servers(variant: Variant) -> tuple[str, ...]:
    # Streaming takes another path under ASGI (an async iterator): measure both servers.
    return ("gunicorn", "uvicorn") if variant.progress_token else ("gunicorn",)


def peer_missing(peer: Peer) -> str:
    """Return why a peer can't be measured here, or an empty string."""
    if not peer.in_peers_venv:
        python = sys.executable
        module = "mcp.server.mcpserver"
    else:
        python = str(PEERS_VENV / "bin" / "python")
        module = "mcp_server" if peer.server == "gunicorn" else "fastapi_mcp"
        if not Path(python).exists():
            return f"its venv {PEERS_VENV.relative_to(ROOT)} is missing (make bench-peers)"
    # Found, not imported: django-mcp-server reads Django settings on import. Whether it runs
    # here shows when its server starts.
    found = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    if subprocess.run([python, "-c", found], capture_output=True).returncode != 0:
        return f"{module} is not installed in {python}"
    return ""


def post(
    server: Server, path: str, body: str, headers: tuple[tuple[str, str], ...]
) -> tuple[dict, dict]:
    """POST once; return the response's headers (lower-cased) and its JSON body, if any."""
    request = urllib.request.Request(
        server.base_url + path, body.encode(), dict(headers), method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        raw = response.read()
        answer_headers = {name.lower(): value for name, value in response.headers.items()}
    return answer_headers, (json.loads(raw) if raw else {})


def open_session(server: Server, peer: Peer) -> str:
    """Initialize a session, as a client does once, and return its Mcp-Session-Id."""
    headers, _ = post(server, peer.mcp_path, cases.initialize_body(), cases.MCP_HEADERS)
    session = headers.get("mcp-session-id")
    if not session:
        raise load.LoadFailed(f"{peer.name}: initialize answered no Mcp-Session-Id")
    initialized = cases.compact({"jsonrpc": "2.0", "method": "notifications/initialized"})
    post(server, peer.mcp_path, initialized, cases.MCP_HEADERS + (("Mcp-Session-Id", session),))
    return session


def list_pages(server: Server) -> Load:
    """Follow nextCursor once; return the load that requests every page in turn."""
    requests, cursor = [], None
    while True:
        body = cases.list_page(cursor)
        requests.append(Request("POST", "/mcp", body))
        _, answer = post(server, "/mcp", body, cases.MCP_HEADERS)
        cursor = answer["result"].get("nextCursor")
        if cursor is None:
            return Load(tuple(requests), cases.MCP_HEADERS)


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def versions() -> str:
    """Return the versions of what is measured, for the report's header."""
    names = ["Django", "djangorestframework", "mcp", "gunicorn", "uvicorn", "uvloop", "httptools"]
    found = []
    for name in names:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            found.append(f"{name} {importlib.metadata.version(name)}")
    wrk = subprocess.run([load.ensure_wrk(), "-v"], capture_output=True, text=True).stdout
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    python = ".".join(map(str, sys.version_info[:3]))
    return f"commit {commit}; Python {python}; {', '.join(found)}; {wrk.split(' [')[0].strip()}"


def scratch_dir() -> Path:
    # tmpfs when there is one: SQLite's fsyncs on a shared disk would be most of the noise.
    shm = Path("/dev/shm")
    parent = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="mcp-tools-bench-", dir=parent))


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="every case briefly, once")
    parser.add_argument("--only", default=",".join(GROUPS), help=f"groups: {','.join(GROUPS)}")
    parser.add_argument("--seconds", type=int, help="seconds per wrk run")
    parser.add_argument("--reps", type=int, help="interleaved repetitions (3 or more)")
    parser.add_argument("--output", type=Path, help="write the Markdown report here too")
    parser.add_argument(
        "--profile",
        choices=[*cases.PROFILES, "both"],
        default="both",
        help=f"the bench project's set-up for the groups {','.join(PER_PROFILE)} (default both)",
    )
    options = parser.parse_args()
    unknown = set(options.only.split(",")) - set(GROUPS)
    if unknown:
        parser.error(f"unknown groups: {', '.join(sorted(unknown))}")
    options.profiles = cases.PROFILES if options.profile == "both" else (options.profile,)
    return options


def stop_on_sigterm(signum: int, frame: object) -> None:
    # As Ctrl-C does: every ``finally`` runs, so the servers and Redis are stopped.
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> int:
    options = parse_options()
    plan = SMOKE if options.smoke else FULL
    if options.seconds:
        plan = dataclasses.replace(plan, seconds=options.seconds)
    if options.reps:
        plan = dataclasses.replace(plan, reps=options.reps)
    if os.cpu_count() is None or os.cpu_count() < 2:
        print("The bench needs two cores: the server's and wrk's.", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    load.ensure_wrk()
    work = scratch_dir()
    bench = Bench(plan, work)
    groups: dict[str, Callable[[], None]] = {
        "inprocess": bench.run_inprocess,
        "http": bench.run_http,
        "features": bench.run_features,
        "peers": bench.run_peers,
        "listing": bench.run_listing,
        "memory": bench.run_memory,
        "faults": bench.run_faults,
    }
    selected = [name for name in GROUPS if name in options.only.split(",")]
    measured = options.profiles
    try:
        with contextlib.ExitStack() as stack:
            if "production" in measured and set(selected) & set(PER_PROFILE):
                log("starting redis-server for the production profile")
                try:
                    bench.redis_url = stack.enter_context(services.redis()).url
                except (services.ServiceFailed, subprocess.CalledProcessError, OSError) as exc:
                    bench.problems.append(f"production profile not measured: {first_line(exc)}")
                    log(f"production profile not measured: {exc}")
                    measured = tuple(name for name in measured if name != "production")
            bench.seed()
            for name in selected:
                profiles = measured if name in PER_PROFILE else ("current",)
                for profile in profiles:
                    bench.profile, bench.per_profile = profile, name in PER_PROFILE
                    if bench.per_profile:
                        log(f"{name}, {profile} profile")
                    try:
                        groups[name]()
                    except (servers.ServerFailed, load.LoadFailed, RuntimeError, OSError) as exc:
                        where = f" ({bench.where})" if bench.where else ""
                        bench.problems.append(f"{name}{where}: {exc}")
                        log(f"{name}{where} failed: {exc}")
            bench.profile, bench.per_profile = "current", False
            if len(measured) > 1:
                side_by_side(bench)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = render(bench, options, time.monotonic() - STARTED)
    print(text)
    write_results(text, bench, options)
    return 1 if bench.problems else 0


def side_by_side(bench: Bench) -> None:
    """Add the ratios of the in-process and HTTP groups in every profile, one row each."""
    parts = []
    inprocess = bench.by_profile.get("inprocess", {})
    if len(inprocess) > 1:
        parts.append(report.inprocess_profiles(inprocess))
    http = bench.by_profile.get("http", {})
    if len(http) > 1:
        parts.append(report.comparison_profiles(http))
    if parts:
        bench.section("Both profiles side by side", "\n\n".join(parts))


def render(bench: Bench, options: argparse.Namespace, elapsed: float) -> str:
    plan = bench.plan
    mode = "smoke" if options.smoke else "full"
    lines = [
        f"# mcp_tools benchmark ({mode} run, {time.strftime('%Y-%m-%d %H:%M')})",
        "",
        f"{versions()}.",
        f"One worker per server on core {servers.SERVER_CORE}, wrk on core {load.LOAD_CORE} "
        f"(-t1); {plan.seconds} s per wrk run, median of {plan.reps} interleaved repetitions; "
        f"took {elapsed / 60:.1f} min. Load average (1 min) at the start {LOAD_AT_START:.2f}, "
        f"at the end {os.getloadavg()[0]:.2f}: on a busy machine trust the CPU columns more.",
        "",
        f"Profiles of the bench project (for {', '.join(PER_PROFILE)}; the other groups run "
        "in the current one):",
        *(f"- {name}: {cases.PROFILE_NOTES[name]}." for name in options.profiles),
    ]
    for title, body in bench.sections:
        lines += ["", f"## {title}", "", body]
    if bench.problems:
        lines += ["", "## Problems", "", *(f"- {problem}" for problem in bench.problems)]
    return "\n".join(lines) + "\n"


def write_results(text: str, bench: Bench, options: argparse.Namespace) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    mode = "smoke" if options.smoke else "full"
    (RESULTS / f"{stamp}-{mode}.md").write_text(text)
    raw = json.dumps(bench.raw, default=to_json, indent=1)
    (RESULTS / f"{stamp}-{mode}.json").write_text(raw)
    if options.output:
        options.output.write_text(text)
    log(f"report written to {(RESULTS / f'{stamp}-{mode}.md').relative_to(ROOT)}")


def to_json(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {**dataclasses.asdict(value), "ratio": getattr(value, "ratio", None)}
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


if __name__ == "__main__":
    sys.exit(main())
