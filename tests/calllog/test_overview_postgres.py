"""The admin overview on PostgreSQL: its figures, read from the daily summary, against the
log's own (``percentile_cont`` within the histogram's bound), and the latest errors read
from their index (docs/admin.md#the-overview).

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

ROOT = Path(__file__).resolve().parents[2]


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
    print(
        f"\nmcp_summarize: {figures['summarize_ms']:.0f} ms; summary rows: "
        f"{figures['summary_rows']}; a writer's batch: {figures['writer_ms']}"
    )
    return figures


def test_the_figures_are_the_logs_and_its_percentiles_within_the_bound(measured, postgres):
    import psycopg

    from mcp_tools.calllog import summary

    # Asked of PostgreSQL directly, over the same window of the log: the page's counts are
    # the same, its percentiles within a factor RATIO of percentile_cont's.
    with psycopg.connect(postgres.conninfo()) as connection:
        rows = connection.execute(
            "SELECT tool_name, count(*),"
            " percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms),"
            " percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms)"
            " FROM mcp_tools_toolcall WHERE started_at >= %s GROUP BY tool_name",
            [measured["since"]],
        ).fetchall()
        clients = connection.execute(
            "SELECT client_name, protocol_version, count(*), count(*) FILTER (WHERE is_error)"
            " FROM mcp_tools_toolcall WHERE started_at >= %s"
            " GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 10",
            [measured["since"]],
        ).fetchall()
    expected = {name: (calls, p50, p95) for name, calls, p50, p95 in rows}
    shown = {tool["name"]: (tool["calls"], tool["p50"], tool["p95"]) for tool in measured["tools"]}
    assert shown.keys() == expected.keys()
    worst = 1.0
    for name, (calls, p50, p95) in shown.items():
        assert calls == expected[name][0]
        for estimate, exact in ((p50, expected[name][1]), (p95, expected[name][2])):
            assert exact / summary.RATIO <= estimate <= exact * summary.RATIO
            worst = max(worst, estimate / exact, exact / estimate)
    print(f"\nThe percentiles' largest error: {100 * (worst - 1):.2f} %")
    assert [tuple(row.values()) for row in measured["clients"]] == [tuple(row) for row in clients]
    assert measured["unsummarized"] == ""


def test_the_page_reads_the_log_only_by_its_indexes(measured):
    # The summary's queries read the summary; the log is read for the latest errors and
    # for its oldest row of the window, each a few rows of an index.
    for each in measured["plans"]:
        if 'FROM "mcp_tools_toolcall"' in each["sql"]:
            assert "Seq Scan" not in "\n".join(each["plan"]), each


def test_the_latest_errors_are_read_from_their_index_not_the_window(measured):
    (latest,) = [each["plan"] for each in measured["plans"] if "LIMIT 10" in each["sql"]][-1:]
    assert "Index Scan using mcp_toolcall_errors" in "\n".join(latest)
