"""The call log's daily summary: what the overview reads instead of the log's rows
(docs/admin.md#the-overview).

Two tables, kept by the log's writer in the transaction that writes each batch of rows
(``add``): ``ToolCallDay`` counts the calls of a day by tool, outcome, client and protocol
version, with the slowest duration and the last call; ``ToolCallLatency`` counts a tool's
calls of a day per bucket of a fixed histogram of durations, log-spaced, from which the
overview's p50 and p95 are interpolated (``percentile``) within a stated bound. A day is a
day of ``TIME_ZONE``, whatever time zone a request has activated, so that every writer and
every reader cuts the days at the same midnight.

The rows of a batch are counted here in Python, then each table gets one statement with
every summary row the batch adds to (one per 900 parameters): on PostgreSQL and SQLite an
``INSERT … VALUES (…), (…) ON CONFLICT DO UPDATE`` that adds to the rows other writers have
made; elsewhere an ``UPDATE`` of each row and, when there is none yet, an ``INSERT`` (in a
savepoint, the ``UPDATE`` again when another writer inserted it first). The rows are taken
in one order, the key's, so that two writers adding to the same rows wait for each other
rather than deadlock.

``rebuild`` (``manage.py mcp_summarize``) makes the summary of days from the log's rows,
with the same buckets computed by the database, each day with the writers held off.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, connections, transaction
from django.db.models import Case, Count, F, IntegerField, Max, Min, Value, When
from django.db.models.functions import Cast, Floor, Greatest, Ln
from django.utils import timezone

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

    from ..models import ToolCall, ToolCallDay, ToolCallLatency

# The histogram ---------------------------------------------------------------------------

#: Buckets per decade of duration: each bucket's upper edge is ``RATIO`` times its lower.
PER_DECADE = 16
RATIO = 10 ** (1 / PER_DECADE)  # 1.155
#: Bucket 0 holds the durations up to ``FLOOR_MS`` (from 0); the last, those from
#: ``CEILING_MS`` (1,000 s) on; between them, ``PER_DECADE`` buckets per decade.
FLOOR_MS = 0.01
CEILING_MS = 1_000_000.0
BUCKETS = PER_DECADE * round(math.log10(CEILING_MS / FLOOR_MS)) + 2  # 130
#: Added before rounding down, in buckets: a duration on an edge (1 ms, 10 ms, …) goes to
#: the bucket above it whether Python or the database took its logarithm (the database's is
#: ``ln(x) / ln(10)``: 2.9999999999999996 for 1,000).
EDGE = 1e-6


def bucket(duration_ms: float) -> int:
    """Return the bucket of ``duration_ms``."""
    if not duration_ms > FLOOR_MS:  # NaN too
        return 0
    if duration_ms >= CEILING_MS:
        return BUCKETS - 1
    offset = PER_DECADE * (math.log10(duration_ms) - math.log10(FLOOR_MS))
    return min(1 + math.floor(offset + EDGE), BUCKETS - 2)


def edges(index: int) -> tuple[float, float]:
    """Return the lowest and highest duration of bucket ``index``."""
    if index <= 0:
        return 0.0, FLOOR_MS
    if index >= BUCKETS - 1:
        return CEILING_MS, math.inf
    return FLOOR_MS * RATIO ** (index - 1), FLOOR_MS * RATIO**index


def percentile(
    histogram: dict[int, int], fraction: float, slowest: float | None = None
) -> float | None:
    """Return ``percentile_cont(fraction)`` of the durations ``histogram`` counts (bucket:
    calls), as PostgreSQL would compute it from the durations themselves, within a bound.

    Each rank's duration is placed inside its bucket, geometrically (linearly in bucket 0),
    as if the bucket's durations were spread evenly over it; the two ranks around the
    fraction are then interpolated as ``percentile_cont`` does. A rank's duration and its
    estimate are in the same bucket, so the estimate is within a factor ``RATIO`` of the
    exact figure, or ``FLOOR_MS`` of it below ``FLOOR_MS``. ``slowest``, the largest
    duration counted, caps every bucket and is the last rank's estimate.
    """
    ordered = sorted((index, calls) for index, calls in histogram.items() if calls > 0)
    count = sum(calls for _, calls in ordered)
    if count == 0:
        return None
    position = fraction * (count - 1)
    low = math.floor(position)
    below = _ranked(ordered, count, low, slowest)
    if low + 1 >= count:
        return below
    above = _ranked(ordered, count, low + 1, slowest)
    return below + (above - below) * (position - low)


def _ranked(ordered: list[tuple[int, int]], count: int, rank: int, slowest: float | None) -> float:
    """The estimate of the duration of rank ``rank`` (from 0) of the histogram."""
    if rank == count - 1 and slowest is not None:
        return slowest
    start = 0
    for index, calls in ordered:
        if rank < start + calls:
            low, high = edges(index)
            if slowest is not None:
                high = min(high, slowest)
                low = min(low, high)
            if high == math.inf:  # beyond the last edge with no slowest: the edge
                return low
            within = (rank - start + 0.5) / calls
            if index == 0 or low <= 0:
                return low + (high - low) * within
            ratio: float = (high / low) ** within
            return low * ratio
        start += calls
    raise ValueError(f"rank {rank} beyond the {count} calls of the histogram")


# The days --------------------------------------------------------------------------------


def day_of(moment: datetime) -> date:
    """Return the day of ``moment`` in ``TIME_ZONE`` (a naive moment: already local)."""
    if settings.USE_TZ and timezone.is_aware(moment):
        return timezone.localtime(moment, timezone.get_default_timezone()).date()
    return moment.date()


def today() -> date:
    """Return today in ``TIME_ZONE``."""
    if settings.USE_TZ:
        return timezone.localdate(timezone=timezone.get_default_timezone())
    return date.today()


def midnight(day: date) -> datetime:
    """Return the first moment of ``day`` in ``TIME_ZONE``, as the log stores moments."""
    start = datetime.combine(day, time.min)
    if settings.USE_TZ:
        return timezone.make_aware(start, timezone.get_default_timezone())
    return start


# A batch's counts ------------------------------------------------------------------------


@dataclass
class Counted:
    calls: int
    slowest_ms: float
    last_at: datetime

    def add(self, calls: int, slowest_ms: float, last_at: datetime) -> None:
        self.calls += calls
        self.slowest_ms = max(self.slowest_ms, slowest_ms)
        self.last_at = max(self.last_at, last_at)


#: The key of a ``ToolCallDay``: day, tool, outcome, client, protocol version.
DayKey = tuple[date, str, str, str, str]
#: The key of a ``ToolCallLatency``: day, tool, bucket.
LatencyKey = tuple[date, str, int]


def tally(rows: Iterable[ToolCall]) -> tuple[dict[DayKey, Counted], dict[LatencyKey, int]]:
    """Count ``rows`` (``ToolCall`` instances) as the summary's two tables do."""
    days: dict[DayKey, Counted] = {}
    latencies: dict[LatencyKey, int] = {}
    for row in rows:
        if row.kind != "tool":
            continue  # a resource read is no tool call: the counts are the tools' (kind)
        day = day_of(row.started_at)
        key = (day, row.tool_name, row.outcome, row.client_name, row.protocol_version)
        counted = days.get(key)
        if counted is None:
            days[key] = Counted(1, row.duration_ms, row.started_at)
        else:
            counted.add(1, row.duration_ms, row.started_at)
        latency = (day, row.tool_name, bucket(row.duration_ms))
        latencies[latency] = latencies.get(latency, 0) + 1
    return days, latencies


def add(rows: list[ToolCall], using: str) -> None:
    """Add ``rows``, just written to the log on database ``using``, to its summary: inside
    the caller's transaction, so that the log and its summary hold the same calls."""
    days, latencies = tally(rows)
    added(days, latencies, using)


def added(days: dict[DayKey, Counted], latencies: dict[LatencyKey, int], using: str) -> None:
    """Add the counts to the summary's rows on ``using``, making the rows not there yet."""
    from ..models import ToolCallDay, ToolCallLatency

    connection = connections[using]
    day_rows = [
        (*key, counted.calls, counted.slowest_ms, counted.last_at)
        for key, counted in sorted(days.items(), key=lambda item: item[0])
    ]
    latency_rows = [(*key, calls) for key, calls in sorted(latencies.items())]
    if connection.vendor in UPSERTING:
        with connection.cursor() as cursor:
            for model, rows in ((ToolCallDay, day_rows), (ToolCallLatency, latency_rows)):
                fields = _fields(model)
                # A statement per table (per chunk of rows): one round trip, where a
                # statement per row took more than the batch's INSERT into the log.
                chunk = max(1, MAX_PARAMETERS // len(fields))
                for start in range(0, len(rows), chunk):
                    part = rows[start : start + chunk]
                    params = [each for row in part for each in _prepared(row, fields, connection)]
                    cursor.execute(_upsert(model, using, len(part)), params)
        return
    for model, rows in ((ToolCallDay, day_rows), (ToolCallLatency, latency_rows)):
        for row in rows:
            _update_or_insert(model, row, using)


#: The databases whose upsert ``_upsert`` writes: ``INSERT … ON CONFLICT … DO UPDATE``.
UPSERTING = {"postgresql": "GREATEST", "sqlite": "MAX"}
#: The columns of each table: the key, then the figures, in the order of ``added``'s rows;
#: each figure with how a new figure combines with the row's.
COLUMNS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "ToolCallDay": (
        ("day", "tool_name", "outcome", "client_name", "protocol_version"),
        (("calls", "sum"), ("slowest_ms", "max"), ("last_at", "max")),
    ),
    "ToolCallLatency": (("day", "tool_name", "bucket"), (("calls", "sum"),)),
}


#: The most parameters of one upsert: under SQLite's oldest limit (999).
MAX_PARAMETERS = 900


def _fields(model: type[ToolCallDay | ToolCallLatency]) -> list[Any]:
    """The fields of ``model`` the summary fills: its key, then its figures."""
    key, figures = COLUMNS[model.__name__]
    return [model._meta.get_field(name) for name in (*key, *(name for name, _ in figures))]


@cache
def _upsert(model: Any, using: str, rows: int) -> str:
    """The upsert of ``rows`` rows of ``model`` on database ``using``: one ``INSERT`` of
    their values that adds each to the row of its key where there is one."""
    key, figures = COLUMNS[model.__name__]
    meta = model._meta
    quote = connections[using].ops.quote_name
    table = quote(meta.db_table)
    greatest = UPSERTING[connections[using].vendor]
    sets = []
    for name, how in figures:
        column = quote(meta.get_field(name).column)
        if how == "sum":
            sets.append(f"{column} = {table}.{column} + EXCLUDED.{column}")
        else:
            sets.append(f"{column} = {greatest}({table}.{column}, EXCLUDED.{column})")
    fields = _fields(model)
    values = "({})".format(", ".join(["%s"] * len(fields)))
    return "INSERT INTO {} ({}) VALUES {} ON CONFLICT ({}) DO UPDATE SET {}".format(
        table,
        ", ".join(quote(field.column) for field in fields),
        ", ".join([values] * rows),
        ", ".join(quote(meta.get_field(name).column) for name in key),
        ", ".join(sets),
    )


def _prepared(
    row: tuple[object, ...], fields: list[Any], connection: BaseDatabaseWrapper
) -> list[Any]:
    return [
        field.get_db_prep_save(value, connection) for field, value in zip(fields, row, strict=True)
    ]


def _update_or_insert(
    model: type[ToolCallDay | ToolCallLatency], row: tuple[Any, ...], using: str
) -> None:
    """Add one row's figures where the database has no upsert this module writes."""
    key, figures = COLUMNS[model.__name__]
    lookup = dict(zip(key, row[: len(key)], strict=True))
    values = dict(zip((name for name, _ in figures), row[len(key) :], strict=True))
    changes = {
        name: F(name) + values[name] if how == "sum" else Greatest(F(name), Value(values[name]))
        for name, how in figures
    }
    rows = model.objects.using(using).filter(**lookup)
    if rows.update(**changes):
        return
    try:
        with transaction.atomic(using=using):
            model.objects.using(using).create(**lookup, **values)
    except IntegrityError:  # another writer made it since the UPDATE: add to theirs
        rows.update(**changes)


# Built from the log ----------------------------------------------------------------------


def bucket_of_duration() -> Case:
    """``bucket(duration_ms)`` as an expression the database computes."""
    # ln, not Django's Log(10, …): PostgreSQL's two-argument log is numeric's, many times
    # slower over a large log than the double's ln.
    offset = Ln(F("duration_ms")) * Value(PER_DECADE / math.log(10)) + Value(
        1 - PER_DECADE * math.log10(FLOOR_MS) + EDGE
    )
    return Case(
        When(duration_ms__lte=FLOOR_MS, then=Value(0)),
        When(duration_ms__gte=CEILING_MS, then=Value(BUCKETS - 1)),
        default=Cast(Floor(offset), IntegerField()),
        output_field=IntegerField(),
    )


def logged_days(using: str) -> tuple[date, date] | None:
    """Return the first and the last day the log holds rows of, or None when it is empty."""
    from ..models import ToolCall

    span = ToolCall.objects.using(using).aggregate(first=Min("started_at"), last=Max("started_at"))
    if span["first"] is None:
        return None
    return day_of(span["first"]), day_of(span["last"])


def rebuild(first: date, last: date, using: str) -> int:
    """Make the summary of each day from ``first`` to ``last`` from the log's rows of that
    day, in place of what it held; return the calls counted.

    Each day in a transaction of its own: the summary's tables locked against writers
    (PostgreSQL; SQLite has one writer at a time), the day's summary rows deleted, the log's
    rows of the day counted by the database, the counts added as the writer adds a batch's.
    A batch the writer writes meanwhile is counted once: one that added to the summary
    before the lock is committed once the lock is taken, and counted from the log; one that
    had not waits for this transaction, and adds to what it made, which could not see its
    rows. The lock (not the rows' own, taken by the deletion in whatever order the table is
    read) keeps a writer that holds some of the day's rows and waits for others from
    deadlocking with the deletion.
    """
    from ..models import ToolCall, ToolCallDay, ToolCallLatency

    counted = 0
    day = first
    while day <= last:
        rows = (
            ToolCall.objects.using(using)
            .filter(
                kind="tool",
                started_at__gte=midnight(day),
                started_at__lt=midnight(day + timedelta(1)),
            )
            .order_by()
        )
        with transaction.atomic(using=using):
            _lock_against_writers(using)
            ToolCallDay.objects.using(using).filter(day=day).delete()
            ToolCallLatency.objects.using(using).filter(day=day).delete()
            days = {
                (
                    day,
                    row["tool_name"],
                    row["outcome"],
                    row["client_name"],
                    row["protocol_version"],
                ): (Counted(row["calls"], row["slowest"], row["last"]))
                for row in rows.values(
                    "tool_name", "outcome", "client_name", "protocol_version"
                ).annotate(calls=Count("pk"), slowest=Max("duration_ms"), last=Max("started_at"))
            }
            latencies = {
                (day, row["tool_name"], row["bucket"]): row["calls"]
                for row in rows.annotate(bucket=bucket_of_duration())
                .values("tool_name", "bucket")
                .annotate(calls=Count("pk"))
            }
            added(days, latencies, using)
        counted += sum(each.calls for each in days.values())
        day += timedelta(1)
    return counted


def _lock_against_writers(using: str) -> None:
    """Make the writers' additions to the summary wait for this transaction (PostgreSQL's
    ``SHARE ROW EXCLUSIVE``: reads go on, ``INSERT`` and ``UPDATE`` wait)."""
    from ..models import ToolCallDay, ToolCallLatency

    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    tables = ", ".join(
        connection.ops.quote_name(model._meta.db_table) for model in (ToolCallDay, ToolCallLatency)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {tables} IN SHARE ROW EXCLUSIVE MODE")
