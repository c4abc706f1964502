"""MCP tasks: what a task call costs over an inline one, how soon a client sees a task end,
and how many tasks one ``db_worker`` runs a second (docs/performance.md#tasks).

The project is the test suite's task project (tests/tasks_settings.py: tests/tasks_app on
django-tasks-db's ``DatabaseBackend``), so this runs with the test venv, which has
django-tasks and django-tasks-db (the ``[tasks]`` extra):

- ``overhead``, in-process (Django's test client, no sockets): a 2026-07-28 ``tools/call``
  of ``export_rows`` by a client that declares the tasks extension (answered with a task:
  its row and its job written, ``TASK_IMMEDIATE_SECONDS`` = 0) against the same call by one
  that doesn't (the view run inline), interleaved in rounds, medians in µs. Also the
  worker's side: ``task_runs.run`` of one such task, in-process.
- ``latency``: gunicorn and a ``db_worker`` on a SQLite file; tasks of 0.3 to 1.3 s,
  polled with ``tasks/get`` at the default ``pollIntervalMs`` (1000 ms); the latency is
  from the task's completion (its ``lastUpdatedAt`` once completed) to the client reading
  ``completed``.
- ``throughput``: tasks of the trivial ``shout_task`` enqueued, then one
  ``db_worker --batch`` runs them all; tasks/s from the first task's start to the last
  one's end, on a SQLite file and on a private PostgreSQL (tests/services.py: fsync off).

    .venv/bin/python bench/tasks.py [--parts overhead,latency,throughput]
        [--databases sqlite,postgres] [--rounds 7] [--calls 200] [--latency-tasks 20]
        [--throughput-tasks 300] [--clock cpu|wall] [--tmpdir DIR]
        [--worker-profile FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXTENSION = "io.modelcontextprotocol/tasks"
MODERN = "2026-07-28"
#: Django's default (a connection per unit of work: the worker's loop closes it after each
#: task) and persistent connections, for the worker's throughput.
CONN_MAX_AGES = ("0", "600")


# -- in the child process: Django set up on the task project ---------------------------------


def django_setup() -> str:
    """Set Django up, migrate, and return the DRF token of a new user."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user(f"bench-{os.getpid()}-{time.monotonic_ns()}")
    return Token.objects.create(user=user).key


def clients(token: str) -> tuple[Any, Any]:
    """Return a 2026-07-28 client that declares the tasks extension, and one that doesn't."""
    from mcp_tools.test import MCPClient

    headers = {"Authorization": f"Token {token}"}
    tasky = MCPClient(
        headers=headers,
        protocol_version=MODERN,
        client_capabilities={"extensions": {EXTENSION: {}}},
    )
    plain = MCPClient(headers=headers, protocol_version=MODERN, client_capabilities={})
    return tasky, plain


def child_overhead(rounds: int, calls: int, clock_name: str) -> dict[str, Any]:
    token = django_setup()
    from django_tasks_db.models import DBTaskResult

    from mcp_tools.models import ToolTask
    from mcp_tools.tasks import runs as task_runs

    tasky, plain = clients(token)
    arguments = {"rows": 1, "seconds": 0}
    # CPU time by default (every thread of this process): on a shared machine the wall
    # clock measures the neighbours too.
    clock = time.process_time if clock_name == "cpu" else time.perf_counter

    def inline() -> None:
        result = plain.call_tool("export_rows", arguments)
        assert result["resultType"] == "complete" and not result["isError"], result

    def task() -> str:
        handle = tasky.call_tool("export_rows", arguments)
        assert handle["resultType"] == "task", handle
        return handle["taskId"]

    for _ in range(20):  # warm both paths: imports, plans, the admin state
        inline()
        task_runs.run(task())
    samples: dict[str, list[float]] = {"inline": [], "task": [], "run": []}
    for _ in range(rounds):
        ToolTask.objects.all().delete()
        DBTaskResult.objects.all().delete()
        started = clock()
        for _ in range(calls):
            inline()
        samples["inline"].append((clock() - started) / calls * 1e6)
        started = clock()
        made = [task() for _ in range(calls)]
        samples["task"].append((clock() - started) / calls * 1e6)
        started = clock()
        for task_id in made:
            task_runs.run(task_id)
        samples["run"].append((clock() - started) / calls * 1e6)
        assert ToolTask.objects.filter(pk__in=made, status="completed").count() == calls
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return {"clock": clock_name, "samples_us": samples, "median_us": medians}


def child_enqueue(count: int) -> dict[str, Any]:
    token = django_setup()
    tasky, _ = clients(token)
    for _ in range(count):
        handle = tasky.call_tool("shout_task", {"word": "hi"})
        assert handle["resultType"] == "task", handle
    return {"enqueued": count}


def child_span() -> dict[str, Any]:
    import django

    django.setup()
    from django.db.models import Max, Min

    from mcp_tools.models import ToolTask

    done = ToolTask.objects.filter(status="completed")
    span = done.aggregate(first=Min("started_at"), last=Max("finished_at"))
    seconds = (span["last"] - span["first"]).total_seconds() if span["first"] else 0.0
    return {
        "completed": done.count(),
        "other": ToolTask.objects.exclude(status="completed").count(),
        "seconds": seconds,
    }


# -- in the parent: the processes ------------------------------------------------------------


def child(environ: dict[str, str], part: str, *args: str) -> dict[str, Any]:
    """Run one part in a Django process of its own (its settings are the environment's)."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", part, *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode:
        raise RuntimeError(f"bench/tasks.py --child {part} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def base_environ(root: Path, database: str, postgres: Any = None, redis: Any = None) -> dict:
    environ = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.tasks_settings",
        "MCP_TESTS_DATABASE": str(root / "db.sqlite3"),
        "MCP_TESTS_TASK_IMMEDIATE_SECONDS": "0",
        "MCP_TESTS_TASK_MAX_PER_CALLER": "1000000",
        "PYTHONPATH": str(ROOT),
    }
    environ.pop("MCP_TESTS_TASK_POLL_INTERVAL_MS", None)  # the default, 1000 ms
    if database == "postgres":
        environ.update(postgres.environ())
        environ.update({"MCP_TESTS_REDIS_URL": redis.url})
        environ["MCP_TESTS_TASKS_DATABASE"] = "postgres"
    return environ


@contextmanager
def services(databases: list[str]) -> Iterator[tuple[Any, Any]]:
    """Run a private PostgreSQL and Redis when a part measures PostgreSQL."""
    if "postgres" not in databases:
        yield None, None
        return
    from bench.services import redis
    from tests.services import private_postgres

    with private_postgres() as postgres, redis() as cache:
        yield postgres, cache


@contextmanager
def process(command: list[str], environ: dict[str, str], log: Path) -> Iterator[Any]:
    from bench.services import stop

    with log.open("wb") as out:
        running = subprocess.Popen(
            command, cwd=ROOT, env=environ, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        yield running
    finally:
        stop(running)


def fresh_database(environ: dict[str, str], postgres: Any) -> None:
    """Empty the database the environment names (drop the SQLite file; recreate PostgreSQL's)."""
    if environ.get("MCP_TESTS_TASKS_DATABASE") == "postgres":
        import psycopg
        from psycopg import sql

        with psycopg.connect(postgres.conninfo("postgres"), autocommit=True) as connection:
            name = sql.Identifier(postgres.dbname)
            connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
            connection.execute(sql.SQL("CREATE DATABASE {}").format(name))
    else:
        database = Path(environ["MCP_TESTS_DATABASE"])
        for path in database.parent.glob(database.name + "*"):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def measure_throughput(
    environ: dict[str, str], postgres: Any, count: int, root: Path, profile: str | None
) -> dict:
    fresh_database(environ, postgres)
    child(environ, "enqueue", str(count))
    command = [sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay"]
    command += ["--no-reload"]
    if profile:  # the worker's run under cProfile, its stats written there
        label = environ.get("MCP_TESTS_TASKS_DATABASE", "sqlite")
        stats = f"{profile}.{label}.{environ.get('MCP_TESTS_CONN_MAX_AGE')}"
        command[1:1] = ["-m", "cProfile", "-o", stats]
    started = time.monotonic()
    with process(command, environ, root / "db_worker.log") as worker:
        worker.wait(timeout=600)
    wall = time.monotonic() - started
    span = child(environ, "span")
    assert span["completed"] == count and span["other"] == 0, span
    return {**span, "wall_seconds": wall, "tasks_per_second": count / span["seconds"]}


def measure_latency(environ: dict[str, str], count: int, root: Path) -> dict[str, Any]:
    import httpx2

    from bench.servers import free_port
    from tests.task_servers import RawClient

    fresh_database(environ, None)
    environ = {**environ, "MCP_TESTS_TASK_IMMEDIATE_SECONDS": "0.5"}  # the default
    token = child(environ, "token")["token"]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    gunicorn = [sys.executable, "-m", "gunicorn", "django.core.wsgi:get_wsgi_application()"]
    gunicorn += ["--workers", "2", "--bind", f"127.0.0.1:{port}", "--log-level", "warning"]
    worker = [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--no-reload"]
    latencies: list[float] = []
    lock = threading.Lock()
    rng = random.Random(24)
    durations = [round(0.3 + rng.random(), 3) for _ in range(count)]

    def one(seconds: float) -> None:
        client = RawClient(url, token)
        try:
            handle = client.result(
                "tools/call", {"name": "export_rows", "arguments": {"rows": 1, "seconds": seconds}}
            )
            assert handle["resultType"] == "task", handle
            while True:
                time.sleep(handle["pollIntervalMs"] / 1000)
                task = client.get(handle["taskId"])
                seen = time.time()
                if task["status"] == "completed":
                    break
                assert task["status"] == "working", task
            finished = datetime.fromisoformat(task["lastUpdatedAt"].replace("Z", "+00:00"))
            with lock:
                latencies.append(seen - finished.timestamp())
        finally:
            client.close()

    with (
        process(gunicorn, environ, root / "gunicorn.log"),
        process(worker, environ, root / "db_worker.log"),
    ):
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx2.get(f"{url}/mcp", timeout=2)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline, "gunicorn did not answer"
                time.sleep(0.2)
        # Four clients at a time: the db_worker runs one task at a time either way.
        for start in range(0, count, 4):
            threads = [
                threading.Thread(target=one, args=(s,)) for s in durations[start : start + 4]
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
    assert len(latencies) == count, latencies
    latencies.sort()
    return {
        "poll_interval_ms": 1000,
        "latencies_s": latencies,
        "median_s": statistics.median(latencies),
        "p90_s": latencies[int(0.9 * (count - 1))],
        "max_s": latencies[-1],
    }


def child_token() -> dict[str, Any]:
    return {"token": django_setup()}


def report(results: dict[str, Any]) -> str:
    lines = []
    overhead = results.get("overhead")
    if overhead:
        medians = overhead["median_us"]
        added = medians["task"] - medians["inline"]
        lines += [
            f"| In-process, SQLite file | median µs per call ({overhead['clock']} time) |",
            "| --- | --- |",
            f"| `tools/call` inline (no extension declared) | {medians['inline']:.0f} |",
            f"| `tools/call` answered with a task (row + job) | {medians['task']:.0f} |",
            f"| the task's creation over the inline call | {added:+.0f} |",
            f"| the worker's `task_runs.run` of it | {medians['run']:.0f} |",
            "",
        ]
    latency = results.get("latency")
    if latency:
        lines += [
            f"Completion to the client seeing it, at pollIntervalMs {latency['poll_interval_ms']}: "
            f"median {latency['median_s'] * 1000:.0f} ms, p90 {latency['p90_s'] * 1000:.0f} ms, "
            f"max {latency['max_s'] * 1000:.0f} ms ({len(latency['latencies_s'])} tasks)",
            "",
        ]
    for database, figures in results.get("throughput", {}).items():
        lines.append(
            f"One db_worker on {database}: {figures['tasks_per_second']:.1f} tasks/s "
            f"({figures['completed']} trivial tasks in {figures['seconds']:.2f} s; "
            f"{figures['wall_seconds']:.1f} s with the worker's start)"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="overhead,latency,throughput")
    parser.add_argument("--databases", default="sqlite,postgres")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--latency-tasks", type=int, default=20)
    parser.add_argument("--throughput-tasks", type=int, default=300)
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker-profile", help="write each db_worker's cProfile stats to FILE.*")
    parser.add_argument("--tmpdir", help="where the SQLite file goes (the system's temp dir)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        made = {
            "overhead": lambda: child_overhead(options.rounds, options.calls, options.clock),
            "enqueue": lambda: child_enqueue(int(options.args[0])),
            "span": child_span,
            "token": child_token,
        }[options.child]()
        print(json.dumps(made))
        return
    parts = options.parts.split(",")
    databases = options.databases.split(",") if "throughput" in parts else []
    root = Path(tempfile.mkdtemp(prefix="mcp-tools-bench-tasks-", dir=options.tmpdir))
    results: dict[str, Any] = {}
    try:
        with services(databases) as (postgres, redis):
            sqlite = base_environ(root, "sqlite")
            if "overhead" in parts:
                fresh_database(sqlite, None)
                results["overhead"] = child(
                    sqlite,
                    "overhead",
                    "--rounds",
                    str(options.rounds),
                    "--calls",
                    str(options.calls),
                )
            if "latency" in parts:
                results["latency"] = measure_latency(sqlite, options.latency_tasks, root)
            if "throughput" in parts:
                results["throughput"] = {}
                for database in databases:
                    environ = base_environ(root, database, postgres, redis)
                    for age in CONN_MAX_AGES:
                        environ["MCP_TESTS_CONN_MAX_AGE"] = age
                        results["throughput"][f"{database}, CONN_MAX_AGE={age}"] = (
                            measure_throughput(
                                environ,
                                postgres,
                                options.throughput_tasks,
                                root,
                                options.worker_profile,
                            )
                        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(results, indent=1) if options.json else report(results))


if __name__ == "__main__":
    main()
