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
    "resource_updated",
    "sync_resources",
    "updated_by",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Resource": ".resource",
        "ResourceRegistry": ".registry",
        "expose": ".decorators",
        "mcp_resource": ".decorators",
        "resource_updated": ".stamps",
        "sync_resources": ".sync",
        "updated_by": ".stamps",
    },
)

if TYPE_CHECKING:
    from .decorators import expose, mcp_resource
    from .registry import ResourceRegistry
    from .resource import Resource
    from .stamps import resource_updated, updated_by
    from .sync import sync_resources
