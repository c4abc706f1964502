"""Try a remote MCP server from the shell: list its tools, or call one."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mcp_tools.client import (
    McpToolError,
    Processor,
    SyncAdaptedTool,
    ToolOutput,
    adapt_tools_sync,
    truncate,
)


class Command(BaseCommand):
    help = (
        "Connect to a remote MCP server over Streamable HTTP and list its tools, or call one "
        "and print its output as an adapted tool returns it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url", help="The server's MCP endpoint, e.g. https://example.com/mcp.")
        parser.add_argument(
            "--header",
            action="append",
            default=[],
            metavar="'NAME: VALUE'",
            help="An HTTP header sent with every request; repeat for several.",
        )
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--list", action="store_true", help="List the tools (the default).")
        action.add_argument("--call", metavar="NAME", help="Call the tool NAME.")
        parser.add_argument(
            "--arguments", metavar="JSON", help="The tool's arguments, a JSON object (with --call)."
        )
        parser.add_argument(
            "--max-chars",
            type=int,
            metavar="N",
            help="Truncate the output's text to N characters.",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=30.0,
            help="Seconds allowed to connect and to send (default 30).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        headers = _headers(options["header"])
        name: str | None = options["call"]
        if options["arguments"] is not None and name is None:
            raise CommandError("--arguments needs --call NAME")
        # Checked before connecting, so a bad value never reaches the server.
        arguments = _arguments(options["arguments"])
        processors = _processors(options["max_chars"])
        try:
            with adapt_tools_sync(
                options["url"], headers, processors=processors, timeout=options["timeout"]
            ) as tools:
                if name is None:
                    self._list(tools, options["verbosity"])
                else:
                    self._print(_tool(tools, name).call(arguments))
        except CommandError:
            raise
        except McpToolError as error:
            raise CommandError(error.message) from error
        except Exception as error:  # The server's or the network's: report it, not a traceback.
            raise CommandError(str(error) or type(error).__name__) from error

    def _list(self, tools: list[SyncAdaptedTool], verbosity: int) -> None:
        if not tools:
            self.stdout.write("No tools.")
        for tool in tools:
            summary = (tool.description or "").strip().splitlines()
            self.stdout.write(f"{tool.name}: {summary[0]}" if summary else tool.name)
            if verbosity > 1:
                if tool.title:
                    self.stdout.write(f"    title: {tool.title}")
                schema = json.dumps(tool.input_schema, indent=2, ensure_ascii=False)
                self.stdout.write("    input schema: " + schema.replace("\n", "\n    "))

    def _print(self, output: ToolOutput) -> None:
        if isinstance(output, str):
            self.stdout.write(output)
        else:
            self.stdout.write(json.dumps(output, indent=2, ensure_ascii=False))


def _headers(values: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, colon, content = value.partition(":")
        if not colon or not name.strip():
            # The value is not echoed: it is often a credential.
            raise CommandError("--header must look like 'Name: value'")
        headers[name.strip()] = content.strip()
    return headers


def _arguments(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"--arguments is not valid JSON: {error}") from error
    if value is not None and not isinstance(value, dict):
        raise CommandError("--arguments must be a JSON object")
    return value


def _processors(max_chars: int | None) -> list[Processor]:
    if max_chars is None:
        return []
    try:
        return [truncate(max_chars=max_chars)]
    except ValueError as error:
        raise CommandError(f"--max-chars: {error}") from error


def _tool(tools: list[SyncAdaptedTool], name: str) -> SyncAdaptedTool:
    for tool in tools:
        if tool.name == name:
            return tool
    available = ", ".join(tool.name for tool in tools) or "none"
    raise CommandError(f"Unknown tool {name!r}. Tools: {available}")
