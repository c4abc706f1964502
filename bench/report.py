"""The harness's figures, and their Markdown tables (ready to paste into docs)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bench.load import Result


@dataclass
class Comparison:
    """Two loads measured in interleaved repetitions: a (direct, or off) and b (MCP, or on)."""

    name: str
    server: str
    connections: int
    a: list[Result] = field(default_factory=list)
    b: list[Result] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        """Return the median of the repetitions' ratios b/a (each measured side by side)."""
        ratios = [b.rps / a.rps for a, b in zip(self.a, self.b, strict=True) if a.rps]
        return statistics.median(ratios) if ratios else float("nan")

    @property
    def cpu_ratio(self) -> float:
        """Return the median of the repetitions' ratios of server CPU per request, a/b.

        Like ``ratio`` (1.0: the same cost), but from the worker's own CPU time, which a busy
        machine disturbs far less than it disturbs req/s.
        """
        ratios = [a.cpu_us / b.cpu_us for a, b in zip(self.a, self.b, strict=True) if b.cpu_us]
        return statistics.median(ratios) if ratios else float("nan")

    @property
    def bad(self) -> list[str]:
        return [r.first_bad or f"{r.bad} bad answers" for r in self.a + self.b if r.bad]


@dataclass
class Listing:
    """tools/list with ``tools`` tools: in-process figures, and HTTP ones when measured."""

    tools: int
    inprocess: dict[str, Any]
    http_page: list[Result] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return int(self.inprocess["pages"])


@dataclass
class Memory:
    """Resident memory of one server's worker (KiB)."""

    server: str
    without_kib: int
    #: After the same calls, made directly.
    without_after_kib: int
    with_kib: int
    after_kib: int
    calls: int
    #: The project without mcp_tools, with jsonschema imported and used, and its cache.
    jsonschema_kib: int = 0


def median(values: Iterable[float]) -> float:
    items = list(values)
    return statistics.median(items) if items else float("nan")


def rps(results: list[Result]) -> str:
    return f"{median(r.rps for r in results):,.0f}"


def latency(results: list[Result]) -> str:
    return f"{median(r.p50_ms for r in results):.2f} / {median(r.p99_ms for r in results):.2f}"


def table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    """Return a Markdown table; ``align`` has one letter per column, l or r (default r)."""
    align = align.ljust(len(header), "r")
    rule = ["---:" if a == "r" else ":---" for a in align]
    lines = [header, rule, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def comparisons(
    items: list[Comparison], a_name: str, b_name: str, first: str = "case", ratio: str = "ratio"
) -> str:
    """Return the table of comparisons: req/s of each side, their ratio, p50/p99 latencies."""
    header = [
        first,
        "server",
        "c",
        f"{a_name} req/s",
        f"{b_name} req/s",
        ratio,
        f"{a_name} p50 / p99 ms",
        f"{b_name} p50 / p99 ms",
        f"CPU us/req {a_name} / {b_name}",
        "CPU ratio",
    ]
    rows = []
    for item in items:
        flag = " ⚠" if item.bad else ""
        rows.append(
            [
                item.name + flag,
                item.server,
                str(item.connections),
                rps(item.a),
                rps(item.b),
                f"{item.ratio:.2f}",
                latency(item.a),
                latency(item.b),
                f"{median(r.cpu_us for r in item.a):.0f} / {median(r.cpu_us for r in item.b):.0f}",
                f"{item.cpu_ratio:.2f}",
            ]
        )
    return table(header, rows, "lll") + footnotes(items)


def footnotes(items: list[Comparison]) -> str:
    notes = [
        f"- ⚠ {item.name} ({item.server}, c={item.connections}): {item.bad[0]}"
        for item in items
        if item.bad
    ]
    return "\n\n" + "\n".join(notes) if notes else ""


def listings(items: list[Listing]) -> str:
    """Return the tools/list table: size, pages, bytes, in-process and HTTP times."""
    header = [
        "tools",
        "pages",
        "bytes (all pages)",
        "declare ms",
        "first listing ms",
        "in-process p50 / p99 ms",
        "HTTP listing ms",
        "HTTP page p50 / p99 ms",
    ]
    rows = []
    for item in items:
        data = item.inprocess
        http = "n/a"
        if item.http_page:
            http = f"{item.pages / median(r.rps for r in item.http_page) * 1000:.2f}"
        rows.append(
            [
                f"{item.tools:,}",
                str(item.pages),
                f"{data['bytes']:,}",
                f"{data['declare_ms']:.0f}",
                f"{data['first_ms']:.0f}",
                f"{data['p50_ms']:.2f} / {data['p99_ms']:.2f}",
                http,
                latency(item.http_page) if item.http_page else "n/a",
            ]
        )
    return table(header, rows)


def cold_listing(data: dict[str, Any]) -> str:
    """Return the cold tools/list table: one row per mode, medians of fresh processes."""
    header = [
        "mode",
        "start-up ms",
        "of which warm_up() ms",
        "URLconf import ms",
        "first page ms",
        "first listing ms",
        "RSS after start-up MiB",
        "RSS after the listing MiB",
    ]
    rows = []
    for mode in ("lazy", "prepared"):
        figures = data[mode]
        rows.append(
            [
                mode,
                f"{figures['start_ms']:.0f}",
                f"{figures['prepare_ms']:.1f}",
                f"{figures['urlconf_ms']:.1f}",
                f"{figures['first_page_ms']:.1f}",
                f"{figures['first_listing_ms']:.1f}",
                f"{figures['start_rss_kib'] / 1024:.1f}",
                f"{figures['listed_rss_kib'] / 1024:.1f}",
            ]
        )
    note = f"\n\nMedians of {data['reps']} fresh processes per mode, interleaved."
    return table(header, rows, "l") + note


def growth(before: int, after: int) -> str:
    return f"{(after - before) / before:+.1%}"


def memories(items: list[Memory]) -> str:
    """Return the resident-memory table (MiB)."""
    header = [
        "server",
        "without mcp_tools MiB",
        "with mcp_tools MiB",
        "difference MiB",
        "calls",
        "growth without",
        "growth with",
        "with, after calls MiB",
        "difference after calls MiB",
        "of which jsonschema and the cache client MiB",
        "beyond them MiB",
    ]
    rows = [
        [
            item.server,
            f"{item.without_kib / 1024:.1f}",
            f"{item.with_kib / 1024:.1f}",
            f"{(item.with_kib - item.without_kib) / 1024:+.1f}",
            f"{item.calls:,}",
            growth(item.without_kib, item.without_after_kib),
            growth(item.with_kib, item.after_kib),
            f"{item.after_kib / 1024:.1f}",
            f"{(item.after_kib - item.without_after_kib) / 1024:+.1f}",
            f"{(item.jsonschema_kib - item.without_kib) / 1024:+.1f}",
            f"{(item.with_kib - item.jsonschema_kib) / 1024:+.1f}",
        ]
        for item in items
    ]
    return table(header, rows, "l")


def inprocess(data: dict[str, Any], top: int = 10) -> str:
    """Return the in-process figures and the top of their attribution."""
    a = data["attribution"]
    figures = table(
        ["direct GET us", "tools/call us", "added us", "throughput ratio"],
        [
            [
                f"{data['direct_us']:.1f}",
                f"{data['tool_us']:.1f}",
                f"{data['added_us']:.1f}",
                f"{data['ratio']:.2f}",
            ]
        ],
    )
    view = (
        f"Traced (bench/calltree.py, the tracer's own cost taken out: good to a few us): the "
        f"/mcp view takes {a['endpoint_us']:.1f} us of a tools/call, of which the tool's view "
        f"and its rendering {a['view_us']:.1f} us (the same in the direct request: "
        f"{a['direct_view_us']:.1f} us) and the endpoint around it "
        f"{a['endpoint_us'] - a['view_us']:.1f} us."
    )
    ours = table(
        ["mcp_tools function", "cumulative us", "own us", "calls"],
        [
            [
                f"`{line['name']}`",
                f"{line['cumulative_us']:.1f}",
                f"{line['own_us']:.1f}",
                f"{line['calls']:.0f}",
            ]
            for line in a["ours"][:top]
        ],
        "l",
    )
    outside = table(
        ["outside code called by mcp_tools", "cumulative us", "calls"],
        [
            [f"`{line['name']}`", f"{line['cumulative_us']:.1f}", f"{line['calls']:.0f}"]
            for line in a["outside"][:top]
        ],
        "l",
    )
    return "\n\n".join([figures, view, ours, outside])


def inprocess_profiles(by_profile: dict[str, dict[str, Any]]) -> str:
    """Return the in-process figures of each profile, one row each."""
    header = ["profile", "direct GET us", "tools/call us", "added us", "throughput ratio"]
    rows = [
        [
            profile,
            f"{data['direct_us']:.1f}",
            f"{data['tool_us']:.1f}",
            f"{data['added_us']:.1f}",
            f"{data['ratio']:.2f}",
        ]
        for profile, data in by_profile.items()
    ]
    return table(header, rows, "l")


def comparison_profiles(by_profile: dict[str, list[Comparison]]) -> str:
    """Return each comparison's ratio and CPU ratio in every profile, side by side."""
    profiles = list(by_profile)
    header = [
        "case",
        "server",
        "c",
        *(f"ratio, {profile}" for profile in profiles),
        *(f"CPU ratio, {profile}" for profile in profiles),
    ]
    found: dict[tuple[str, str, int], dict[str, Comparison]] = {}
    for profile, items in by_profile.items():
        for item in items:
            found.setdefault((item.name, item.server, item.connections), {})[profile] = item
    rows = []
    for (name, server, connections), items in found.items():
        ratios = [items.get(profile) for profile in profiles]
        flag = " ⚠" if any(item is not None and item.bad for item in ratios) else ""
        rows.append(
            [
                name + flag,
                server,
                str(connections),
                *(f"{item.ratio:.2f}" if item else "n/a" for item in ratios),
                *(f"{item.cpu_ratio:.2f}" if item else "n/a" for item in ratios),
            ]
        )
    return table(header, rows, "lll")
