"""Show one tool's definition as a client of one protocol version receives it."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mcp_tools.catalog.admin_state import catalog_for
from mcp_tools.endpoint.mounts import served_registries
from mcp_tools.protocol.projection import project_tool
from mcp_tools.protocol.versions import LATEST_HANDSHAKE_VERSION, SUPPORTED_VERSIONS


class Command(BaseCommand):
    help = "Print a tool's definition (name, description, schemas, annotations) as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="The tool's name (see mcp_list).")
        parser.add_argument(
            "--protocol-version",
            default=LATEST_HANDSHAKE_VERSION,
            choices=SUPPORTED_VERSIONS,
            help="Show the tool as this version's client sees it (default: %(default)s).",
        )

    def handle(self, *args: Any, name: str, protocol_version: str, **options: Any) -> None:
        # The first registry an endpoint serves that has the name, as mcp_list shows it.
        catalogs = (catalog_for(each.tools()) for each in served_registries())
        catalog = next((catalog for catalog in catalogs if name in catalog.tools), None)
        if catalog is None:
            raise CommandError(f"Unknown tool {name!r}: see manage.py mcp_list.")
        tool = catalog.tools[name]
        definition = project_tool(tool.definition(), protocol_version)
        self.stdout.write(json.dumps(definition, indent=2, ensure_ascii=False))
        rule = catalog.rule(name)
        if not rule.enabled:
            self.stderr.write("Note: this tool is disabled in admin; no client sees it.")
        elif rule.group_ids:
            self.stderr.write("Note: only members of its allowed groups see this tool.")
