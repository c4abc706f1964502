"""Write the site's ``server.json``, its listing in the official MCP registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mcp_tools.conf import mcp_settings
from mcp_tools.endpoint import local
from mcp_tools.endpoint.server_json import listing, problems


class Command(BaseCommand):
    help = (
        "Write server.json for the official MCP registry: the site's name, description, "
        "version, endpoint URL and icons, from MCP_TOOLS or the options (docs/registry.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", help="Reverse-DNS name, e.g. com.example/todos.")
        parser.add_argument("--description", help="One line, at most 100 characters.")
        parser.add_argument("--server-version", help="Default: MCP_TOOLS['SERVER_VERSION'].")
        parser.add_argument("--url", help="The public URL of the MCP endpoint.")
        parser.add_argument(
            "--endpoint",
            metavar="URL_NAME",
            help="The URL name of the endpoint listed (default: mcp_tools:endpoint).",
        )
        parser.add_argument(
            "--output", "-o", default="-", help="Where to write it (default: standard output)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"] or mcp_settings.REGISTRY_NAME
        description = options["description"] or mcp_settings.REGISTRY_DESCRIPTION
        url = options["url"] or mcp_settings.PUBLIC_URL
        missing = [
            label
            for label, value in (
                ("--name (or MCP_TOOLS['REGISTRY_NAME'])", name),
                ("--description (or MCP_TOOLS['REGISTRY_DESCRIPTION'])", description),
                ("--url (or MCP_TOOLS['PUBLIC_URL'])", url),
            )
            if not value
        ]
        if missing:
            raise CommandError(f"server.json needs {', '.join(missing)}.")
        document = listing(
            name=name,
            description=description,
            version=options["server_version"] or str(mcp_settings.SERVER_VERSION),
            url=url,
            title=str(mcp_settings.SERVER_TITLE) if mcp_settings.SERVER_TITLE else None,
            website_url=mcp_settings.WEBSITE_URL,
            icons=list(mcp_settings.SERVER_ICONS),
            authorization=self.authorization(options["endpoint"]),
        )
        wrong = problems(document)
        if wrong:
            raise CommandError("The registry would refuse this server.json:\n" + "\n".join(wrong))
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        if options["output"] == "-":
            self.stdout.write(text, ending="")
        else:
            Path(options["output"]).write_text(text, encoding="utf-8")
            self.stderr.write(f"Wrote {options['output']}.")

    def authorization(self, url_name: str | None) -> str | None:
        """Describe the Authorization header the endpoint's first authentication class reads."""
        try:
            _, endpoint = local.mounted_endpoint(url_name)
        except local.NoEndpoint as exc:
            raise CommandError(str(exc)) from None
        authenticators = endpoint.get_authenticators()
        if not authenticators:
            return None
        header = authenticators[0].authenticate_header(None)  # type: ignore[arg-type]
        scheme = (header or "").split(" ", 1)[0]
        if not scheme:
            return None
        return f"{scheme} <your token>: the credentials this site's API takes."
