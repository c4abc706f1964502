"""The first tools/list of a new process, built lazily and prepared at start-up.

Each repetition starts a fresh process per mode, the modes interleaved. The process sets
Django up as a server's worker does (``django.setup()``, the WSGI handler; no migrate, no
checks), calls ``mcp_tools.warm_up()`` in the ``prepared`` mode, imports the URLconf (which
declares ``BENCH_TOOLS`` tools: the project's own cost, paid by its first request of any
kind) and sends every page of one ``tools/list`` through Django's WSGI handler, without
sockets. Prints one JSON object: the median of each figure per mode, and every run.

    BENCH_TOOLS=500 bench/.venv/bin/python bench/coldstart.py [--reps 7]
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # before anything else is imported: the process's start-up

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODES = ("lazy", "prepared")
FIGURES = (
    "start_ms",
    "prepare_ms",
    "urlconf_ms",
    "first_page_ms",
    "first_listing_ms",
    "start_rss_kib",
    "listed_rss_kib",
)


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child(mode: str) -> dict[str, float]:
    """Measure one fresh process: start-up, then the first whole tools/list."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    handler = WSGIHandler()
    prepare_ms = 0.0
    if mode == "prepared":
        import mcp_tools

        begin = time.perf_counter()
        mcp_tools.warm_up()
        prepare_ms = (time.perf_counter() - begin) * 1000
    started = time.perf_counter()
    start_rss = rss_kib()

    from django.urls import get_resolver

    from bench.listing import page_environ

    begin = time.perf_counter()
    get_resolver().url_patterns  # noqa: B018  (lazy: the project declares its tools here)
    urlconf_ms = (time.perf_counter() - begin) * 1000

    def call(env: dict) -> bytes:
        env = dict(env)
        env["wsgi.input"] = io.BytesIO(env.pop("body", b""))
        response = handler(env, lambda status, headers: None)
        body = b"".join(response)
        response.close()
        return body

    begin = time.perf_counter()
    first_page = None
    cursor, names = None, 0
    while True:
        result = json.loads(call(page_environ(cursor)))["result"]
        if first_page is None:
            first_page = time.perf_counter()
        names += len(result["tools"])
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    end = time.perf_counter()
    assert names == int(os.environ["BENCH_TOOLS"]), names
    return {
        "start_ms": (started - STARTED) * 1000,
        "prepare_ms": prepare_ms,
        "urlconf_ms": urlconf_ms,
        "first_page_ms": ((first_page or end) - begin) * 1000,
        "first_listing_ms": (end - begin) * 1000,
        "start_rss_kib": start_rss,
        "listed_rss_kib": rss_kib(),
    }


def run_child(mode: str) -> dict[str, float]:
    # Bytecode written, as a deployed server has it: without, every process would compile
    # the modules it imports again, and that would be most of what is measured.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, __file__, f"--child={mode}"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} process failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if int(os.environ.get("BENCH_TOOLS") or 0) <= 0:
        parser.error("set BENCH_TOOLS to the number of tools to list")
    if options.child:
        print(json.dumps(child(options.child)))
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
    # The tables, and the tools' admin rows (synced after migrate), as a deployed site has;
    # then one discarded process per mode, so bytecode is cached as on a server.
    migrated = subprocess.run(
        [sys.executable, "-m", "django", "migrate", "-v", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if migrated.returncode != 0:
        raise RuntimeError(f"migrate failed:\n{migrated.stderr[-2000:]}")
    for mode in MODES:
        run_child(mode)
    runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    for rep in range(options.reps):
        for mode in MODES if rep % 2 == 0 else reversed(MODES):
            runs[mode].append(run_child(mode))
    medians = {
        mode: {name: statistics.median(run[name] for run in runs[mode]) for name in FIGURES}
        for mode in MODES
    }
    print(
        json.dumps(
            {"tools": int(os.environ["BENCH_TOOLS"]), "reps": options.reps, **medians, "runs": runs}
        )
    )


if __name__ == "__main__":
    main()
