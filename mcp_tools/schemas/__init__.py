"""The schema family: a tool's input and output JSON Schemas, read from DRF views.

``fields`` maps URL converters and serializer fields, ``queries`` a list view's filter
backends and paginator, ``input_schema`` assembles one flat ``inputSchema``,
``output_schema`` resolves an ``outputSchema``, ``validators`` compiles the argument
validator, ``spectacular`` reads drf-spectacular's annotations where it is installed, and
``introspection`` sets a view up for one action so that all of them read the same view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "ViewMethod",
    "build_input_schema",
    "model_of",
    "resolve_output_schema",
    "serializer_of",
    "view_for",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "ViewMethod": ".introspection",
        "model_of": ".introspection",
        "serializer_of": ".introspection",
        "view_for": ".introspection",
        "build_input_schema": ".input_schema",
        "resolve_output_schema": ".output_schema",
    },
)

if TYPE_CHECKING:
    from .input_schema import build_input_schema
    from .introspection import ViewMethod, model_of, serializer_of, view_for
    from .output_schema import resolve_output_schema
