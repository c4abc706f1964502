"""Live changes: ``subscriptions/listen`` (2026-07-28), the handshake era's GET stream and
its resource subscriptions; what each listener hears, and the process's watcher that hears
it (docs/subscriptions.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = ["Listener", "watcher"]

__getattr__ = lazy_exports(
    __name__,
    {
        "Listener": ".listeners",
        "watcher": ".watcher",
    },
)

if TYPE_CHECKING:
    from .listeners import Listener
    from .watcher import watcher
