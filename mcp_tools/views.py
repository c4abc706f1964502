"""The MCP endpoint's views: ``MCPView`` (docs/dispatch.md) and the RFC 9728 documents'
``ProtectedResourceMetadataView`` (docs/oauth.md).

The endpoint itself lives in ``mcp_tools.endpoint``; this module is its public path, as
``rest_framework.views`` is DRF's.
"""

from .endpoint.view import MCPView
from .endpoint.well_known import ProtectedResourceMetadataView

__all__ = ["MCPView", "ProtectedResourceMetadataView"]
