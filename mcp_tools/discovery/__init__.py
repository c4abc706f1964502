"""Large APIs: discovery mode's two tools, ``search_tools`` and ``call_tool``, and the ranker
that searches a caller's tools (docs/tools.md#large-apis)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "Entry",
    "LexicalBackend",
    "SearchBackend",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Entry": ".ranking",
        "LexicalBackend": ".ranking",
        "SearchBackend": ".ranking",
    },
)

if TYPE_CHECKING:
    from .ranking import Entry, LexicalBackend, SearchBackend
