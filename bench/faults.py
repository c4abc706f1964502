"""Load and faults: 16 clients against gunicorn with two workers, a slow view beside fast
calls, memory over many calls, a database that refuses the call log's writes, and a worker
killed in the middle of the load.

Each scenario starts its own gunicorn (two sync workers, pinned to core 0) on a free port on
127.0.0.1, on its own SQLite database, and stops it by its process group; the clients (wrk,
or this process's threads) run on core 1, bounded in time and count. bench/README.md says
what each figure means; docs/reliability.md has the figures of a full run.

    make bench-faults                        # the full run: about 3 minutes
    make bench-faults BENCH_ARGS=--smoke     # every scenario briefly: under a minute
    bench/.venv/bin/python bench/faults.py [--smoke] [--seconds 60]

``bench/run.py --only faults`` runs the same as a group of the harness.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import cases, load, report, servers  # noqa: E402
from bench.load import Load, Request, Result  # noqa: E402
from bench.servers import HOST, Server  # noqa: E402

WORKERS = 2
CLIENTS = 16
#: Written by the endpoint each time the call log can't be written (mcp_tools.calllog.writer).
LOG_WRITE_FAILED = "The call log could not be written"
REFUSE_WRITES = (
    "CREATE TRIGGER bench_database_unavailable BEFORE INSERT ON mcp_tools_toolcall "
    "BEGIN SELECT RAISE(ABORT, 'the database is unavailable'); END"
)


@dataclass(frozen=True)
class Plan:
    """How long and how many: the full run and the smoke run differ only here."""

    load_seconds: int = 60
    window_seconds: int = 6
    slow_seconds: float = 3.0
    warm_requests: int = 1000
    memory_calls: int = 10_000
    kill_seconds: float = 12.0


FULL = Plan()
SMOKE = Plan(
    load_seconds=2,
    window_seconds=2,
    slow_seconds=1.0,
    warm_requests=100,
    memory_calls=500,
    kill_seconds=4.0,
)


@dataclass
class Faults:
    """One run of the scenarios: where it works, what it calls, and what it found."""

    plan: Plan
    work: Path
    sections: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    token: str = ""
    item: int = 0

    @property
    def database(self) -> Path:
        return self.work / "faults.sqlite3"

    @property
    def env(self) -> dict[str, str]:
        return {
            "DJANGO_SETTINGS_MODULE": "bench.project.settings",
            "BENCH_DATABASE": str(self.database),
        }

    # -- set-up ---------------------------------------------------------------------------

    def seed(self) -> None:
        """Migrate and seed the scenarios' own database, in WAL mode (two workers write)."""
        self.django("migrate", "-v", "0")
        data = json.loads(self.django("seed_bench"))
        self.token, self.item = data["token"], data["item"]
        with contextlib.closing(sqlite3.connect(self.database)) as connection:
            connection.execute("PRAGMA journal_mode=WAL")

    def django(self, *args: str, **env: str) -> str:
        import subprocess

        done = subprocess.run(
            [sys.executable, "-m", "django", *args],
            env={**os.environ, **self.env, **env, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"django {' '.join(args)} failed:\n{done.stderr[-2000:]}")
        return done.stdout

    @contextlib.contextmanager
    def serving(self, **env: str) -> Iterator[Server]:
        """Run gunicorn with two workers for a ``with`` block, both workers up."""
        spec = servers.gunicorn(
            "bench.project.wsgi:application", workers=WORKERS, **{**self.env, **env}
        )
        with servers.serving(spec, "/api/trivial/", self.work) as server:
            wait_for_workers(server, WORKERS)
            yield server

    # -- loads ----------------------------------------------------------------------------

    def auth(self) -> tuple[tuple[str, str], ...]:
        return (("Authorization", f"Token {self.token}"),)

    def tool_cycle(self) -> Load:
        """The three bench tools in turn: trivial, a token-authenticated read, a create."""
        ours = cases.our_cases(self.token, self.item)
        requests = tuple(request for case in ours.values() for request in case.mcp().requests)
        return Load(requests, cases.MCP_HEADERS + self.auth())

    def trivial(self) -> Load:
        return cases.our_cases(self.token, self.item)["trivial"].mcp()

    def run(self, server: Server, item: Load, connections: int, **options: Any) -> Result:
        cpu = server.cpu_seconds()
        result = load.run(
            server.base_url,
            item,
            connections=connections,
            seconds=options.get("seconds", self.plan.window_seconds),
            max_requests=options.get("max_requests", 0),
            work_dir=self.work,
        )
        return replace(result, server_cpu_s=server.cpu_seconds() - cpu)

    def warm(self, server: Server, item: Load) -> None:
        self.run(server, item, CLIENTS, seconds=60, max_requests=self.plan.warm_requests)

    def check(self, what: str, result: Result) -> None:
        if result.bad:
            self.problems.append(f"{what}: {result.bad} failed calls, first: {result.first_bad}")

    # -- the scenarios --------------------------------------------------------------------

    def sustained_load(self) -> None:
        """16 clients calling the three tools in turn for ``load_seconds``."""
        with self.serving() as server:
            cycle = self.tool_cycle()
            self.warm(server, cycle)
            result = self.run(server, cycle, CLIENTS, seconds=self.plan.load_seconds)
        self.check("sustained load", result)
        self.raw["sustained_load"] = result
        rows = [[f"{result.requests:,}", f"{result.rps:.0f}", *latencies(result), str(result.bad)]]
        self.sections.append(
            (
                f"{CLIENTS} clients for {self.plan.load_seconds} s, gunicorn with {WORKERS} "
                "workers (trivial, token read, create in turn)",
                report.table(["calls", "req/s", "p50", "p99", "max", "failed"], rows),
            )
        )

    def slow_view(self) -> None:
        """Fast calls alone, then beside slow calls back to back: only one worker waits."""
        slow_body = cases.tool_call("slow", {"seconds": self.plan.slow_seconds})
        with self.serving() as server:
            fast = self.trivial()
            self.warm(server, fast)
            alone = self.run(server, fast, 4)
            durations: list[float] = []
            stop = threading.Event()

            def slow_calls() -> None:
                while not stop.is_set():
                    started = time.monotonic()
                    status, _ = post(server, slow_body, cases.MCP_HEADERS)
                    if status == 200:
                        durations.append(time.monotonic() - started)

            thread = threading.Thread(target=slow_calls, daemon=True)
            thread.start()
            time.sleep(0.3)  # the first slow call holds its worker by now
            beside = self.run(server, fast, 4)
            stop.set()
            thread.join(timeout=self.plan.slow_seconds + 10)
        self.check("fast calls alone", alone)
        self.check("fast calls beside a slow view", beside)
        if beside.max_ms >= self.plan.slow_seconds * 1000 * 0.8:
            self.problems.append(
                f"a fast call waited {beside.max_ms:.0f} ms beside a "
                f"{self.plan.slow_seconds:g} s view: it queued behind the slow worker"
            )
        if not durations:
            self.problems.append("slow view: no slow call finished")
        self.raw["slow_view"] = {"alone": alone, "beside": beside, "slow_calls_s": durations}
        rows = [
            ["fast calls alone (c=4)", f"{alone.rps:.0f}", *latencies(alone), str(alone.bad)],
            [
                f"fast calls beside slow ones (c=4), {len(durations)} slow calls of "
                f"{median(durations):.2f} s",
                f"{beside.rps:.0f}",
                *latencies(beside),
                str(beside.bad),
            ],
        ]
        self.sections.append(
            (
                f"A {self.plan.slow_seconds:g} s view holds only its own worker",
                report.table(["load", "req/s", "p50", "p99", "max", "failed"], rows, "l"),
            )
        )

    def memory(self) -> None:
        """Each worker's resident memory after warming, and after ``memory_calls`` more."""
        with self.serving() as server:
            cycle = self.tool_cycle()
            self.warm(server, cycle)
            before = {pid: server.rss_kib(pid) for pid in server.worker_pids()}
            result = self.run(
                server, cycle, CLIENTS, seconds=900, max_requests=self.plan.memory_calls
            )
            after = {pid: server.rss_kib(pid) for pid in server.worker_pids()}
        self.check("memory run", result)
        self.raw["memory"] = {"before_kib": before, "after_kib": after, "run": result}
        rows = []
        for index, pid in enumerate(sorted(before), 1):
            grown = (after.get(pid, 0) - before[pid]) / before[pid] * 100
            if grown > 10:
                self.problems.append(f"worker {index} grew {grown:.1f}% over the calls")
            rows.append(
                [
                    f"worker {index}",
                    f"{before[pid] / 1024:.1f}",
                    f"{after.get(pid, 0) / 1024:.1f}",
                    f"{grown:+.1f}%",
                ]
            )
        self.sections.append(
            (
                f"Resident memory of each worker over {result.requests:,} calls "
                f"({CLIENTS} clients)",
                report.table(["", "MiB after warm-up", "MiB after", "growth"], rows, "l"),
            )
        )

    def database_refuses_the_call_log(self) -> None:
        """With every call logged, the log's INSERTs refused for a while: calls go on."""
        # The writer's batches gather for 0.1 s, so that half a second sees every row out.
        env = cases.mcp_settings(CALL_LOG="all", CALL_LOG_FLUSH_INTERVAL=0.1)
        phases: list[tuple[str, Result, int, int]] = []
        with self.serving(**env) as server:
            cycle = Load(self.tool_cycle().requests[:2], self.tool_cycle().headers)  # no create
            self.warm(server, cycle)
            time.sleep(0.5)  # the warm-up's last rows are written by the call log's writer
            for phase in ("writes accepted", "writes refused", "writes accepted again"):
                refused = phase == "writes refused"
                if refused:
                    self.sql(REFUSE_WRITES)
                rows_before, warnings_before = self.logged_calls(), warnings(server)
                result = self.run(server, cycle, CLIENTS)
                time.sleep(0.5)  # the last calls' rows are written by the call log's writer
                if refused:
                    self.sql("DROP TRIGGER bench_database_unavailable")
                phases.append(
                    (
                        phase,
                        result,
                        self.logged_calls() - rows_before,
                        warnings(server) - warnings_before,
                    )
                )
        rows = []
        for phase, result, logged, failed_writes in phases:
            self.check(f"call log {phase}", result)
            rows.append(
                [
                    phase,
                    f"{result.requests:,}",
                    f"{result.rps:.0f}",
                    *latencies(result)[:2],
                    str(result.bad),
                    f"{logged:,}",
                    f"{failed_writes:,}",
                ]
            )
        if phases[1][2] != 0 or phases[1][3] == 0:
            self.problems.append("call log: the refused writes were not refused, or not logged")
        self.raw["call_log"] = phases
        self.sections.append(
            (
                "The database refuses the call log's writes (CALL_LOG=all, a trigger that "
                "raises on INSERT), then takes them again",
                report.table(
                    ["phase", "calls", "req/s", "p50", "p99", "failed", "rows logged", "warnings"],
                    rows,
                    "l",
                ),
            )
        )

    def worker_killed(self) -> None:
        """16 client threads call in a loop; the worker serving a slow call is killed.

        The victim is the worker that holds a slow call's connection (found in /proc), so
        the kill interrupts a call for sure; the client of that call then calls again.
        """
        body = cases.tool_call("item_retrieve", {"pk": self.item})
        headers = cases.MCP_HEADERS + self.auth()
        slow_body = cases.tool_call("slow", {"seconds": 2})
        with self.serving() as server, on_core(load.LOAD_CORE):
            self.warm(server, Load((Request("POST", "/mcp", body),), headers))
            records: list[Call] = []
            started = time.monotonic()
            deadline = started + self.plan.kill_seconds
            threads = [
                threading.Thread(
                    target=call_in_a_loop, args=(index, server, body, headers, deadline, records)
                )
                for index in range(CLIENTS)
            ]
            for thread in threads:
                thread.start()
            time.sleep(self.plan.kill_seconds / 3)
            connection = http.client.HTTPConnection(HOST, server.port, timeout=30)
            interrupted: list[int] = []
            slow = threading.Thread(
                target=lambda: interrupted.append(send(connection, slow_body, headers)[0])
            )
            slow.start()
            victim = worker_serving(server, connection)
            killed_at = time.monotonic()
            os.kill(victim, signal.SIGKILL)
            respawned = wait_for_workers(server, WORKERS, exclude=victim) - killed_at
            slow.join(timeout=30)
            # The interrupted call's client calls again, as a client retries.
            retried = post(server, body, headers)
            for thread in threads:
                thread.join(timeout=self.plan.kill_seconds + 30)
        records.append(Call(CLIENTS, killed_at, interrupted == [200]))
        records.append(Call(CLIENTS, time.monotonic(), retried[0] == 200))
        outcome = Killed.of(records, killed_at - started, respawned)
        self.raw["worker_killed"] = outcome
        if not outcome.next_calls_succeeded:
            self.problems.append(f"worker killed: a client failed twice in a row ({outcome})")
        if interrupted == [200]:
            self.problems.append("worker killed: the kill did not interrupt the slow call")
        rows = [
            [
                f"{outcome.calls:,}",
                f"{outcome.failed}",
                f"{outcome.clients_failed} of {CLIENTS + 1}",
                "yes" if outcome.next_calls_succeeded else "**no**",
                f"{outcome.respawn_s * 1000:.0f} ms",
                f"{outcome.after_kill_ok:,}",
            ]
        ]
        self.sections.append(
            (
                f"The worker serving a call killed (SIGKILL) {self.plan.kill_seconds / 3:.0f} s "
                f"into {self.plan.kill_seconds:g} s of {CLIENTS} clients calling a token read",
                report.table(
                    [
                        "calls",
                        "failed",
                        "clients with a failure",
                        "each one's next call succeeded",
                        "new worker forked after",
                        "calls answered after the kill",
                    ],
                    rows,
                ),
            )
        )

    # -- helpers --------------------------------------------------------------------------

    def sql(self, statement: str) -> None:
        with contextlib.closing(sqlite3.connect(self.database, timeout=30)) as connection:
            connection.execute(statement)
            connection.commit()

    def logged_calls(self) -> int:
        with contextlib.closing(sqlite3.connect(self.database, timeout=30)) as connection:
            return connection.execute("SELECT count(*) FROM mcp_tools_toolcall").fetchone()[0]

    def measure_all(self) -> None:
        """Run every scenario; a scenario that can't run is a problem, not the end."""
        self.seed()
        for scenario in (
            self.sustained_load,
            self.slow_view,
            self.memory,
            self.database_refuses_the_call_log,
            self.worker_killed,
        ):
            log(f"faults: {scenario.__name__.replace('_', ' ')}")
            try:
                scenario()
            except (servers.ServerFailed, load.LoadFailed, RuntimeError, OSError) as exc:
                self.problems.append(f"{scenario.__name__}: {exc}")
                log(f"  failed: {exc}")

    def markdown(self) -> str:
        parts = [f"### {title}\n\n{body}" for title, body in self.sections]
        if self.problems:
            parts.append("### Problems\n\n" + "\n".join(f"- {p}" for p in self.problems))
        return "\n\n".join(parts)


# -- the worker-kill clients -------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    client: int
    started: float
    ok: bool


def call_in_a_loop(
    client: int,
    server: Server,
    body: str,
    headers: tuple[tuple[str, str], ...],
    deadline: float,
    records: list[Call],
) -> None:
    """Call until ``deadline``, each call on a new connection (the sync worker closes it)."""
    while time.monotonic() < deadline:
        started = time.monotonic()
        status, answer = post(server, body, headers)
        ok = status == 200 and b'"isError":false' in answer
        records.append(Call(client, started, ok))


@dataclass(frozen=True)
class Killed:
    """What the clients saw around a worker's death."""

    calls: int
    failed: int
    clients_failed: int
    next_calls_succeeded: bool
    respawn_s: float
    after_kill_ok: int

    @classmethod
    def of(cls, records: list[Call], killed_at: float, respawn_s: float) -> Killed:
        start = min((call.started for call in records), default=0.0)
        by_client: dict[int, list[Call]] = {}
        for call in sorted(records, key=lambda call: call.started):
            by_client.setdefault(call.client, []).append(call)
        twice = any(
            not first.ok and not second.ok
            for calls in by_client.values()
            for first, second in zip(calls, calls[1:], strict=False)
        )
        failed = [call for call in records if not call.ok]
        return cls(
            calls=len(records),
            failed=len(failed),
            clients_failed=len({call.client for call in failed}),
            next_calls_succeeded=not twice,
            respawn_s=respawn_s,
            after_kill_ok=sum(call.ok and call.started - start > killed_at for call in records),
        )


def post(server: Server, body: str, headers: tuple[tuple[str, str], ...]) -> tuple[int, bytes]:
    """POST /mcp once on a new connection; return the status (0: no answer) and the body."""
    return send(http.client.HTTPConnection(HOST, server.port, timeout=30), body, headers)


def send(
    connection: http.client.HTTPConnection, body: str, headers: tuple[tuple[str, str], ...]
) -> tuple[int, bytes]:
    try:
        connection.request("POST", "/mcp", body.encode(), dict(headers))
        response = connection.getresponse()
        return response.status, response.read()
    except OSError:
        return 0, b""
    finally:
        connection.close()


def worker_serving(server: Server, connection: http.client.HTTPConnection) -> int:
    """Return the worker that holds ``connection``'s other end (its socket, in /proc)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if connection.sock is not None:
            port = connection.sock.getsockname()[1]
            for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
                fields = line.split()
                local, remote = (int(address.split(":")[1], 16) for address in fields[1:3])
                if (local, remote) != (server.port, port):
                    continue
                target = f"socket:[{fields[9]}]"
                for pid in server.worker_pids():
                    for fd in Path(f"/proc/{pid}/fd").iterdir():
                        with contextlib.suppress(OSError):
                            if os.readlink(fd) == target:
                                return pid
        time.sleep(0.01)
    raise servers.ServerFailed("no worker took the slow call")


# -- small helpers -----------------------------------------------------------------------------


def wait_for_workers(server: Server, count: int, exclude: int | None = None) -> float:
    """Wait until gunicorn has ``count`` workers (none of them ``exclude``); return when."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pids = server.worker_pids()
        if len(pids) == count and exclude not in pids:
            # A new worker is listed once forked; it answers once it has imported Django.
            return time.monotonic()
        time.sleep(0.02)
    raise servers.ServerFailed(f"gunicorn did not get back to {count} workers")


@contextlib.contextmanager
def on_core(core: str) -> Iterator[None]:
    """Run this process's threads on ``core`` (the clients' core) for a ``with`` block."""
    previous = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {int(core)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, previous)


def warnings(server: Server) -> int:
    return server.log.read_text(errors="replace").count(LOG_WRITE_FAILED)


def latencies(result: Result) -> list[str]:
    return [f"{result.p50_ms:.1f} ms", f"{result.p99_ms:.1f} ms", f"{result.max_ms:.0f} ms"]


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] if values else 0.0


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="every scenario briefly")
    parser.add_argument("--seconds", type=int, help="seconds of the sustained load")
    options = parser.parse_args()
    plan = SMOKE if options.smoke else FULL
    if options.seconds:
        plan = replace(plan, load_seconds=options.seconds)
    load.ensure_wrk()
    import shutil

    from bench.run import scratch_dir

    work = scratch_dir()
    faults = Faults(plan, work)
    try:
        faults.measure_all()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(faults.markdown())
    return 1 if faults.problems else 0


if __name__ == "__main__":
    sys.exit(main())
