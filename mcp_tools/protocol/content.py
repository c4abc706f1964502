"""Content blocks and their annotations, checked as the protocol defines them.

A view's ``mcp_output`` override is checked here, so a bad block fails in the view with a
clear ``ValueError`` instead of reaching a client as a broken result.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

BLOCK_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource": ("resource",),
    "resource_link": ("uri", "name"),
}
AUDIENCES = frozenset({"user", "assistant"})


def check_block(block: object) -> None:
    """Raise ``ValueError`` unless ``block`` is a well-formed content block."""
    if not isinstance(block, dict):
        raise ValueError(f"mcp_output: a content block must be a dict, not {type(block).__name__}")
    kind = block.get("type")
    if kind not in BLOCK_FIELDS:
        raise ValueError(
            f"mcp_output: unknown content block type {kind!r}; "
            f"expected one of {', '.join(BLOCK_FIELDS)}"
        )
    for name in BLOCK_FIELDS[kind]:
        if name not in block:
            raise ValueError(f"mcp_output: a {kind!r} content block needs {name!r}")
    if kind == "text" and not isinstance(block["text"], str):
        raise ValueError("mcp_output: a 'text' content block's text must be a string")
    if kind in ("image", "audio"):
        _check_base64(block["data"], f"{kind!r} data")
        if not isinstance(block["mimeType"], str) or "/" not in block["mimeType"]:
            raise ValueError(f"mcp_output: {kind!r} mimeType must be a media type string")
    if kind == "resource":
        resource = block["resource"]
        if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
            raise ValueError("mcp_output: a 'resource' block needs a resource dict with a uri")
        if "text" in resource:
            if not isinstance(resource["text"], str):
                raise ValueError("mcp_output: a resource's text must be a string")
        elif "blob" in resource:
            _check_base64(resource["blob"], "a resource's blob")
        else:
            raise ValueError("mcp_output: a 'resource' block needs text or blob")
    if kind == "resource_link" and not all(isinstance(block[k], str) for k in ("uri", "name")):
        raise ValueError("mcp_output: a 'resource_link' block's uri and name must be strings")
    if "annotations" in block:
        check_annotations(block["annotations"])


def _check_base64(data: object, what: str) -> None:
    if not isinstance(data, str) or data.startswith("data:"):
        raise ValueError(f"mcp_output: {what} must be a base64 string, not a data: URL")
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"mcp_output: {what} is not valid base64") from exc


def check_annotations(annotations: object) -> None:
    """Raise ``ValueError`` unless ``annotations`` is a valid content annotations object."""
    if not isinstance(annotations, dict):
        raise ValueError("mcp_output: annotations must be a dict")
    unknown = set(annotations) - {"audience", "priority", "lastModified"}
    if unknown:
        raise ValueError(f"mcp_output: unknown annotation(s) {', '.join(sorted(unknown))}")
    audience = annotations.get("audience")
    if audience is not None and (
        not isinstance(audience, list | tuple) or not set(audience) <= AUDIENCES
    ):
        raise ValueError("mcp_output: audience must be a list of 'user' and 'assistant'")
    priority = annotations.get("priority")
    if priority is not None and (
        isinstance(priority, bool)
        or not isinstance(priority, int | float)
        or not 0 <= priority <= 1
    ):
        raise ValueError(f"mcp_output: priority must be a number from 0 to 1, not {priority!r}")
    last_modified = annotations.get("lastModified")
    if last_modified is not None and not _is_iso_datetime(last_modified):
        raise ValueError(
            f"mcp_output: lastModified must be an ISO 8601 date-time string, not {last_modified!r}"
        )


def _is_iso_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


#: The tool annotations the protocol defines, with the type of each value.
TOOL_ANNOTATION_TYPES: dict[str, type] = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}


def check_tool_annotations(annotations: object) -> None:
    """Raise ``ValueError`` unless ``annotations`` is a valid (partial) ``ToolAnnotations``."""
    if not isinstance(annotations, dict):
        raise ValueError("Annotations must be a JSON object.")
    for key, value in annotations.items():
        if key not in TOOL_ANNOTATION_TYPES:
            known = ", ".join(TOOL_ANNOTATION_TYPES)
            raise ValueError(f"Unknown annotation {key!r}: the protocol defines {known}.")
        expected = TOOL_ANNOTATION_TYPES[key]
        if not isinstance(value, expected):
            kind = "a string" if expected is str else "true or false"
            raise ValueError(f"The annotation {key!r} must be {kind}.")
