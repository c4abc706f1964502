"""The mapping of an MCP tool result to what a plain (non-MCP) tool returns.

Pure protocol logic: it needs neither Django nor the ``mcp`` package at run time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict

from ._errors import TOOL_ERROR_MESSAGE, McpToolError, UnsupportedContentError

if TYPE_CHECKING:
    from mcp_types import CallToolResult


class TextPart(TypedDict):
    """A text part of a list output."""

    type: Literal["text"]
    text: str


class FileData(TypedDict):
    """The inline data of a file part: base64, exactly as the server sent it."""

    type: Literal["data"]
    data: str


class FilePart(TypedDict):
    """A file part of a list output (an image); ``mediaType`` is its MIME type."""

    type: Literal["file"]
    data: FileData
    mediaType: str


Part: TypeAlias = TextPart | FilePart
#: A string, or a list of parts when the result holds an image.
ToolOutput: TypeAlias = str | list[Part]


def to_tool_output(result: CallToolResult | Mapping[str, Any]) -> ToolOutput:
    """Return what a plain tool returns for an MCP tool result.

    ``result`` is the SDK's ``CallToolResult`` or its wire dict (camelCase keys). Raises
    ``McpToolError`` for ``isError: true`` and ``UnsupportedContentError`` for ``audio``,
    ``resource_link`` or an unknown block type.
    """
    wire = _as_wire(result)
    content = wire.get("content")
    if wire.get("isError") is True:
        raise McpToolError(_error_text(content) or TOOL_ERROR_MESSAGE, result=result)
    if content is None and "toolResult" in wire:
        # The 2024-10-07 shape, from before content blocks existed.
        value = wire["toolResult"]
        return value if isinstance(value, str) else json_text(value)
    if content is None:
        content = []
    if not isinstance(content, Sequence) or isinstance(content, str):
        raise ValueError("Malformed MCP tool result: 'content' must be a list")
    if not content and "structuredContent" in wire:
        return json_text(wire["structuredContent"])
    parts = [_part(block, result) for block in content]
    if any(part["type"] == "file" for part in parts):
        return parts
    return "".join(part["text"] for part in parts if part["type"] == "text")


def json_text(value: Any) -> str:
    """Return ``value`` as compact JSON text, or ``str(value)`` when it is not JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return str(value)


def _as_wire(result: object) -> Mapping[str, Any]:
    if isinstance(result, Mapping):
        return result
    model_dump = getattr(result, "model_dump", None)
    if model_dump is None:
        raise TypeError(
            f"to_tool_output() takes a CallToolResult or its wire dict, not {type(result).__name__}"
        )
    wire: dict[str, Any] = model_dump(by_alias=True, mode="json")
    # Pydantic fills a missing structured_content with None; only a value the server sent
    # (JSON null included) is structured content.
    if wire.get("structuredContent") is None and "structured_content" not in getattr(
        result, "model_fields_set", ()
    ):
        wire.pop("structuredContent", None)
    return wire


def _error_text(content: object) -> str:
    if not isinstance(content, Sequence) or isinstance(content, str):
        return ""
    texts = [
        block.get("text")
        for block in content
        if isinstance(block, Mapping) and block.get("type") == "text"
    ]
    return "".join(text for text in texts if isinstance(text, str))


def _part(block: object, result: object) -> Part:
    if not isinstance(block, Mapping):
        raise ValueError("Malformed MCP tool result: a content block must be an object")
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": _string(block, "text")}
    if kind == "image":
        return {
            "type": "file",
            "data": {"type": "data", "data": _string(block, "data")},
            "mediaType": _string(block, "mimeType"),
        }
    if kind == "resource":
        return {"type": "text", "text": _resource_text(block.get("resource"))}
    raise UnsupportedContentError(str(kind), result=result)


def _resource_text(resource: object) -> str:
    if not isinstance(resource, Mapping):
        raise ValueError("Malformed MCP tool result: 'resource' must be an object")
    kept: dict[str, str] = {"uri": _string(resource, "uri")}
    if resource.get("mimeType") is not None:
        kept["mimeType"] = _string(resource, "mimeType")
    if "text" in resource:
        kept["text"] = _string(resource, "text")
    elif "blob" in resource:
        kept["blob"] = _string(resource, "blob")
    else:
        raise ValueError("Malformed MCP tool result: a resource needs 'text' or 'blob'")
    return json_text(kept)


def _string(mapping: Mapping[str, Any], key: str) -> str:
    value = mapping.get(key)
    if not isinstance(value, str):
        raise ValueError(f"Malformed MCP tool result: {key!r} must be a string")
    return value
