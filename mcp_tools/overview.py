"""The admin's overview of the call log: its figures over a window of days (docs/admin.md).

Four queries, three of them one scan each of the window's rows (``started_at`` from its
first midnight, by the ``started_at`` index or, for most of the table, sequentially): calls
by tool, day and outcome (the chart, the busiest tools); p50 and p95 per tool; clients;
then the latest failures,
ten rows read backwards by the ``is_error, -started_at`` index. Percentiles are
PostgreSQL's ``percentile_cont``; elsewhere the same interpolation, two rows read per tool
and percentile. The chart is SVG drawn here, coloured by the admin's CSS variables (its dark
theme redefines them): no script, no CDN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Aggregate, Count, FloatField, Max, Q
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from .models import ToolCall

#: The windows the page offers, in days; the first figure is the default.
WINDOWS = (14, 1, 7, 30, 90)
DEFAULT_WINDOW = WINDOWS[0]
#: Rows of the busiest and slowest tools, of clients and of the latest errors.
TOP = 10


class Percentile(Aggregate):
    """PostgreSQL's ``percentile_cont(fraction) WITHIN GROUP (ORDER BY expression)``."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: str, fraction: float, **extra: Any) -> None:
        super().__init__(expression, fraction=float(fraction), **extra)


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
    """Return the first midnight of the last ``days`` days, today included (local time)."""
    # USE_TZ = False: the database holds local times, naive; so do these.
    today = timezone.localdate() if settings.USE_TZ else date.today()
    start = datetime.combine(today - timedelta(days=days - 1), time.min)
    return timezone.make_aware(start) if settings.USE_TZ else start


def figures(days_asked: str | None) -> dict[str, Any]:
    """Return what the overview page shows, for the window ``?days=`` asks."""
    days, error = window_days(days_asked)
    since = window_start(days)
    window = ToolCall.objects.filter(started_at__gte=since).order_by()
    counts = counted(window)
    per_day = daily(counts, since, days)
    tools = per_tool(window, counts)
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
            since.date(),
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
    }


def latest_errors(since: datetime) -> list[ToolCall]:
    """Return the latest calls of the window that were not ok, each with its ``badge``."""
    calls = list(
        ToolCall.objects.filter(is_error=True, started_at__gte=since)
        .order_by("-started_at")
        .only("pk", "tool_name", "started_at", "outcome", "refusal", "error_message")[:TOP]
    )
    for call in calls:
        call.badge = outcome_badge(call)  # type: ignore[attr-defined]
    return calls


def counted(window: Any) -> list[dict[str, Any]]:
    """Return the window's calls counted by tool, day and outcome, with the slowest of each:
    one scan (in parallel where PostgreSQL can), and a few hundred rows."""
    return list(
        window.annotate(day=TruncDate("started_at"))
        .values("tool_name", "day", "outcome")
        .annotate(calls=Count("pk"), slowest=Max("duration_ms"))
    )


def daily(counts: list[dict[str, Any]], since: datetime, days: int) -> list[Day]:
    """Return the calls of each day of the window by outcome, days without calls included."""
    first = since.date()
    per_day = [Day(first + timedelta(days=offset)) for offset in range(days)]
    by_day = {day.day: day for day in per_day}
    for row in counts:
        day = by_day.get(row["day"])
        if day is not None and row["outcome"] in LABELS:
            setattr(day, row["outcome"], getattr(day, row["outcome"]) + row["calls"])
    return per_day


def per_tool(window: Any, counts: list[dict[str, Any]]) -> list[ToolFigures]:
    """Return each tool's calls, failures, p50, p95 and slowest duration in the window."""
    tools: dict[str, ToolFigures] = {}
    for row in counts:
        tool = tools.setdefault(
            row["tool_name"], ToolFigures(row["tool_name"], 0, 0, None, None, None)
        )
        tool.calls += row["calls"]
        if row["outcome"] != ToolCall.OK:
            tool.failures += row["calls"]
        tool.slowest = max(tool.slowest or row["slowest"], row["slowest"])
    if connection.vendor == "postgresql":
        percentiles = window.values("tool_name").annotate(
            p50=Percentile("duration_ms", 0.5), p95=Percentile("duration_ms", 0.95)
        )
        for row in percentiles:
            if row["tool_name"] in tools:
                tools[row["tool_name"]].p50 = row["p50"]
                tools[row["tool_name"]].p95 = row["p95"]
    else:
        for tool in tools.values():
            of_tool = window.filter(tool_name=tool.name)
            tool.p50 = interpolated(of_tool, tool.calls, 0.5)
            tool.p95 = interpolated(of_tool, tool.calls, 0.95)
    return list(tools.values())


def interpolated(rows: Any, count: int, fraction: float) -> float | None:
    """Return ``percentile_cont(fraction)`` of the rows' durations, as PostgreSQL would:
    linear between the two nearest ranks, two rows read."""
    if count == 0:
        return None
    position = fraction * (count - 1)
    low = math.floor(position)
    pair = list(rows.order_by("duration_ms").values_list("duration_ms", flat=True)[low : low + 2])
    if len(pair) == 1:
        return pair[0]
    return pair[0] + (pair[1] - pair[0]) * (position - low)


def clients(window: Any) -> list[dict[str, Any]]:
    """Return the busiest clients of the window, by name and protocol version."""
    return list(
        window.values("client_name", "protocol_version")
        .annotate(calls=Count("pk"), failures=Count("pk", filter=Q(is_error=True)))
        .annotate(last=Max("started_at"))
        .order_by("-calls", "client_name", "protocol_version")[:TOP]
    )


#: How each outcome looks: words on a background of the admin's own message colours, which
#: its dark theme redefines (readable in both).
OUTCOME_BACKGROUNDS = {
    ToolCall.OK: "var(--message-success-bg)",
    ToolCall.ERROR: "var(--message-error-bg)",
    ToolCall.REFUSED: "var(--message-warning-bg)",
}


def outcome_badge(call: ToolCall) -> str:
    """Return the outcome of ``call`` as words on its colour: "refused: throttled"."""
    words: Any = call.get_outcome_display()
    if call.refusal:
        words = _("%(outcome)s: %(why)s") % {"outcome": words, "why": call.get_refusal_display()}
    return format_html(
        '<span class="mcp-outcome mcp-outcome-{}" style="background: {}; color: var(--body-fg);'
        ' padding: 1px 6px; border-radius: 4px; display: inline-block; max-width: 9em">{}</span>',
        call.outcome,
        OUTCOME_BACKGROUNDS.get(call.outcome, "var(--darkened-bg)"),
        words,
    )


# The pictures --------------------------------------------------------------------------------

CHART_WIDTH = 720
CHART_HEIGHT = 220
MARGIN_LEFT = 48
MARGIN_BOTTOM = 28
MARGIN_TOP = 12
#: The fill of each outcome: the page's stylesheet defines these from the admin's variables.
FILLS = (("ok", "var(--mcp-ok)"), ("error", "var(--mcp-error)"), ("refused", "var(--mcp-refused)"))
LABELS: dict[str, Any] = dict(ToolCall.OUTCOMES)


def nice_ceiling(value: int) -> int:
    """Return the smallest of 1, 2 or 5 times a power of ten that is ``value`` or more."""
    if value <= 1:
        return 1
    power = 10 ** math.floor(math.log10(value))
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


def bars(tools: list[ToolFigures], measure: Any, shown: str) -> list[dict[str, Any]]:
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
