"""The MCP endpoint: the transport, the JSON-RPC methods, streams, start-up."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "Call",
    "Exchange",
    "MCPView",
    "ProtectedResourceMetadataView",
    "call_tool",
    "endpoint_at",
    "mounted_endpoints",
    "served_registries",
    "warm_up",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "MCPView": ".view",
        "ProtectedResourceMetadataView": ".well_known",
        "Call": ".exchange",
        "Exchange": ".exchange",
        "endpoint_at": ".mounts",
        "mounted_endpoints": ".mounts",
        "served_registries": ".mounts",
        "call_tool": ".local",
        "warm_up": ".startup",
    },
)

if TYPE_CHECKING:
    from .exchange import Call, Exchange
    from .local import call_tool
    from .mounts import endpoint_at, mounted_endpoints, served_registries
    from .startup import warm_up
    from .view import MCPView
    from .well_known import ProtectedResourceMetadataView
