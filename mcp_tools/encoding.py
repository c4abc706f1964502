"""JSON text of values built in Python (overrides), encoded as DRF renders them."""

from __future__ import annotations

import json
import math
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

from .jsonrpc import RawJSON


class ResultEncodingError(ValueError):
    """A Python value that has no faithful JSON form."""


class _StrictEncoder(JSONEncoder):
    """DRF's encoder (dates, Decimals, UUIDs, lazy strings), minus its silent guesses."""

    def default(self, obj: Any) -> Any:
        if isinstance(obj, set | frozenset | bytes | bytearray):
            raise ResultEncodingError(
                f"Result is not valid JSON: {type(obj).__name__} values are not JSON"
            )
        return super().default(obj)


def _clean(value: Any, nan: str) -> Any:
    """Check keys and replace non-finite floats as the ``JSON_NAN`` setting says."""
    if isinstance(value, float) and not math.isfinite(value):
        if nan == "null":
            return None
        if nan == "string":
            return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        raise ResultEncodingError("Result is not valid JSON: NaN or infinity")
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise ResultEncodingError(
                    f"Result is not valid JSON: {type(key).__name__} keys are not JSON"
                )
        return {key: _clean(item, nan) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(item, nan) for item in value]
    return value


def encode_value(value: Any, *, nan: str = "error") -> RawJSON:
    """Return ``value`` as JSON text; ``ResultEncodingError`` when it has no JSON form."""
    cleaned = _clean(value, nan)
    text = json.dumps(
        cleaned, cls=_StrictEncoder, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return RawJSON(text)
