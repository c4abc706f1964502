"""Try a remote MCP server from the shell: list its tools, or call one.

Everything the server sends is shown with its control characters escaped: a name, a
description or a result could otherwise retitle the terminal, erase what it shows or
write the clipboard (OSC 52).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from mcp_tools.client import (
    DEFAULT_MAX_RESPONSE_BYTES,
    McpToolError,
    Processor,
    SyncAdaptedTool,
    ToolOutput,
    adapt_tools_sync,
    truncate,
)
from mcp_tools.pipeline import arguments as tool_arguments
from mcp_tools.protocol.jsonrpc import NotStrictJSON


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
            "--max-response-bytes",
            type=int,
            default=DEFAULT_MAX_RESPONSE_BYTES,
            metavar="N",
            help="Refuse a response body (or one event of a stream) past N bytes, reading "
            f"no further (default {DEFAULT_MAX_RESPONSE_BYTES}, 10 MiB).",
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
        max_response_bytes: int = options["max_response_bytes"]
        if max_response_bytes < 1:
            raise CommandError("--max-response-bytes must be a positive number of bytes")
        try:
            with (
                _remote_logging(self.stderr, options["verbosity"]),
                adapt_tools_sync(
                    options["url"],
                    headers,
                    processors=processors,
                    timeout=options["timeout"],
                    max_response_bytes=max_response_bytes,
                ) as tools,
            ):
                if name is None:
                    self._list(tools, options["verbosity"])
                else:
                    self._print(_tool(tools, name).call(arguments))
        except CommandError:
            raise
        except McpToolError as error:
            raise CommandError(printable(error.message)) from error
        except Exception as error:  # The server's or the network's: report it, not a traceback.
            raise CommandError(printable(str(error)) or type(error).__name__) from error

    def _list(self, tools: list[SyncAdaptedTool], verbosity: int) -> None:
        if not tools:
            self.stdout.write("No tools.")
        for tool in tools:
            name = printable(tool.name)
            summary = printable(tool.description or "").strip().splitlines()
            self.stdout.write(f"{name}: {summary[0]}" if summary else name)
            if verbosity > 1:
                if tool.title:
                    self.stdout.write(f"    title: {printable(tool.title)}")
                schema = json.dumps(tool.input_schema, indent=2, ensure_ascii=False)
                self.stdout.write("    input schema: " + printable(schema).replace("\n", "\n    "))

    def _print(self, output: ToolOutput) -> None:
        if isinstance(output, str):
            self.stdout.write(printable(output))
        else:
            self.stdout.write(printable(json.dumps(output, indent=2, ensure_ascii=False)))


#: C0 controls but tab and newline (a carriage return only before a newline), DEL, and C1.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def printable(text: str) -> str:
    """Return the server's ``text`` with its control characters shown as ``\\xNN`` escapes."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match[0]):02x}", text)


class _PrintableLines(logging.Handler):
    """The SDK's log records as one escaped line each: no traceback, no control sequence."""

    def __init__(self, stream: OutputWrapper) -> None:
        super().__init__(logging.WARNING)
        self.stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.stream.write(f"{record.name}: {printable(record.getMessage())}\n")
        except Exception:
            self.handleError(record)


@contextmanager
def _remote_logging(stream: OutputWrapper, verbosity: int) -> Iterator[None]:
    """Show what the SDK and httpx2 log (it quotes the server) escaped, when nothing else does.

    A project's logging configuration keeps them; without one, Python's last-resort handler
    would print the server's text raw, and a traceback for a response refused as too large.
    Shown with ``-v 2``, else dropped: the command reports the failure itself.
    """
    loggers = [logging.getLogger(name) for name in ("mcp", "httpx2")]
    unhandled = [logger for logger in loggers if not logger.hasHandlers()]
    handler = _PrintableLines(stream) if verbosity > 1 else logging.NullHandler()
    for logger in unhandled:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger in unhandled:
            logger.removeHandler(handler)


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
        # As strictly as this project's endpoint reads a request body.
        value = tool_arguments.loads(text)
    except NotStrictJSON as error:
        raise CommandError(f"--arguments is not valid JSON: {error}") from None
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
    available = ", ".join(printable(tool.name) for tool in tools) or "none"
    raise CommandError(f"Unknown tool {name!r}. Tools: {available}")
