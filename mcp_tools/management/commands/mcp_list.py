"""List the project's tools as the registries resolve them, with the admin's switches."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from mcp_tools.catalog.admin_state import Rule, catalog_for
from mcp_tools.endpoint.mounts import served_registries
from mcp_tools.tools.tool import Tool


class Command(BaseCommand):
    help = "List the MCP tools of the project: name, HTTP method and path, enabled, title."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tag", help="Only the tools with this tag.")

    def handle(self, *args: Any, tag: str | None, **options: Any) -> None:
        # Every registry an endpoint serves; a name two registries use, once (the admin's row).
        tools: dict[str, tuple[Tool, Rule]] = {}
        for each in served_registries():
            catalog = catalog_for(each.tools())
            for tool in catalog:
                if tag is None or tag in tool.options.tags:
                    tools.setdefault(tool.name, (tool, catalog.rule(tool.name)))
        if not tools:
            self.stdout.write("No tools.")
            return
        width = max(len(name) for name in tools)
        for tool, rule in tools.values():
            state = "enabled " if rule.enabled else "disabled"
            groups = " (groups)" if rule.group_ids else ""
            route = f"{tool.method} /{tool.route.template}"
            self.stdout.write(f"{tool.name:<{width}}  {state}{groups}  {route}  {tool.title}")
