"""The call log: its writer, its daily summary, and the admin's overview of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "figures",
    "flush",
    "rebuild",
    "record",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "flush": ".writer",
        "record": ".writer",
        "rebuild": ".summary",
        "figures": ".overview",
    },
)

if TYPE_CHECKING:
    from .overview import figures
    from .summary import rebuild
    from .writer import flush, record
