"""The benchmark harness still works: a short smoke run of it in every ``make test``.

Figures are never asserted here (the machine is shared: docs/performance.md has them); the
run must finish, measure both servers and both sides of each comparison, and find every
answer it checked correct (the harness exits 1 otherwise and marks the row with ⚠).
"""

from __future__ import annotations

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
    assert re.search(r"added by the endpoint \| [\d.]+ \|", text) or "added" in text, text
    rows = [line for line in text.splitlines() if re.match(r"\| (trivial|retrieve|create)", line)]
    # Three cases, two servers, two concurrencies: every row with a ratio.
    assert len(rows) == 12, text
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert any(re.fullmatch(r"\d+\.\d\d", cell) for cell in cells), row
