"""The benchmark harness still works: a short smoke run of it in every ``make test``.

Figures are never asserted here (the machine is shared: docs/performance.md has them); the
run must finish, measure both servers and both sides of each comparison, and find every
answer it checked correct (the harness exits 1 otherwise and marks the row with ⚠).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import report, services
from bench.load import Result
from tests.conformance_app.server import REPO

pytestmark = pytest.mark.services  # wrk comes from Debian's package, as the harness installs it


PROFILES = ("current", "production")
CASES = ("trivial GET", "retrieve (token, 1 row)", "create (4 fields)")


def sections(text: str) -> dict[str, str]:
    """Return the report's sections by title."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_a_smoke_run_of_the_benchmark_measures_each_side_and_checks_every_answer(tmp_path):
    report = tmp_path / "report.md"
    done = subprocess.run(
        [sys.executable, "bench/run.py", "--smoke", "--only", "inprocess,http", "--output", report],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = report.read_text()
    assert "⚠" not in text and "## Problems" not in text, text
    found = sections(text)
    # Each profile by default, the smoke run too, each in tables of its own.
    for profile in PROFILES:
        # In-process: the direct GET, the tools/call, what the endpoint adds, the ratio.
        inprocess = found[
            f"In-process: one trivial tools/call against the direct GET ({profile} profile)"
        ]
        assert re.search(r"^\| [\d.]+ \| [\d.]+ \| -?[\d.]+ \| [\d.]+ \|$", inprocess, re.M), text
        title = "tools/call against the direct request of the same view, same server"
        http = found[f"{title} ({profile} profile)"]
        rows = re.findall(
            r"^\| (trivial GET|retrieve \(token, 1 row\)|create \(4 fields\)) \| (\w+) \| (\d+) \|"
            r" ([\d,]+) \| ([\d,]+) \| (\d+\.\d\d) \|",
            http,
            re.MULTILINE,
        )
        # Three cases, two servers, two concurrencies: each measured on both sides.
        assert sorted((case, server, c) for case, server, c, *_ in rows) == sorted(
            (case, server, c)
            for case in CASES
            for server in ("gunicorn", "uvicorn")
            for c in ("1", "16")
        ), text
        for row in rows:
            direct, mcp = (int(figure.replace(",", "")) for figure in row[3:5])
            assert direct > 0 and mcp > 0, text
    # The ratios of both profiles, side by side: one in-process row per profile, and each
    # comparison once, with a ratio and a CPU ratio from each.
    both = found["Both profiles side by side"]
    assert re.findall(r"^\| (current|production) \| [\d.]+ \|", both, re.MULTILINE) == list(
        PROFILES
    )
    side = re.findall(
        r"^\| (?:trivial GET|retrieve|create)[^|]*\| \w+ \| \d+ \|((?: [\d.]+ \|){4})$", both, re.M
    )
    assert len(side) == 12, both


def bench_json(script: str, *args: str) -> dict:
    """Run an in-process bench script with ``--json`` and return what it printed."""
    done = subprocess.run(
        [sys.executable, script, *args, "--json"],
        cwd=REPO,
        # The bench project's settings, not the suite's (pytest-django sets those).
        env={key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_streamed_benchmark_streams_one_call_and_answers_the_other_as_json():
    # bench/streamed.py checks that the call with a progress token came back as SSE; a
    # streamed call switches threads (the view's thread, then the request's), a plain one
    # runs on the request's thread alone.
    figures = bench_json("bench/streamed.py", "--rounds", "1", "--calls", "20", "--cpu", "0")
    assert figures["plain_us"] > 0 and figures["streamed_us"] > 0, figures
    assert figures["streamed_switches"] >= 2 > figures["plain_switches"], figures


def test_the_floors_three_applications_answer_the_same_bytes_each_its_way():
    # bench/handoff.py runs them under gunicorn; here, as a WSGI server would call them.
    import io
    import threading

    from bench import floor_app

    def call(name):
        started = []
        environ = {"wsgi.input": io.BytesIO(b"{}"), "REQUEST_METHOD": "POST"}
        app = getattr(floor_app, name)
        body = b"".join(app(environ, lambda status, headers: started.append(headers)))
        return dict(started[0]), body

    answers = {name: call(name) for name in ("plain", "stream", "handed")}
    assert {body for _, body in answers.values()} == {floor_app.BODY}
    assert answers["plain"][0]["Content-Length"] == str(len(floor_app.BODY))
    for name in ("stream", "handed"):  # no length: gunicorn sends them chunked
        assert answers[name][0]["Content-Type"] == "text/event-stream", answers
        assert "Content-Length" not in answers[name][0]
    # The handed answer's body came from its kept thread, started by the first request.
    (kept,) = floor_app._started
    assert kept.is_alive() and kept is not threading.current_thread()


def test_the_tracing_benchmark_runs_each_configuration():
    # bench/tracing.py runs the same in-process call in four processes (OpenTelemetry
    # absent, the API alone, the SDK, the SDK with a client's traceparent).
    figures = bench_json("bench/tracing.py", "--turns", "1", "--calls", "20")["us_per_call"]
    assert set(figures) == {"absent", "api", "sdk", "sdk+context"}
    assert all(value > 0 for value in figures.values()), figures


def test_the_in_process_benchmark_measures_the_retrieve_case_with_its_token():
    # --case retrieve: the token-retrieve view directly and as a tool. Both must answer: the
    # harness refuses a status other than 200 and an error or isError in the body.
    figures = bench_json(
        "bench/inprocess.py", "--case", "retrieve", "--rounds", "1", "--calls", "20"
    )
    assert figures["direct_us"] > 0 and figures["tool_us"] > 0, figures
    assert figures["attribution"]["view_us"] > 0, figures


def test_the_steps_benchmark_times_each_step_and_counts_the_calls():
    # bench/steps.py wraps the steps of a trivial call in timers and counts the Python and
    # C calls of each request, which the same code makes alike on every run.
    figures = bench_json("bench/steps.py", "--rounds", "1", "--calls", "20")
    steps = figures["steps"]
    # Each step ran once per call, and a step's own time is part of its total.
    assert steps["the view's request"][2] == 1.0, steps
    assert all(0 <= own <= total for total, own, _ in steps.values()), steps
    view, middleware = steps["the /mcp view"][0], steps["the middleware chain and the view"][0]
    assert view > middleware, steps
    calls = figures["calls"]
    assert "mcp_tools" not in calls["direct"], calls
    assert calls["tool"]["mcp_tools"] > 0, calls
    assert sum(calls["tool"].values()) > sum(calls["direct"].values()), calls


def test_the_bench_redis_is_stopped_by_its_pid_whatever_ends_the_block():
    with pytest.raises(RuntimeError, match="interrupted"), services.redis() as server:
        assert services.answers_ping(server.port)
        assert "redis-server" in Path(f"/proc/{server.pid}/cmdline").read_text()
        raise RuntimeError("interrupted")
    assert not services.answers_ping(server.port)
    assert not Path(f"/proc/{server.pid}").exists()


def test_a_redis_that_does_not_start_is_a_clear_error(monkeypatch):
    # A binary that exits at once, as redis-server does on a bad configuration.
    monkeypatch.setattr(services, "ensure_command", lambda command, package: "/bin/false")
    failed = pytest.raises(services.ServiceFailed, match="redis-server did not start")
    with failed, services.redis():
        pytest.fail("a Redis that never answered was yielded")


def bench_settings(**env: str) -> subprocess.CompletedProcess[str]:
    """Load the bench project's settings in a process of their own; print what they hold."""
    script = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "from mcp_tools.conf import mcp_settings as m; from django.core.cache import caches; "
        "print(json.dumps([s.MIDDLEWARE, type(caches[m.CACHE]).__name__, "
        "s.REST_FRAMEWORK, s.MCP_TOOLS, m.DISPATCH, s.DEBUG]))"
    )
    outside = {key: value for key, value in os.environ.items() if not key.startswith("BENCH_")}
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env={**outside, "DJANGO_SETTINGS_MODULE": "bench.project.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def startproject_middleware() -> list[str]:
    """Return the MIDDLEWARE that the installed Django's `startproject` writes."""
    import django

    template = Path(django.__file__).parent / "conf/project_template/project_name/settings.py-tpl"
    listed = re.search(r"^MIDDLEWARE = \[(.*?)\]", template.read_text(), re.M | re.S)
    assert listed is not None
    return re.findall(r"'([\w.]+)'", listed.group(1))


def test_the_production_profile_is_a_production_site_s_set_up():
    done = bench_settings(BENCH_PROFILE="production", BENCH_REDIS_URL="redis://127.0.0.1:1/0")
    assert done.returncode == 0, done.stderr
    middleware, cache, drf, mcp_tools, dispatch, debug = json.loads(done.stdout)
    assert middleware == startproject_middleware()
    assert cache == "RedisCache"
    assert drf["DEFAULT_AUTHENTICATION_CLASSES"] == [
        "rest_framework.authentication.TokenAuthentication"
    ]
    assert drf["DEFAULT_PERMISSION_CLASSES"] == ["rest_framework.permissions.IsAuthenticated"]
    # The endpoint takes DRF's defaults, and calls views through the middleware.
    assert mcp_tools == {"SERVER_NAME": "mcp-tools-bench"}
    assert (dispatch, debug) == ("middleware", False)


def test_the_current_profile_stays_as_it_was():
    done = bench_settings()
    assert done.returncode == 0, done.stderr
    middleware, cache, drf, mcp_tools, _, _ = json.loads(done.stdout)
    assert len(middleware) == 5 and cache == "LocMemCache"
    assert drf["DEFAULT_AUTHENTICATION_CLASSES"] == []
    assert mcp_tools["PERMISSION_CLASSES"] == ["rest_framework.permissions.AllowAny"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"BENCH_PROFILE": "production"}, "BENCH_PROFILE=production needs BENCH_REDIS_URL"),
        ({"BENCH_PROFILE": "staging"}, "BENCH_PROFILE is 'current' or 'production', not 'staging'"),
    ],
)
def test_a_profile_the_bench_cannot_run_is_named_in_a_clear_error(env, message):
    done = bench_settings(**env)
    assert done.returncode != 0
    assert f"ImproperlyConfigured: {message}" in done.stderr


def test_the_run_refuses_a_profile_it_does_not_have():
    done = subprocess.run(
        [sys.executable, "bench/run.py", "--profile", "staging"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "invalid choice: 'staging'" in done.stderr


def result(rps: float, cpu_us: float) -> Result:
    return Result(int(rps), 1.0, 0, 1.0, 2.0, 0, "", server_cpu_s=cpu_us * int(rps) / 1e6)


def test_the_side_by_side_table_gives_each_comparison_s_ratio_in_each_profile():
    def comparison(name: str, ratio: float) -> report.Comparison:
        return report.Comparison(
            name, "gunicorn", 1, [result(1000, 500)], [result(1000 * ratio, 500 / ratio)]
        )

    text = report.comparison_profiles(
        {
            "current": [comparison("trivial GET", 0.5), comparison("create", 0.8)],
            "production": [comparison("trivial GET", 0.9)],
        }
    )
    lines = text.splitlines()
    assert lines[0] == (
        "| case | server | c | ratio, current | ratio, production "
        "| CPU ratio, current | CPU ratio, production |"
    )
    assert lines[2:] == [
        "| trivial GET | gunicorn | 1 | 0.50 | 0.90 | 0.50 | 0.90 |",
        "| create | gunicorn | 1 | 0.80 | n/a | 0.80 | n/a |",
    ]
