"""Protocol versions and their negotiation.

Pure protocol logic: nothing here imports Django settings or models.
"""

from __future__ import annotations

from .jsonrpc import INVALID_REQUEST, JSONRPCError

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[-1]
#: The version assumed for a request that names none (the Streamable HTTP rule).
DEFAULT_NEGOTIATED_VERSION = "2025-03-26"

PROTOCOL_VERSION_HEADER = "HTTP_MCP_PROTOCOL_VERSION"


def negotiate(requested: object) -> str:
    """Answer an ``initialize``: the requested handshake version if supported, else the latest."""
    if isinstance(requested, str) and requested in HANDSHAKE_VERSIONS:
        return requested
    return LATEST_HANDSHAKE_VERSION


def version_from_header(header: str | None) -> str:
    """Return the version a non-initialize request uses, from its ``MCP-Protocol-Version``."""
    if header is None:
        return DEFAULT_NEGOTIATED_VERSION
    if header in HANDSHAKE_VERSIONS:
        return header
    raise JSONRPCError(
        INVALID_REQUEST,
        f"Bad Request: unsupported MCP-Protocol-Version {header!r}",
        data={"supported": list(HANDSHAKE_VERSIONS), "requested": header},
        status=400,
    )
