"""The admin overview on a PostgreSQL call log of ``ROWS`` rows: its queries, their plans,
and the page's time (docs/admin.md#the-overview); the time ``mcp_summarize`` takes to build
the daily summary the page reads, and what keeping it adds to the writer's batches.

Run by tests/calllog/test_overview_postgres.py as ``python -m tests.overview_measure ROWS`` with
``DJANGO_SETTINGS_MODULE=tests.postgres_settings``; prints one JSON object. The rows are
made by one ``INSERT … SELECT`` over ``generate_series``: 40 tools (a few busy ones),
30 days (``mcp_prune``'s default), 90 % ok, 7 % errors, 3 % refused, five clients.
"""

from __future__ import annotations

import io
import json
import sys
import time

import django

FILL = """
INSERT INTO mcp_tools_toolcall (
    tool_name, started_at, duration_ms, http_status, outcome, refusal, error_message,
    is_error, error_ref, argument_names, protocol_version, client_name
)
SELECT
    'tool_' || lpad((floor(power(random(), 2) * 40))::int::text, 2, '0'),
    now() - random() * interval '30 days',
    round((exp(random() * 6) + random() * 5)::numeric, 3)::float8,
    CASE WHEN r < 0.9 THEN 200 WHEN r < 0.97 THEN NULL ELSE NULL END,
    CASE WHEN r < 0.9 THEN 'ok' WHEN r < 0.97 THEN 'error' ELSE 'refused' END,
    CASE WHEN r < 0.97 THEN '' ELSE 'invalid_arguments' END,
    CASE WHEN r < 0.9 THEN '' WHEN r < 0.97 THEN 'Internal server error (reference '
        || md5(i::text) || ')' ELSE 'Invalid arguments: $.pk: ''x'' is not of type ''integer''' END,
    r >= 0.9,
    '',
    '["pk"]'::jsonb,
    (ARRAY['2025-06-18', '2025-11-25', '2026-07-28'])[1 + mod(i, 3)],
    (ARRAY['claude-code/2.1', 'cursor/1.4', 'mcp-inspector/0.16', 'python-sdk/1.12',
           'typescript-sdk/1.17'])[1 + mod(i / 7, 5)]
FROM (SELECT i, random() AS r FROM generate_series(1, %s) AS i) AS series
"""


def main(rows: int) -> None:
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from mcp_tools.models import ToolCallDay, ToolCallLatency

    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE mcp_tools_toolcall, mcp_tools_toolcallday, mcp_tools_toolcalllatency"
        )
        cursor.execute(FILL, [rows])
        cursor.execute("VACUUM ANALYZE mcp_tools_toolcall")
    started = time.perf_counter()
    call_command("mcp_summarize", stdout=io.StringIO())
    summarize_ms = (time.perf_counter() - started) * 1000
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE mcp_tools_toolcallday")
        cursor.execute("VACUUM ANALYZE mcp_tools_toolcalllatency")
    summary_rows = {
        "days": ToolCallDay.objects.count(),
        "latencies": ToolCallLatency.objects.count(),
    }
    user_model = get_user_model()
    root = user_model.objects.filter(username="root").first() or (
        user_model.objects.create_superuser("root", "root@example.com", "root-pw")
    )
    client = Client()
    client.force_login(root)
    by_window = {}
    for days in (1, 7, 30, 14):  # the default last: its queries are the ones explained
        times = []
        for _ in range(3):  # the first warms the caches; the report keeps each
            started = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                response = client.get("/admin/mcp_tools/toolcall/overview/", {"days": days})
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.status_code
        by_window[days] = times
    context = response.context_data
    ours = [
        query["sql"] for query in queries.captured_queries if "mcp_tools_toolcall" in query["sql"]
    ]
    plans = []
    with connection.cursor() as cursor:
        for sql in ours:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
            plans.append({"sql": sql, "plan": [line for (line,) in cursor.fetchall()]})
    tools = [
        {"name": tool.name, "calls": tool.calls, "p50": tool.p50, "p95": tool.p95}
        for tool in context["tools"]
    ]
    clients = [
        {key: row[key] for key in ("client_name", "protocol_version", "calls", "failures")}
        for row in context["clients"]
    ]
    print(
        json.dumps(
            {
                "rows": rows,
                "page_ms": times,
                "page_ms_by_window": by_window,
                "queries": len(queries.captured_queries),
                "plans": plans,
                "tools": tools,
                "window_calls": context["totals"].calls,
                "since": context["since"].isoformat(),
                "clients": clients,
                "unsummarized": str(context["unsummarized"] or ""),
                "summarize_ms": summarize_ms,
                "summary_rows": summary_rows,
                "writer_ms": writer_times(),
            }
        )
    )


def writer_times(batches: int = 20, size: int = 500) -> dict[str, float]:
    """The median time of one batch of ``size`` rows written as the queue's writer writes
    them (``calllog.insert``), with the summary kept and without: what it adds per batch."""
    import random
    import statistics
    from datetime import timedelta
    from unittest import mock

    from django.utils import timezone

    from mcp_tools.calllog import summary
    from mcp_tools.calllog import writer as calllog
    from mcp_tools.models import ToolCall, ToolCallDay, ToolCallLatency

    generator = random.Random(26)
    now = timezone.now()

    def batch() -> list[ToolCall]:
        return [
            ToolCall(
                tool_name=f"writer_{int(generator.random() ** 2 * 40):02d}",
                started_at=now - timedelta(seconds=generator.random()),
                duration_ms=round(generator.lognormvariate(2, 1), 3),
                outcome="ok",
                client_name=generator.choice(["claude-code/2.1", "cursor/1.4"]),
                protocol_version="2025-11-25",
                argument_names=["pk"],
            )
            for _ in range(size)
        ]

    def timed() -> float:
        times = []
        for _ in range(batches):
            rows = batch()
            started = time.perf_counter()
            calllog.insert(rows)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times)

    with_summary = timed()
    with mock.patch.object(summary, "add", lambda rows, using: None):
        without = timed()
    # Not the page's: the tests compare its figures with the log's.
    for model in (ToolCall, ToolCallDay, ToolCallLatency):
        model.objects.filter(tool_name__startswith="writer_").delete()
    return {"batch": size, "with_summary": with_summary, "without": without}


if __name__ == "__main__":
    main(int(sys.argv[1]))
