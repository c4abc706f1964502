"""Resources: GET views read by URI (``resources/list``, ``resources/templates/list``,
``resources/read``), declared with ``@mcp_resource`` (docs/resources.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "Resource",
    "ResourceRegistry",
    "expose",
    "mcp_resource",
    "sync_resources",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Resource": ".resource",
        "ResourceRegistry": ".registry",
        "expose": ".decorators",
        "mcp_resource": ".decorators",
        "sync_resources": ".sync",
    },
)

if TYPE_CHECKING:
    from .decorators import expose, mcp_resource
    from .registry import ResourceRegistry
    from .resource import Resource
    from .sync import sync_resources
