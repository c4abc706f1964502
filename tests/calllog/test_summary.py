"""The call log's daily summary: its histogram's percentiles against the exact ones, the
writer's additions (a request's and the queue's), and ``mcp_summarize`` (docs/admin.md).

Run on SQLite here, and on PostgreSQL by tests/calllog/test_summary_postgres.py (this module, with
``--ds tests.postgres_settings``).
"""

from __future__ import annotations

import io
import math
import os
import random
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_tools.calllog import summary
from mcp_tools.calllog import writer as calllog
from mcp_tools.models import ToolCall, ToolCallDay, ToolCallLatency


def exact(durations, fraction):
    """PostgreSQL's ``percentile_cont``."""
    ordered = sorted(durations)
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    if low + 1 >= len(ordered):
        return ordered[low]
    return ordered[low] + (ordered[low + 1] - ordered[low]) * (position - low)


def histogram(durations):
    counts = {}
    for duration in durations:
        counts[summary.bucket(duration)] = counts.get(summary.bucket(duration), 0) + 1
    return counts


def within_bound(estimate, true):
    """docs/admin.md's bound: a factor RATIO, or FLOOR_MS below FLOOR_MS."""
    slack = 1e-9 * max(true, 1.0)
    low = true / summary.RATIO - summary.FLOOR_MS - slack
    high = true * summary.RATIO + summary.FLOOR_MS + slack
    return low <= estimate <= high


# -- the histogram -------------------------------------------------------------------------


def test_the_buckets_are_log_spaced_from_ten_microseconds_to_a_thousand_seconds():
    assert summary.BUCKETS == 130
    assert summary.bucket(0.0) == 0 and summary.bucket(0.01) == 0
    assert summary.bucket(0.0100001) == 1
    assert summary.bucket(1_000_000.0) == summary.BUCKETS - 1
    assert summary.bucket(float("nan")) == 0
    for index in range(1, summary.BUCKETS - 1):
        low, high = summary.edges(index)
        assert high / low == pytest.approx(summary.RATIO)
        assert summary.bucket(low * 1.000001) == index
        assert summary.bucket(high / 1.000001) == index
    # An edge goes to the bucket above it, as the database's logarithm puts it too.
    assert summary.bucket(1.0) == 1 + 2 * summary.PER_DECADE
    assert summary.edges(summary.bucket(1.0))[0] == pytest.approx(1.0)
    assert summary.edges(summary.bucket(1000.0))[0] == pytest.approx(1000.0)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.floats(min_value=0.0, max_value=999_999.0, allow_nan=False), min_size=1, max_size=300
    ),
    st.sampled_from([0.0, 0.05, 0.5, 0.9, 0.95, 0.99, 1.0]),
)
def test_a_percentile_of_the_histogram_is_within_the_bound_of_the_exact_one(durations, fraction):
    slowest = max(durations)
    estimate = summary.percentile(histogram(durations), fraction, slowest)
    assert within_bound(estimate, exact(durations, fraction))


def test_on_a_smooth_distribution_the_percentiles_are_much_closer_than_the_bound():
    generator = random.Random(26)
    durations = [round(generator.lognormvariate(3, 1), 3) for _ in range(20_000)]
    for fraction in (0.5, 0.95):
        estimate = summary.percentile(histogram(durations), fraction, max(durations))
        assert estimate == pytest.approx(exact(durations, fraction), rel=0.01)


def test_a_single_call_is_its_own_percentiles_and_an_empty_histogram_has_none():
    assert summary.percentile({summary.bucket(12.5): 1}, 0.95, 12.5) == 12.5
    assert summary.percentile({}, 0.5) is None
    assert summary.percentile({summary.BUCKETS - 1: 3}, 0.5) == summary.CEILING_MS


# -- the writer ----------------------------------------------------------------------------


def call(tool="echo", ago=timedelta(minutes=1), duration=5.0, outcome="ok", **fields):
    return ToolCall(
        tool_name=tool,
        started_at=timezone.now() - ago,
        duration_ms=duration,
        outcome=outcome,
        is_error=outcome != "ok",
        **fields,
    )


def days():
    return {
        (row.day, row.tool_name, row.outcome, row.client_name, row.protocol_version): (
            row.calls,
            row.slowest_ms,
            row.last_at,
        )
        for row in ToolCallDay.objects.all()
    }


def latencies():
    return {
        (row.day, row.tool_name, row.bucket): row.calls for row in ToolCallLatency.objects.all()
    }


def some_calls(count=200, seed=7):
    generator = random.Random(seed)
    now = timezone.now()
    return [
        ToolCall(
            tool_name=generator.choice(["echo", "todo_list", "boom"]),
            started_at=now - timedelta(minutes=generator.randrange(60 * 24 * 3)),
            duration_ms=round(generator.lognormvariate(2, 1.5), 3),
            outcome=(outcome := generator.choice(["ok", "ok", "ok", "error", "refused"])),
            is_error=outcome != "ok",
            client_name=generator.choice(["", "claude-code/2.1", "cursor/1.4"]),
            protocol_version=generator.choice(["2025-06-18", "2025-11-25"]),
        )
        for _ in range(count)
    ]


def expected(rows):
    counted, buckets = summary.tally(rows)
    return (
        {key: (each.calls, each.slowest_ms, each.last_at) for key, each in counted.items()},
        buckets,
    )


@pytest.mark.django_db(transaction=True)
def test_each_batch_the_writer_writes_adds_to_the_summary_of_its_days():
    rows = some_calls()
    calllog.write(rows[:120])
    calllog.write(rows[120:])  # the same days and tools again: added to, not replaced
    assert (days(), latencies()) == expected(rows)
    assert sum(calls for calls, _, _ in days().values()) == ToolCall.objects.count() == 200


@pytest.mark.django_db
def test_a_request_inside_a_transaction_adds_in_its_savepoint():
    # The path of Django's test environment and of calls inside a transaction: write()
    # from the request, in the caller's transaction.
    calllog.write([call(duration=3.0), call(duration=4.0, outcome="error")])
    (ok,) = ToolCallDay.objects.filter(outcome="ok")
    assert (ok.calls, ok.slowest_ms) == (1, 3.0)
    assert sum(latencies().values()) == 2


@pytest.mark.django_db(transaction=True)
def test_a_batch_the_database_refuses_is_counted_once_for_the_rows_it_then_takes():
    # The user is gone: the batch is refused (its foreign key), then written row by row,
    # that row without its user. The refused batch's additions went with its transaction.
    rows = [call(duration=1.0), call(duration=2.0, user_id=999_999), call(duration=3.0)]
    calllog.write(rows)
    assert ToolCall.objects.count() == 3
    assert (days(), latencies()) == expected(rows)


@pytest.mark.django_db(transaction=True)
def test_the_queues_writer_thread_keeps_the_summary(monkeypatch, settings):
    settings.MCP_TOOLS = {"CACHE": "mcp", "CALL_LOG": "all", "CALL_LOG_FLUSH_INTERVAL": 0.01}
    fresh = calllog.Queue()
    monkeypatch.setattr(calllog, "queue", fresh)
    monkeypatch.setattr(calllog, "under_tests", lambda: False)
    rows = some_calls(50)
    try:
        for row in rows:
            values = {field.attname: getattr(row, field.attname) for field in ToolCall._meta.fields}
            del values["id"]
            assert fresh.put(values)
        fresh.close()  # waits for the thread to write every row
    finally:
        import atexit

        atexit.unregister(fresh.close)
    assert ToolCall.objects.count() == 50
    assert (days(), latencies()) == expected(rows)


@pytest.mark.django_db(transaction=True)
def test_without_an_upsert_the_summary_is_updated_or_inserted(monkeypatch):
    monkeypatch.setattr(summary, "UPSERTING", {})
    rows = some_calls(80)
    calllog.write(rows[:30])
    calllog.write(rows[30:])
    assert (days(), latencies()) == expected(rows)


@pytest.mark.django_db(transaction=True)
def test_without_an_upsert_a_row_another_writer_made_first_is_added_to(monkeypatch):
    monkeypatch.setattr(summary, "UPSERTING", {})
    calllog.write([call(duration=2.0)])  # the other writer's row
    real, missed = QuerySet.update, []

    def update(self, **changes):
        if self.model is ToolCallDay and not missed:
            missed.append(True)
            return 0  # the other writer's row not committed yet when the UPDATE ran
        return real(self, **changes)

    monkeypatch.setattr(QuerySet, "update", update)
    calllog.write([call(duration=9.0)])
    (row,) = ToolCallDay.objects.all()
    assert missed and (row.calls, row.slowest_ms) == (2, 9.0)


# -- mcp_summarize -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_mcp_summarize_makes_the_summary_the_writer_would_have_made(capsys):
    rows = some_calls(300, seed=11) + [
        call(duration=duration) for duration in (0.0, 0.01, 1.0, 10.0, 1000.0, 2_000_000.0)
    ]
    ToolCall.objects.bulk_create(rows)  # not by the writer: no summary
    assert not ToolCallDay.objects.exists()
    call_command("mcp_summarize")
    # Three days back from now span three or four calendar days, by the time of day.
    spanned = len({summary.day_of(row.started_at) for row in rows})
    assert f"Summarized 306 logged calls of {spanned} days" in capsys.readouterr().out
    # The database's buckets are Python's, edges included.
    built_days, built_latencies = days(), latencies()
    want_days, want_latencies = expected(rows)
    assert built_latencies == want_latencies
    assert built_days.keys() == want_days.keys()
    for key, (calls, slowest, last) in built_days.items():
        assert (calls, slowest) == want_days[key][:2]
        assert abs(last - want_days[key][2]) < timedelta(milliseconds=1)
    call_command("mcp_summarize")  # again: in place of what it made, not added to it
    assert (days(), latencies()) == (built_days, built_latencies)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers")
@pytest.mark.django_db(transaction=True)
def test_mcp_summarize_while_the_writer_writes_counts_each_call_once(caplog):
    ToolCall.objects.bulk_create(some_calls(300, seed=3))  # logged before the summary
    stop, batches = threading.Event(), []

    def write():
        try:
            while not stop.is_set():
                calllog.write(some_calls(40, seed=100 + len(batches)))
                batches.append(True)
        finally:
            connections.close_all()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for _ in range(4):
            call_command("mcp_summarize", stdout=io.StringIO())
    finally:
        stop.set()
        writer.join()
    assert batches and "could not be written" not in caplog.text
    logged = list(ToolCall.objects.all())
    want_days, want_latencies = expected(logged)
    assert latencies() == want_latencies
    assert {key: calls for key, (calls, _, _) in days().items()} == {
        key: calls for key, (calls, _, _) in want_days.items()
    }


@pytest.mark.django_db(transaction=True)
def test_mcp_summarize_days_rebuilds_only_the_last_days(capsys):
    old, recent = call(ago=timedelta(days=5)), call(ago=timedelta(minutes=1))
    ToolCall.objects.bulk_create([old, recent])
    call_command("mcp_summarize", "--days", "2")
    assert "Summarized 1 logged call of 2 days" in capsys.readouterr().out
    assert [row.day for row in ToolCallDay.objects.all()] == [summary.day_of(recent.started_at)]


@pytest.mark.django_db(transaction=True)
def test_mcp_summarize_of_an_empty_log_and_a_bad_days(capsys):
    call_command("mcp_summarize")
    assert "The call log is empty" in capsys.readouterr().out
    with pytest.raises(Exception, match="--days must be 1 or more"):
        call_command("mcp_summarize", "--days", "0")


@pytest.mark.django_db(transaction=True)
def test_mcp_summarize_days_empties_the_days_the_log_no_longer_holds(capsys):
    calllog.write([call(ago=timedelta(days=3))])
    ToolCall.objects.all().delete()  # as mcp_prune --days 0 does: the summary stays
    assert ToolCallDay.objects.exists()
    call_command("mcp_summarize", "--days", "7")
    assert "Summarized 0 logged calls of 7 days" in capsys.readouterr().out
    assert not ToolCallDay.objects.exists() and not ToolCallLatency.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_prune_leaves_the_summary_of_the_overviews_longest_window():
    recent, old, older = timedelta(hours=1), timedelta(days=20), timedelta(days=120)
    rows = [call(ago=recent), call(ago=old), call(ago=older)]
    calllog.write(rows)
    call_command("mcp_prune", "--days", "7", "--noinput", stdout=io.StringIO())
    assert ToolCall.objects.count() == 1
    # The log keeps 7 days; the summary the 90 of the overview's longest window.
    kept = {row.day for row in ToolCallDay.objects.all()}
    assert kept == {summary.day_of(rows[0].started_at), summary.day_of(rows[1].started_at)}
    assert {row.day for row in ToolCallLatency.objects.all()} == {
        row.day for row in ToolCallDay.objects.all()
    }


@pytest.mark.urls("tests.admin_urls")
@pytest.mark.django_db(transaction=True)
def test_the_overview_says_when_the_summary_lacks_days_the_log_holds(client, django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(root)
    ToolCall.objects.bulk_create([call(ago=timedelta(days=2))])  # before the upgrade
    calllog.write([call()])  # since
    page = client.get("/admin/mcp_tools/toolcall/overview/")
    assert page.context["unsummarized"] == summary.day_of(timezone.now() - timedelta(days=2))
    assert "manage.py mcp_summarize" in page.content.decode()
    call_command("mcp_summarize")
    page = client.get("/admin/mcp_tools/toolcall/overview/")
    assert page.context["unsummarized"] is None
    assert page.context["totals"].calls == 2
    assert "manage.py mcp_summarize" not in page.content.decode()


def test_the_upsert_is_one_statement_per_table():
    # tests/calllog/test_summary_postgres.py says which database this run is for.
    assert connection.vendor == os.environ.get("MCP_TESTS_SUMMARY_VENDOR", connection.vendor)
    sql = summary._upsert(ToolCallDay, "default", 2)
    assert sql.startswith('INSERT INTO "mcp_tools_toolcallday"') and "ON CONFLICT" in sql
    assert sql.count("(%s, %s, %s, %s, %s, %s, %s, %s)") == 2


@pytest.mark.django_db(transaction=True)
def test_a_batch_adds_to_each_table_in_one_statement_per_chunk():
    rows = [call(tool=f"tool_{index}", duration=1.0 + index) for index in range(150)]
    # The log's INSERT; the summary's: 150 days' rows in two chunks of 112, 150 latencies
    # in one of 225; the savepoint's or transaction's own statements besides.
    with CaptureQueriesContext(connection) as queries:
        calllog.write(rows)
    upserts = [query["sql"] for query in queries.captured_queries if "ON CONFLICT" in query["sql"]]
    assert len(upserts) == 3
    assert (days(), latencies()) == expected(rows)
