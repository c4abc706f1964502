"""The extension point of a resource template variable's completion (``ref/resource``).

Resources are served by their own folder, on another branch for now: until it is wired
here, every variable completes to nothing, which the specification allows. The resources
branch replaces ``resource_values`` with the values of the view's own queryset as this
caller would see it (docs/prompts.md#completion).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .values import Completion

__all__ = ["resource_values"]


def resource_values(
    call: Any, uri: str, variable: str, typed: str, context: Mapping[str, str]
) -> Completion:
    """Return the completion of ``variable`` of the resource template ``uri`` for the
    caller of ``call``, given what they ``typed`` and the other variables' values."""
    return Completion()
