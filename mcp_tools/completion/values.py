"""A completion's values: prefix-matched, at most 100, with ``total`` and ``hasMore``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from typing import Any

__all__ = ["MAX_VALUES", "Completion", "matching"]

#: The most values one completion carries (the specification's bound).
MAX_VALUES = 100


@dataclass(frozen=True)
class Completion:
    """The values offered for what the client typed, and how many more there are."""

    values: tuple[str, ...] = ()
    #: How many values match in all, where known.
    total: int | None = None
    has_more: bool = False

    @classmethod
    def bounded(cls, values: Iterable[object], *, counted: bool) -> Completion:
        """Return the first ``MAX_VALUES`` strings of ``values``; ``counted``: the iterable
        is a list whose length is the total (a generator's is not read past the bound)."""
        if counted:
            listed = [str(value) for value in values]
            return cls(tuple(listed[:MAX_VALUES]), len(listed), len(listed) > MAX_VALUES)
        first = [str(value) for value in islice(values, MAX_VALUES + 1)]
        return cls(tuple(first[:MAX_VALUES]), None, len(first) > MAX_VALUES)

    def wire(self) -> dict[str, Any]:
        completion: dict[str, Any] = {"values": list(self.values)}
        if self.total is not None:
            completion["total"] = self.total
        completion["hasMore"] = self.has_more
        return {"completion": completion}


def matching(choices: Iterable[str], typed: str) -> Completion:
    """Return the ``choices`` that start with ``typed`` (ignoring case), in their order."""
    folded = typed.casefold()
    return Completion.bounded(
        [choice for choice in choices if choice.casefold().startswith(folded)], counted=True
    )
