"""Projection of the internal model (tools, results) onto one protocol version's wire form.

The internal model is the richest form (2025-11-25 fields, 2026-07-28 fields, unwrapped
structured values and output schemas); each older version drops or rewrites what it can't
carry (docs/protocol.md, projection). ``project`` is the one place a result of any method
becomes what the negotiated version carries.
"""

from __future__ import annotations

from typing import Any

from .headers import without_annotations
from .jsonrpc import RawJSON
from .results import InputRequiredResult, ToolResult
from .versions import SERVER_INFO_META_KEY

V2025_03_26 = "2025-03-26"
V2025_06_18 = "2025-06-18"
V2025_11_25 = "2025-11-25"
V2026_07_28 = "2026-07-28"

#: Fields of results that only 2026-07-28 knows.
MODERN_RESULT_FIELDS = ("resultType", "ttlMs", "cacheScope")


def wrap_key(schema: dict[str, Any] | None, value: object = None) -> str | None:
    """Return the key a structured value is wrapped under before 2026-07-28, or None.

    With an output schema, the schema decides, so that the wrapped value and the wrapped
    schema always agree (a nullable object, ``anyOf`` or ``{}`` is wrapped, whatever the
    value); without one, the value's own shape does.
    """
    if schema is not None:
        json_type = schema.get("type")
        if json_type == "object":
            return None
        return "items" if json_type == "array" else "result"
    if is_json_object(value):
        return None
    if isinstance(value, RawJSON):
        return "items" if value.text.lstrip().startswith("[") else "result"
    return "items" if isinstance(value, list | tuple) else "result"


def is_json_object(value: object) -> bool:
    """Return whether a structured value (decoded, or ``RawJSON`` text) is a JSON object."""
    if isinstance(value, RawJSON):
        return value.text.lstrip().startswith("{")
    return isinstance(value, dict)


def wrap_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Wrap a non-object output schema under the key its values are wrapped under."""
    key = wrap_key(schema)
    if key is None:
        return schema
    inner = dict(schema)
    wrapper: dict[str, Any] = {"type": "object", "properties": {key: inner}, "required": [key]}
    if "$defs" in inner:
        # References such as "#/$defs/Node" resolve against the document root.
        wrapper["$defs"] = inner.pop("$defs")
    for keyword in ("$schema", "$id"):
        if keyword in inner:
            wrapper[keyword] = inner.pop(keyword)
    return wrapper


def project_block(block: dict[str, Any], version: str) -> dict[str, Any]:
    """Return one content block as ``version`` can carry it."""
    kind = block.get("type")
    if version < V2025_03_26 and kind == "audio":
        return {
            "type": "text",
            "text": f"Audio content ({block.get('mimeType')}) is not supported by this "
            "protocol version",
        }
    if version >= V2025_06_18:
        return block
    if kind == "resource_link":
        return {"type": "text", "text": f"Resource: {block.get('name')} {block.get('uri')}"}
    block = {key: value for key, value in block.items() if key != "_meta"}
    annotations = block.get("annotations")
    if isinstance(annotations, dict) and "lastModified" in annotations:
        trimmed = {key: value for key, value in annotations.items() if key != "lastModified"}
        if trimmed:
            block["annotations"] = trimmed
        else:
            del block["annotations"]
    resource = block.get("resource")
    if isinstance(resource, dict) and "_meta" in resource:
        block["resource"] = {key: value for key, value in resource.items() if key != "_meta"}
    return block


def project(
    value: ToolResult | InputRequiredResult | dict[str, Any], version: str, server_info: object
) -> dict[str, Any]:
    """Return a method's result as protocol ``version`` carries it.

    2026-07-28 results say their ``resultType`` (``complete`` unless the result names
    another) and carry the server's info in ``_meta``; older versions drop what only
    2026-07-28 knows. An input-required result exists only in 2026-07-28.
    """
    if isinstance(value, InputRequiredResult):
        if version < V2026_07_28:
            raise ValueError(f"protocol version {version} has no input-required results")
        wire = value.wire()
    elif isinstance(value, ToolResult):
        wire = project_result(value, version)
    else:
        wire = value
    if version < V2026_07_28:
        return {key: item for key, item in wire.items() if key not in MODERN_RESULT_FIELDS}
    meta = wire.get("_meta")
    meta = {**(meta if isinstance(meta, dict) else {}), SERVER_INFO_META_KEY: server_info}
    return {"resultType": "complete", **wire, "_meta": meta}


def project_result(result: ToolResult, version: str) -> dict[str, Any]:
    """Return the wire form of a tool ``result`` for protocol ``version``.

    The result's advertised output schema, if any, decides how the structured value is
    wrapped, as ``project_tool`` wraps the schema itself.
    """
    content = result.content
    if version < V2025_06_18:
        content = [project_block(block, version) for block in content]
    wire: dict[str, Any] = {"content": content}
    if result.has_structured and not result.is_error and version >= V2025_06_18:
        value = result.structured
        if version < V2026_07_28 and (key := wrap_key(result.output_schema, value)) is not None:
            value = {key: value}
        wire["structuredContent"] = value
    if result.meta:
        wire["_meta"] = result.meta
    wire["isError"] = result.is_error
    return wire


def project_tool(definition: dict[str, Any], version: str) -> dict[str, Any]:
    """Return the wire form of a tool definition for protocol ``version``."""
    tool = dict(definition)
    if version != V2025_11_25:
        tool.pop("execution", None)
    if version < V2025_11_25:
        tool.pop("icons", None)
    if version < V2025_06_18:
        title = tool.pop("title", None)
        tool.pop("outputSchema", None)
        tool.pop("_meta", None)
        if version == V2025_03_26 and title and isinstance(tool.get("annotations"), dict):
            tool["annotations"] = {"title": title, **tool["annotations"]}
        elif version == V2025_03_26 and title:
            tool["annotations"] = {"title": title}
    if version < V2025_03_26:
        tool.pop("annotations", None)
    if version < V2026_07_28:
        # Argument headers are 2026-07-28's: older clients neither send nor are asked for them.
        if "inputSchema" in tool:
            tool["inputSchema"] = without_annotations(tool["inputSchema"])
        schema = tool.get("outputSchema")
        if isinstance(schema, dict):
            tool["outputSchema"] = wrap_schema(schema)
    return tool


def project_progress(params: dict[str, Any], version: str) -> dict[str, Any]:
    """Return ``notifications/progress`` params as ``version`` can carry them."""
    if version < V2025_03_26:
        return {key: value for key, value in params.items() if key != "message"}
    return params
