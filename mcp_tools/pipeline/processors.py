"""Result processors: callables named in ``MCP_TOOLS["RESULT_PROCESSORS"]``, run in order on
every tool result before output-schema enforcement and projection.

A processor takes ``(result, tool, request)`` and returns a ``ToolResult`` (the same one,
changed, or a new one). Two are built in: ``truncate_text`` and ``redact``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from django.http import HttpRequest

from ..conf import mcp_settings
from ..core import errors
from ..core.encoding import encode_value
from ..protocol.results import ToolResult
from ..tools.tool import Tool

__all__ = ["redact", "run_processors", "truncate_text"]

Processor = Callable[[ToolResult, Tool, HttpRequest | None], ToolResult]

TRUNCATION_MARKER = "\n[truncated: {cut} more characters]"


def run_processors(result: ToolResult, tool: Tool, request: HttpRequest | None) -> ToolResult:
    """Run every configured processor on ``result``, in the order the setting lists them."""
    for processor in mcp_settings.RESULT_PROCESSORS:
        try:
            result = processor(result, tool, request)
        except Exception as exc:
            # Masked whatever MASK_ERRORS says: the unprocessed result may hold exactly what
            # a redacting processor was there to remove.
            reference = errors.report(
                "Result processor %r failed", processor, exc=exc, request=request
            )
            return ToolResult.masked(reference)
    return result


def truncate_text(result: ToolResult, tool: Tool, request: HttpRequest | None) -> ToolResult:
    """Cut each text block past ``TRUNCATE_TEXT_LENGTH`` characters and say how much was cut.

    structuredContent is left whole: clients that read it are programs, and the output
    schema is checked against it.
    """
    limit = int(mcp_settings.TRUNCATE_TEXT_LENGTH)
    for block in result.content:
        text = block.get("text") if block.get("type") == "text" else None
        if isinstance(text, str) and len(text) > limit:
            block["text"] = text[:limit] + TRUNCATION_MARKER.format(cut=len(text) - limit)
    return result


@cache
def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def redact(result: ToolResult, tool: Tool, request: HttpRequest | None) -> ToolResult:
    """Replace every match of ``REDACT_PATTERNS`` in text, resources and structured strings."""
    pattern = _compiled(tuple(mcp_settings.REDACT_PATTERNS))
    if pattern is None:
        return result
    replacement = str(mcp_settings.REDACT_REPLACEMENT)

    def scrub(text: str) -> str:
        return pattern.sub(lambda match: replacement, text)

    for block in result.content:
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            block["text"] = scrub(block["text"])
        resource = block.get("resource") if block.get("type") == "resource" else None
        if isinstance(resource, dict) and isinstance(resource.get("text"), str):
            block["resource"] = {**resource, "text": scrub(resource["text"])}
    if result.has_structured:
        value = result.structured_value()
        scrubbed = _scrub_strings(value, scrub)
        if scrubbed != value:
            # The value came from JSON, so it encodes again.
            result.structured = scrubbed if isinstance(scrubbed, str) else encode_value(scrubbed)
    return result


def _scrub_strings(value: object, scrub: Callable[[str], str]) -> object:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: _scrub_strings(item, scrub) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub_strings(item, scrub) for item in value]
    return value
