"""The admin overview on PostgreSQL: ``percentile_cont``, and the latest errors read from
their index (docs/admin.md#the-overview).

Measured in a process of its own on the private PostgreSQL (tests/overview_measure.py).
``MCP_TOOLS_OVERVIEW_ROWS`` sets the size of the log (default 20,000); with ``-s`` the
page's times and each query's EXPLAIN ANALYZE are printed, as docs/admin.md quotes them for
1,000,000 rows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def measured(postgres):
    rows = int(os.environ.get("MCP_TOOLS_OVERVIEW_ROWS", "20000"))
    environ = {
        **os.environ,
        **postgres.environ(),
        "DJANGO_SETTINGS_MODULE": "tests.postgres_settings",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.overview_measure", str(rows)],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for days, times in figures["page_ms_by_window"].items():
        shown = ", ".join(f"{each:.0f}" for each in times)
        print(f"\n{rows:,} rows, a window of {days} days: the overview in {shown} ms")
    for each in figures["plans"]:
        print("\n" + each["sql"] + "\n" + "\n".join(each["plan"]))
    return figures


def test_the_figures_are_postgresqls_percentiles_of_the_window(measured, postgres):
    import psycopg

    # Asked of PostgreSQL directly, over the same window: the page shows the same.
    with psycopg.connect(postgres.conninfo()) as connection:
        rows = connection.execute(
            "SELECT tool_name, count(*),"
            " percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms),"
            " percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms)"
            " FROM mcp_tools_toolcall WHERE started_at >= %s GROUP BY tool_name",
            [measured["since"]],
        ).fetchall()
    expected = {name: (calls, p50, p95) for name, calls, p50, p95 in rows}
    shown = {tool["name"]: (tool["calls"], tool["p50"], tool["p95"]) for tool in measured["tools"]}
    assert shown.keys() == expected.keys()
    for name, (calls, p50, p95) in shown.items():
        assert calls == expected[name][0]
        assert p50 == pytest.approx(expected[name][1]) and p95 == pytest.approx(expected[name][2])


def test_the_latest_errors_are_read_from_their_index_not_the_window(measured):
    (latest,) = [each["plan"] for each in measured["plans"] if "LIMIT 10" in each["sql"]][-1:]
    assert "Index Scan using mcp_toolcall_errors" in "\n".join(latest)
