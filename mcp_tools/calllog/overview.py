"""The admin's overview of the call log: its figures over a window of days (docs/admin.md).

The figures are read from the log's daily summary (``summary``: a few rows per tool and
day, kept by the log's writer), not from the log's rows: calls by tool, day and outcome
(the chart, the busiest tools); the latency histograms, from which p50 and p95 per tool are
interpolated; the clients. So the page's time grows with the tools and days of the window,
not with its calls. The latest failures are the log's own, ten rows read backwards by the
``is_error, -started_at`` index; the searches that found nothing, at most ``SEARCHES_READ``
rows of the logged searches' partial index; one more row of the log, by ``started_at``,
says whether the summary lacks days the log holds (a site that has not run
``mcp_summarize``). The chart is SVG drawn here, coloured by the admin's CSS variables (its
dark theme redefines them): no script, no CDN.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, TypedDict

from django.db.models import Max, Min, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from ..models import ToolCall, ToolCallDay, ToolCallLatency
from . import summary

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

#: The windows the page offers, in days; the first figure is the default.
WINDOWS = (14, 1, 7, 30, 90)
DEFAULT_WINDOW = WINDOWS[0]
#: Rows of the busiest and slowest tools, of clients and of the latest errors.
TOP = 10
#: The latest searches of the window read for the queries that found nothing: a bound on the
#: page's time however much the models search.
SEARCHES_READ = 2000


@dataclass
class Day:
    day: date
    ok: int = 0
    error: int = 0
    refused: int = 0

    @property
    def calls(self) -> int:
        return self.ok + self.error + self.refused


@dataclass
class ToolFigures:
    name: str
    calls: int
    failures: int
    p50: float | None
    p95: float | None
    slowest: float | None


class Counts(TypedDict):
    """A tool's calls of one day with one outcome, added up from the summary (``counted``)."""

    tool_name: str
    day: date
    outcome: str
    calls: int
    slowest: float


class ClientFigures(TypedDict):
    """A client's calls in the window (``clients``)."""

    client_name: str
    protocol_version: str
    failures: int
    calls: int
    last: datetime


def window_days(value: str | None) -> tuple[int, str | None]:
    """Return the window asked for (``?days=``) and the error of a value it can't be."""
    if value in (None, ""):
        return DEFAULT_WINDOW, None
    try:
        days = int(value)
    except ValueError:
        days = -1
    if days not in WINDOWS:
        choices = ", ".join(str(each) for each in sorted(WINDOWS))
        error = _("The window must be one of %(choices)s days: showing %(days)d.") % {
            "choices": choices,
            "days": DEFAULT_WINDOW,
        }
        return DEFAULT_WINDOW, error
    return days, None


def window_start(days: int) -> datetime:
    """Return the first midnight of the last ``days`` days, today included, in
    ``TIME_ZONE``: the days of the summary."""
    return summary.midnight(summary.today() - timedelta(days=days - 1))


def figures(days_asked: str | None) -> dict[str, object]:
    """Return what the overview page shows, for the window ``?days=`` asks."""
    days, error = window_days(days_asked)
    since = window_start(days)
    first = since.date()
    window = ToolCallDay.objects.filter(day__gte=first).order_by()
    counts = counted(window)
    per_day = daily(counts, first, days)
    tools = per_tool(counts, ToolCallLatency.objects.filter(day__gte=first).order_by())
    busiest = sorted(tools, key=lambda tool: (-tool.calls, tool.name))[:TOP]
    timed = [tool for tool in tools if tool.p95 is not None]
    slowest = sorted(timed, key=lambda tool: (-(tool.p95 or 0.0), tool.name))[:TOP]
    return {
        "days": days,
        "windows": sorted(WINDOWS),
        "window_error": error,
        "since": since,
        "per_day": per_day,
        "totals": Day(
            first,
            sum(d.ok for d in per_day),
            sum(d.error for d in per_day),
            sum(d.refused for d in per_day),
        ),
        "chart": day_chart(per_day),
        "legend": legend(),
        "tools": sorted(tools, key=lambda tool: tool.name),
        "busiest": bars(busiest, lambda tool: tool.calls, "{:,}"),
        "slowest": bars(slowest, lambda tool: tool.p95 or 0.0, "{:,.1f} ms"),
        "clients": clients(window),
        "latest_errors": latest_errors(since),
        "unsummarized": unsummarized(since, window),
    }


def latest_errors(since: datetime) -> list[ToolCall]:
    """Return the latest calls of the window that were not ok."""
    return list(
        ToolCall.objects.filter(kind="tool", is_error=True, started_at__gte=since)
        .order_by("-started_at")
        .only("pk", "tool_name", "started_at", "outcome", "refusal", "error_message")[:TOP]
    )


@dataclass
class Unfound:
    """A query that found no tool, as often as it was searched in the window."""

    query: str
    searches: int
    last: datetime
    pk: int  # the last search's row


def unfound_queries(since: datetime, search_tool: str) -> list[Unfound]:
    """Return the queries of the window's latest ``SEARCHES_READ`` calls of ``search_tool``
    that found no tool, most searched first: what a model looked for and this API did not
    describe. Only searches logged with their arguments and results count
    (``CALL_LOG_ARGUMENTS``); queries are told apart by their words, whatever their case
    and spacing."""
    searches = (
        ToolCall.objects.filter(tool_name=search_tool, started_at__gte=since, found__isnull=False)
        .order_by("-started_at")
        .values_list("pk", "started_at", "arguments", "found")[:SEARCHES_READ]
    )
    unfound: dict[str, Unfound] = {}
    for pk, started_at, arguments, found in searches:
        query = arguments.get("query") if isinstance(arguments, dict) else None
        if found or not isinstance(query, str):
            continue
        key = " ".join(query.lower().split())
        seen = unfound.get(key)
        if seen is None:
            unfound[key] = Unfound(" ".join(query.split()), 1, started_at, pk)
        else:
            seen.searches += 1
    return sorted(unfound.values(), key=lambda each: -each.searches)[:TOP]


def unsummarized(since: datetime, window: QuerySet[ToolCallDay]) -> date | None:
    """Return the first day of the window the log holds calls of and the summary does not
    begin by (a log older than the summary: ``mcp_summarize`` not run), or None: one row of
    the log read by its ``started_at`` index, one of the summary by its key."""
    oldest = (
        ToolCall.objects.filter(kind="tool", started_at__gte=since)
        .order_by("started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    if oldest is None:
        return None
    day = summary.day_of(oldest)
    summarized = window.aggregate(first=Min("day"))["first"]
    return day if summarized is None or day < summarized else None


def counted(window: QuerySet[ToolCallDay]) -> list[Counts]:
    """Return the window's calls counted by tool, day and outcome, with the slowest of each:
    the summary's rows of the window, a few per tool and day, added up."""
    return list(
        window.values("tool_name", "day", "outcome").annotate(
            calls=Sum("calls"), slowest=Max("slowest_ms")
        )
    )


def daily(counts: list[Counts], first: date, days: int) -> list[Day]:
    """Return the calls of each day of the window by outcome, days without calls included."""
    per_day = [Day(first + timedelta(days=offset)) for offset in range(days)]
    by_day = {day.day: day for day in per_day}
    for row in counts:
        day = by_day.get(row["day"])
        if day is not None and row["outcome"] in LABELS:
            setattr(day, row["outcome"], getattr(day, row["outcome"]) + row["calls"])
    return per_day


def per_tool(counts: list[Counts], latencies: QuerySet[ToolCallLatency]) -> list[ToolFigures]:
    """Return each tool's calls, failures, p50, p95 and slowest duration in the window: the
    percentiles interpolated from the tool's histogram over the window (``summary``)."""
    tools: dict[str, ToolFigures] = {}
    for row in counts:
        tool = tools.setdefault(
            row["tool_name"], ToolFigures(row["tool_name"], 0, 0, None, None, None)
        )
        tool.calls += row["calls"]
        if row["outcome"] != ToolCall.OK:
            tool.failures += row["calls"]
        tool.slowest = max(tool.slowest or row["slowest"], row["slowest"])
    histograms: dict[str, dict[int, int]] = {}
    for each in latencies.values("tool_name", "bucket").annotate(calls=Sum("calls")):
        histograms.setdefault(each["tool_name"], {})[each["bucket"]] = each["calls"]
    for name, histogram in histograms.items():
        if name in tools:
            timed = tools[name]
            timed.p50 = summary.percentile(histogram, 0.5, timed.slowest)
            timed.p95 = summary.percentile(histogram, 0.95, timed.slowest)
    return list(tools.values())


def clients(window: QuerySet[ToolCallDay]) -> list[ClientFigures]:
    """Return the busiest clients of the window, by name and protocol version."""
    return list(
        window.values("client_name", "protocol_version")
        .annotate(
            # Before ``calls`` is the sum's name: this one adds up the column.
            failures=Coalesce(Sum("calls", filter=~Q(outcome=ToolCall.OK)), 0),
            calls=Sum("calls"),
            last=Max("last_at"),
        )
        .order_by("-calls", "client_name", "protocol_version")[:TOP]
    )


# The pictures --------------------------------------------------------------------------------

CHART_WIDTH = 720
CHART_HEIGHT = 220
MARGIN_LEFT = 48
MARGIN_BOTTOM = 28
MARGIN_TOP = 12
#: The fill of each outcome: the page's stylesheet defines these from the admin's variables.
FILLS = (("ok", "var(--mcp-ok)"), ("error", "var(--mcp-error)"), ("refused", "var(--mcp-refused)"))
LABELS: dict[str, StrPromise] = dict(ToolCall.OUTCOMES)


def nice_ceiling(value: int) -> int:
    """Return the smallest of 1, 2 or 5 times a power of ten that is ``value`` or more."""
    if value <= 1:
        return 1
    power: int = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power  # pragma: no cover - the loop always returns


def day_chart(per_day: list[Day]) -> SafeString:
    """Return the calls per day as an SVG bar chart, each bar stacked by outcome."""
    top = nice_ceiling(max((day.calls for day in per_day), default=0))
    plot_width = CHART_WIDTH - MARGIN_LEFT - 8
    plot_height = CHART_HEIGHT - MARGIN_BOTTOM - MARGIN_TOP
    slot = plot_width / max(len(per_day), 1)
    bar = max(slot * 0.7, 1.0)
    base = MARGIN_TOP + plot_height
    parts: list[str] = []
    for fraction in (0, 0.5, 1):  # grid lines and their labels
        y = base - plot_height * fraction
        parts.append(
            format_html(
                '<line x1="{}" x2="{}" y1="{}" y2="{}" class="mcp-grid"/>'
                '<text x="{}" y="{}" class="mcp-axis" text-anchor="end">{}</text>',
                MARGIN_LEFT,
                CHART_WIDTH - 8,
                f"{y:.1f}",
                f"{y:.1f}",
                MARGIN_LEFT - 6,
                f"{y + 4:.1f}",
                f"{round(top * fraction):,}",
            )
        )
    label_every = max(1, math.ceil(len(per_day) / 10))
    for index, day in enumerate(per_day):
        x = MARGIN_LEFT + slot * index + (slot - bar) / 2
        y = base
        for field, fill in FILLS:
            count = getattr(day, field)
            if not count:
                continue
            height = plot_height * count / top
            y -= height
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" style="fill: {}">'
                    "<title>{}: {} {}</title></rect>",
                    f"{x:.1f}",
                    f"{y:.1f}",
                    f"{bar:.1f}",
                    f"{max(height, 0.5):.1f}",
                    fill,
                    day.day.isoformat(),
                    f"{count:,}",
                    LABELS[field],
                )
            )
        if index % label_every == 0:
            parts.append(
                format_html(
                    '<text x="{}" y="{}" class="mcp-axis" text-anchor="middle">{}</text>',
                    f"{x + bar / 2:.1f}",
                    CHART_HEIGHT - 8,
                    day.day.strftime("%m-%d"),
                )
            )
    total = sum(day.calls for day in per_day)
    failed = sum(day.error + day.refused for day in per_day)
    label = _("Calls per day: %(total)s calls, %(failed)s not ok, over %(days)d days.") % {
        "total": f"{total:,}",
        "failed": f"{failed:,}",
        "days": len(per_day),
    }
    return format_html(
        '<svg class="mcp-chart" viewBox="0 0 {} {}" role="img" aria-label="{}">'
        "<title>{}</title>{}</svg>",
        CHART_WIDTH,
        CHART_HEIGHT,
        label,
        label,
        mark_safe("".join(parts)),  # noqa: S308 - each part was built by format_html
    )


def bars(
    tools: list[ToolFigures], measure: Callable[[ToolFigures], float], shown: str
) -> list[dict[str, object]]:
    """Return the rows of a horizontal bar list: each tool, its figure, and its bar."""
    top = max((measure(tool) for tool in tools), default=0) or 1
    return [
        {
            "tool": tool,
            "value": shown.format(measure(tool)),
            "bar": format_html(
                '<svg class="mcp-bar" viewBox="0 0 100 10" preserveAspectRatio="none"'
                ' aria-hidden="true"><rect width="{}" height="10"/></svg>',
                f"{max(100 * measure(tool) / top, 0.5):.1f}",
            ),
        }
        for tool in tools
    ]


def legend() -> SafeString:
    """Return the chart's legend: a swatch and a word per outcome."""
    return format_html_join(
        " ",
        '<span class="mcp-legend"><svg width="12" height="12" aria-hidden="true">'
        '<rect width="12" height="12" style="fill: {}"/></svg> {}</span>',
        ((fill, LABELS[field]) for field, fill in FILLS),
    )
