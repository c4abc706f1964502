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

import pytest

from tests.conformance_app.server import REPO

pytestmark = pytest.mark.services  # wrk comes from Debian's package, as the harness installs it


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
    # In-process: the direct GET, the tools/call, what the endpoint adds, the ratio.
    assert re.search(r"^\| [\d.]+ \| [\d.]+ \| -?[\d.]+ \| [\d.]+ \|$", text, re.MULTILINE), text
    rows = re.findall(
        r"^\| (trivial GET|retrieve \(token, 1 row\)|create \(4 fields\)) \| (\w+) \| (\d+) \|"
        r" ([\d,]+) \| ([\d,]+) \| (\d+\.\d\d) \|",
        text,
        re.MULTILINE,
    )
    # Three cases, two servers, two concurrencies: each measured on both sides.
    assert {(case, server, c) for case, server, c, *_ in rows} == {
        (case, server, c)
        for case in ("trivial GET", "retrieve (token, 1 row)", "create (4 fields)")
        for server in ("gunicorn", "uvicorn")
        for c in ("1", "16")
    }, text
    for row in rows:
        direct, mcp = (int(figure.replace(",", "")) for figure in row[3:5])
        assert direct > 0 and mcp > 0, text


def test_the_tracing_benchmark_runs_each_configuration():
    # bench/tracing.py runs the same in-process call in four processes (OpenTelemetry
    # absent, the API alone, the SDK, the SDK with a client's traceparent).
    done = subprocess.run(
        [sys.executable, "bench/tracing.py", "--turns", "1", "--calls", "20", "--json"],
        cwd=REPO,
        # The bench project's settings, not the suite's (pytest-django sets those).
        env={key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)["us_per_call"]
    assert set(figures) == {"absent", "api", "sdk", "sdk+context"}
    assert all(value > 0 for value in figures.values()), figures
