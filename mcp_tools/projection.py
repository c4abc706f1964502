"""Projection of the internal model (tools, results) onto one protocol version's wire form.

Pure protocol logic: nothing here imports Django settings or models. The internal model
keeps structured values and schemas unwrapped; versions before 2026-07-28 need non-object
values wrapped (DESIGN §4.2, §6.5).
"""

from __future__ import annotations

from typing import Any

from .jsonrpc import RawJSON
from .results import ToolResult


def wrap_structured(value: Any, *, is_object: bool) -> Any:
    """Wrap a non-object structured value as protocol versions before 2026-07-28 need it.

    Arrays become ``{"items": [...]}``, every other non-object value ``{"result": v}``.
    """
    if is_object:
        return value
    if isinstance(value, RawJSON):
        key = "items" if value.text.lstrip().startswith("[") else "result"
    else:
        key = "items" if isinstance(value, list | tuple) else "result"
    return {key: value}


def is_json_object(value: Any) -> bool:
    if isinstance(value, RawJSON):
        return value.text.lstrip().startswith("{")
    return isinstance(value, dict)


def project_result(result: ToolResult, version: str) -> dict[str, Any]:
    """Return the wire form of ``result`` for protocol ``version``."""
    wire: dict[str, Any] = {"content": result.content}
    if result.has_structured and not result.is_error:
        value = result.structured
        wire["structuredContent"] = wrap_structured(value, is_object=is_json_object(value))
    if result.meta:
        wire["_meta"] = result.meta
    wire["isError"] = result.is_error
    return wire


def project_tool(definition: dict[str, Any], version: str) -> dict[str, Any]:
    """Return the wire form of a tool definition for protocol ``version``."""
    return definition
