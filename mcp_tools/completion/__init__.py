"""Completion (``completion/complete``): a prompt argument's values, and the room for a
resource template variable's (docs/prompts.md#completion)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = ["MAX_VALUES", "Completion", "complete", "resource_values"]

__getattr__ = lazy_exports(
    __name__,
    {
        "MAX_VALUES": ".values",
        "Completion": ".values",
        "complete": ".methods",
        "resource_values": ".resources",
    },
)

if TYPE_CHECKING:
    from .methods import complete
    from .resources import resource_values
    from .values import MAX_VALUES, Completion
