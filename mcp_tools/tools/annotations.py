"""Tool annotations: the HTTP method's hints, then ``DEFAULT_ANNOTATIONS``, then the decorator."""

from __future__ import annotations

from typing import Any

from ..conf import mcp_settings

# readOnlyHint, destructiveHint, idempotentHint per HTTP method (docs/tools.md).
METHOD_HINTS: dict[str, tuple[bool, bool, bool]] = {
    "GET": (True, False, True),
    "POST": (False, False, False),
    "PUT": (False, True, True),
    "PATCH": (False, True, False),
    "DELETE": (False, True, True),
}


def tool_annotations(method: str, title: str, declared: dict[str, Any] | None) -> dict[str, Any]:
    """Return a tool's annotations: decorator > ``DEFAULT_ANNOTATIONS`` > the HTTP method's."""
    read_only, destructive, idempotent = METHOD_HINTS[method]
    result: dict[str, Any] = {
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }
    result.update(mcp_settings.DEFAULT_ANNOTATIONS or {})
    result.update(declared or {})
    return result
