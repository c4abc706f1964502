"""Protocol versions, eras and the rules that tell which one a request speaks.

The rules are in docs/protocol.md (eras and version detection).

Pure protocol logic: nothing here imports Django settings or models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .headers import decode_value, field, mismatch
from .jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    UNSUPPORTED_PROTOCOL_VERSION,
    JSONRPCError,
    Message,
)

__all__ = ["Era", "detect"]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
SUPPORTED_VERSIONS = HANDSHAKE_VERSIONS + MODERN_VERSIONS
LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[-1]
#: The version assumed for a request that names none (the Streamable HTTP rule).
DEFAULT_NEGOTIATED_VERSION = "2025-03-26"
#: The only version whose requests may come in JSON-RPC batches.
BATCH_VERSION = "2025-03-26"

# WSGI META keys of the transport headers.
PROTOCOL_VERSION_HEADER = "HTTP_MCP_PROTOCOL_VERSION"
METHOD_HEADER = "HTTP_MCP_METHOD"
NAME_HEADER = "HTTP_MCP_NAME"

# Reserved ``_meta`` keys of the 2026-07-28 per-request envelope.
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"

#: Request params naming what the call is about, mirrored in the ``Mcp-Name`` header.
NAME_BEARING_METHODS = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    # The tasks extension's methods name their task (its id) in Mcp-Name too.
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


@dataclass(frozen=True, slots=True)
class Era:
    """The protocol version a request speaks, and whether it is the modern (stateless) era."""

    version: str
    modern: bool = False
    #: The lowest level of ``notifications/message`` the client wants; None sends none.
    log_level: str | None = None


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
        f"Bad Request: unsupported MCP-Protocol-Version {header[:64]!r}",
        data={"supported": list(HANDSHAKE_VERSIONS), "requested": header[:64]},
        status=400,
    )


def is_modern(message: Message) -> bool:
    """Return whether ``message`` belongs to the modern era (2026-07-28)."""
    return message.method == "server/discover" or PROTOCOL_VERSION_META_KEY in message.meta


def detect(message: Message, headers: Mapping[str, Any]) -> Era:
    """Return the era of one request, raising the JSON-RPC error docs/protocol.md names.

    ``headers`` are WSGI ``META`` keys. An ``initialize`` that carries the modern envelope
    is a modern request (it is then an unknown method), never a way to negotiate 2026-07-28.
    """
    if is_modern(message):
        return modern_era(message, headers)
    if message.method == "initialize":
        return Era(negotiate(message.params.get("protocolVersion")), log_level=_level(message))
    version = version_from_header(headers.get(PROTOCOL_VERSION_HEADER))
    return Era(version, log_level=_level(message) or LOG_LEVELS[0])


def modern_era(message: Message, headers: Mapping[str, Any]) -> Era:
    """Check the per-request envelope and headers of a modern request, in the SDK's order.

    Missing envelope keys (-32602) come first, as nothing can be compared without them;
    then the headers against the body (-32020); then the version itself (-32022).
    """
    meta = message.params.get("_meta")
    if not isinstance(meta, dict):
        raise JSONRPCError(
            INVALID_PARAMS,
            f"Invalid params: _meta must be an object carrying {PROTOCOL_VERSION_META_KEY!r} "
            f"and {CLIENT_CAPABILITIES_META_KEY!r}",
            status=400,
        )
    missing = [
        key for key in (PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY) if key not in meta
    ]
    if missing:
        raise JSONRPCError(
            INVALID_PARAMS, f"Invalid params: _meta is missing {', '.join(missing)}", status=400
        )
    requested = meta[PROTOCOL_VERSION_META_KEY]
    if not isinstance(requested, str) or not isinstance(meta[CLIENT_CAPABILITIES_META_KEY], dict):
        raise JSONRPCError(
            INVALID_PARAMS,
            "Invalid params: the protocol version must be a string and the client "
            "capabilities an object",
            status=400,
        )
    check_headers(message, headers, requested)
    if requested not in MODERN_VERSIONS:
        raise JSONRPCError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            data={"supported": list(SUPPORTED_VERSIONS), "requested": requested},
            status=400,
        )
    return Era(requested, modern=True, log_level=_level(message))


def check_headers(message: Message, headers: Mapping[str, Any], version: str) -> None:
    """Raise -32020 unless ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` match.

    Values are compared without the whitespace around them (RFC 9110), as they are case
    sensitive; ``Mcp-Name`` may be ``=?base64?…?=`` (docs/protocol.md).
    """
    if field(headers, PROTOCOL_VERSION_HEADER) != version:
        raise mismatch("MCP-Protocol-Version header does not match _meta's protocol version")
    if field(headers, METHOD_HEADER) != message.method:
        raise mismatch("Mcp-Method header does not match the request's method")
    key = NAME_BEARING_METHODS.get(message.method or "")
    named = message.params.get(key) if key is not None else None
    if named is not None:
        sent = field(headers, NAME_HEADER)
        if sent is None or decode_value(sent) != named:
            raise mismatch(f"Mcp-Name header does not match the request's {key!r}")


def _level(message: Message) -> str | None:
    level = message.meta.get(LOG_LEVEL_META_KEY)
    return level if level in LOG_LEVELS else None


def sends_log(era: Era, level: str) -> bool:
    """Return whether a ``notifications/message`` at ``level`` goes to this request's client."""
    if era.log_level is None:
        return False
    return LOG_LEVELS.index(level) >= LOG_LEVELS.index(era.log_level)
