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
