"""The tools as admins configured them, and who may see which."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "Catalog",
    "Visibility",
    "catalog_for",
    "sync_tools",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Catalog": ".admin_state",
        "catalog_for": ".admin_state",
        "Visibility": ".visibility",
        "sync_tools": ".sync",
    },
)

if TYPE_CHECKING:
    from .admin_state import Catalog, catalog_for
    from .sync import sync_tools
    from .visibility import Visibility
