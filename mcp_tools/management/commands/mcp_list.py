"""List the project's tools as the registry resolves them, with the admin's switches."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from mcp_tools.catalog import catalog_for
from mcp_tools.registry import registry


class Command(BaseCommand):
    help = "List the MCP tools of the project: name, HTTP method and path, enabled, title."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tag", help="Only the tools with this tag.")

    def handle(self, *args: Any, tag: str | None, **options: Any) -> None:
        catalog = catalog_for(registry.tools())
        tools = [tool for tool in catalog if tag is None or tag in tool.options.tags]
        if not tools:
            self.stdout.write("No tools.")
            return
        width = max(len(tool.name) for tool in tools)
        for tool in tools:
            rule = catalog.rule(tool.name)
            state = "enabled " if rule.enabled else "disabled"
            groups = " (groups)" if rule.group_ids else ""
            route = f"{tool.method} /{tool.route.template}"
            self.stdout.write(f"{tool.name:<{width}}  {state}{groups}  {route}  {tool.title}")
