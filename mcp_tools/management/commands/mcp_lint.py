"""Score every tool's definition on six components and name its smells, for a project's CI."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser

from mcp_tools.discovery.tools import discovery_definitions, mode_of
from mcp_tools.endpoint.mounts import mounted_endpoints, served_registries
from mcp_tools.protocol.projection import project_tool
from mcp_tools.protocol.versions import LATEST_HANDSHAKE_VERSION
from mcp_tools.tools.lint import COMPONENTS, LEVELS, Report, at_or_above, lint_tool


def discovery_can_turn_on() -> bool:
    """Return whether some mounted endpoint may list its tools through search."""
    return any(mode_of(endpoint) != "never" for _, endpoint in mounted_endpoints())


class Command(BaseCommand):
    help = (
        "Score each MCP tool's definition (purpose, usage, limitations, parameters, length, "
        "examples) and name its smells, each with a hint."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--level",
            choices=LEVELS,
            default="warning",
            help="Show the smells at this level or above (default: %(default)s).",
        )
        parser.add_argument(
            "--fail-level",
            choices=LEVELS,
            help="Exit with status 1 when a smell is at this level or above (for CI).",
        )
        parser.add_argument("--tag", help="Only the tools with this tag.")

    def handle(
        self, *args: Any, level: str, fail_level: str | None, tag: str | None, **options: Any
    ) -> None:
        reports: dict[str, Report] = {}
        for each in served_registries():
            try:
                tools = each.tools()
            except ImproperlyConfigured as exc:  # a tool that can't be built: check says why
                raise CommandError(f"{exc} (see manage.py check --tag mcp_tools)") from exc
            for tool in tools:
                if tool.name in reports or (tag is not None and tag not in tool.options.tags):
                    continue
                definition = project_tool(tool.definition(), LATEST_HANDSHAKE_VERSION)
                reports[tool.name] = lint_tool(tool, definition)
        if tag is None and discovery_can_turn_on():
            # Discovery mode's own tools, as a model reads them (docs/tools.md#large-apis).
            for definition in discovery_definitions(LATEST_HANDSHAKE_VERSION, tasks=True):
                reports.setdefault(definition["name"], lint_tool(None, definition))
        if not reports:
            self.stdout.write("No tools.")
            return
        shown = 0
        for report in reports.values():
            scores = " ".join(f"{part} {report.scores[part]}" for part in COMPONENTS)
            total = 2 * len(COMPONENTS)
            self.stdout.write(f"{report.name}: {report.score}/{total} ({scores})")
            for smell in report.smells:
                if at_or_above(smell, level):
                    shown += 1
                    self.stdout.write(f"  {smell.level} {smell.code}: {smell.message}")
                    self.stdout.write(f"    Hint: {smell.hint}")
        sizes = [report.tokens for report in reports.values()]
        largest = max(reports.values(), key=lambda report: report.tokens)
        self.stdout.write(
            f"{len(reports)} tools, {shown} smells at {level} or above; definitions average "
            f"{round(sum(sizes) / len(sizes))} tokens, largest {largest.tokens} "
            f"({largest.name}), counted as characters / 4."
        )
        if fail_level is not None:
            failing = [
                smell
                for report in reports.values()
                for smell in report.smells
                if at_or_above(smell, fail_level)
            ]
            if failing:
                raise CommandError(f"{len(failing)} smells at {fail_level} or above.")
