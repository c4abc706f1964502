"""An object made once and copied per call, with lists and dicts of its own.

What Django makes per request and a tool's every call would make alike (the view's
``WSGIRequest`` of a fixed path, the ``ResolverMatch`` of a route without parameters) is
made once; each call gets a copy of its attributes without running the constructor again,
with its own copy of each list and dict, since a view may write on them
(docs/performance.md#the-call-plan).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Prototype(Generic[T]):
    """The attributes of one object, less those each copy gets of its own (``left_out``)."""

    __slots__ = ("cls", "attributes", "mutable")

    def __init__(self, made: T, left_out: frozenset[str] = frozenset()) -> None:
        self.cls = type(made)
        found = vars(made)
        self.attributes = {
            name: value.copy() if isinstance(value, dict | list) else value
            for name, value in found.items()
            if name not in left_out
        }
        #: The names of its lists and dicts, copied for each copy.
        self.mutable = tuple(
            name for name, value in self.attributes.items() if isinstance(value, dict | list)
        )

    def copy(self, **own: Any) -> T:
        """Return a copy, with ``own`` attributes of its own besides."""
        made: T = self.cls.__new__(self.cls)
        attributes = made.__dict__
        attributes.update(self.attributes)
        for name in self.mutable:
            attributes[name] = attributes[name].copy()
        attributes.update(own)
        return made
