"""Small helpers shared by the test modules that read /mcp answers themselves."""

from __future__ import annotations

import json
from typing import Any

#: The modern era's one protocol version.
MODERN = "2026-07-28"


def error_of(response: Any) -> dict[str, Any]:
    """Return the error object of a JSON-RPC error answer, checking the envelope has no more."""
    payload = json.loads(response.content)
    assert set(payload) == {"jsonrpc", "id", "error"}
    return payload["error"]


def result_of(response: Any) -> Any:
    """Return the result of a plain JSON answer (never an SSE stream)."""
    return json.loads(response.content)["result"]


def unrolled(schema: Any, defs: dict[str, Any], depth: int = 2) -> Any:
    """Inline ``$ref``s to a fixed depth: hypothesis-jsonschema can't generate recursion."""
    if isinstance(schema, list):
        return [unrolled(item, defs, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        if depth == 0:
            return {"not": {}}  # no deeper: the array of children stays empty
        return unrolled(defs[schema["$ref"].rsplit("/", 1)[1]], defs, depth - 1)
    return {key: unrolled(value, defs, depth) for key, value in schema.items() if key != "$defs"}
