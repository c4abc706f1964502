"""JSON text of values built in Python (overrides, processors), encoded as DRF renders them.

docs/results.md: DRF's encoder (dates, Decimals, UUIDs, lazy strings), tuples as arrays, and a
clear error instead of a silent guess for sets, bytes, non-string keys and unknown objects.
Non-finite floats follow the ``JSON_NAN`` setting: ``"error"``, ``"null"`` or ``"string"``.
"""

from __future__ import annotations

import json
import math
import re

from rest_framework.utils.encoders import JSONEncoder

from ..protocol.jsonrpc import RawJSON

NAN_MODES: tuple[str, ...] = ("error", "null", "string")
#: What a JSON body's text block is (``JSON_TEXT``): without an indented body's whitespace,
#: or the body as sent.
JSON_TEXT_MODES: tuple[str, ...] = ("compact", "body")

#: A line break and the indentation after it: never inside a JSON string, whose control
#: characters must be escaped (``parse_json`` is strict).
_LINE_BREAK = re.compile(r"[\r\n][ \t\r\n]*")
#: A JSON string, escapes included (the pattern unrolled: no alternation per character).
_STRING = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")')


def without_whitespace(text: str) -> str:
    """Return the JSON ``text`` without its insignificant whitespace (a pretty-printing
    renderer's indentation), every token as written: strings, escapes and numbers kept.

    ``text`` must have parsed as strict JSON."""
    text = _LINE_BREAK.sub("", text)
    if '\\"' in text:  # an escaped quote: the strings found by pattern
        parts, quote = _STRING.split(text), ""
    else:  # every quote starts or ends a string
        parts, quote = text.split('"'), '"'
    parts[::2] = [  # between strings: what is left of the whitespace is insignificant
        part.replace(" ", "").replace("\t", "") if " " in part or "\t" in part else part
        for part in parts[::2]
    ]
    return quote.join(parts)


NAN_MESSAGE = "Result is not valid JSON: NaN or infinity"


class ResultEncodingError(ValueError):
    """A Python value that has no faithful JSON form."""


def _not_json(kind: str) -> ResultEncodingError:
    return ResultEncodingError(f"Result is not valid JSON: {kind} is not JSON serializable")


class _StrictEncoder(JSONEncoder):
    """DRF's encoder without the guesses that would change a value's meaning."""

    def default(self, obj: object) -> object:
        # DRF would decode bytes and turn a set into an array in arbitrary order.
        if isinstance(obj, set | frozenset | bytes | bytearray | memoryview):
            raise _not_json(type(obj).__name__)
        try:
            return super().default(obj)
        except TypeError:
            raise _not_json(type(obj).__name__) from None


def _non_finite(value: float, nan: str) -> str | None:
    if nan == "null":
        return None
    if nan == "string":
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    raise ResultEncodingError(NAN_MESSAGE)


def _clean(value: object, nan: str) -> object:
    """Check keys and replace non-finite floats as ``nan`` says."""
    if isinstance(value, float) and not math.isfinite(value):
        return _non_finite(value, nan)
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise _not_json(f"a {type(key).__name__} key")
        return {key: _clean(item, nan) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(item, nan) for item in value]
    return value


def check_nan_mode(nan: str) -> str:
    if nan not in NAN_MODES:
        raise ValueError(f"MCP_TOOLS['JSON_NAN'] must be one of {', '.join(NAN_MODES)}: {nan!r}")
    return nan


def encode_value(value: object, *, nan: str = "error") -> RawJSON:
    """Return ``value`` as compact JSON text; ``ResultEncodingError`` when it has no JSON form.

    A JSON-looking Python string stays a string: ``'{"a": 1}'`` encodes as a JSON string.
    """
    mode = check_nan_mode(nan)
    try:
        text = json.dumps(
            _clean(value, mode),
            cls=_StrictEncoder,
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,
        )
    except ResultEncodingError:
        raise
    except RecursionError as exc:
        raise ResultEncodingError("Result is not valid JSON: it contains a cycle") from exc
    except ValueError as exc:
        if "Circular" in str(exc):
            raise ResultEncodingError("Result is not valid JSON: it contains a cycle") from exc
        # A non-finite float inside a value only the encoder converts (a generator, a queryset).
        raise ResultEncodingError(NAN_MESSAGE) from exc
    # Parsed again only if validation or a processor needs the value (RawJSON is lazy).
    return RawJSON(text)


def parse_json(text: str, *, nan: str = "error") -> object:
    """Parse a JSON body; ``NaN``/``Infinity`` literals follow ``nan``; ``ValueError`` if bad."""
    mode = check_nan_mode(nan)

    def constant(name: str) -> str | None:
        return _non_finite(float(name), mode)

    return json.loads(text, parse_constant=constant)
