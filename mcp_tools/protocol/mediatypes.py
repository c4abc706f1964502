"""Media types in ``Accept`` and ``Content-Type`` headers."""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Mapping
from types import MappingProxyType

#: Media ranges an ``Accept`` header names, each with its quality (0 to 1).
Ranges = Mapping[str, float]


@functools.lru_cache(maxsize=64)
def admitted_ranges(accept: str | None) -> Ranges:
    """Return the media ranges an ``Accept`` header names, lower-cased, with their ``q``.

    Cached: a client sends the same header on every request (the result is not to be
    changed by its callers).
    """
    ranges: dict[str, float] = {}
    for item in (accept or "").split(","):
        media_range, *params = item.split(";")
        media_range = media_range.strip().lower()
        if not media_range:
            continue
        quality = 1.0
        for param in params:
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                # An unreadable q: the range as if it had none.
                with contextlib.suppress(ValueError):
                    number = float(value)
                    if math.isfinite(number):  # q=nan or q=inf: as unreadable
                        quality = min(max(number, 0.0), 1.0)
        ranges[media_range] = max(quality, ranges.get(media_range, 0.0))
    return MappingProxyType(ranges)  # cached and shared: read-only


def admits(ranges: Ranges, media_type: str) -> bool:
    """Return whether parsed ``ranges`` admit ``media_type``.

    The most specific range that matches decides, and ``q=0`` means "not acceptable"
    (RFC 9110, section 12.5.1): ``application/json;q=0, */*`` refuses JSON.
    """
    major = media_type.split("/")[0]
    for candidate in (media_type, f"{major}/*", "*/*"):
        if candidate in ranges:
            return ranges[candidate] > 0
    return False


def names(ranges: Ranges, media_type: str) -> bool:
    """Return whether parsed ``ranges`` name ``media_type`` itself (not through ``*/*`` or
    ``type/*``) as acceptable."""
    return ranges.get(media_type, 0.0) > 0


def accepts(accept: str | None, media_type: str) -> bool:
    """Return whether an ``Accept`` header admits ``media_type`` (an absent header: no)."""
    return admits(admitted_ranges(accept), media_type)


def parse(content_type: str | None) -> tuple[str, str | None]:
    """Return a ``Content-Type``'s media type (lower-cased, no parameters) and its charset."""
    kind, _, params = (content_type or "").partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"')
    return kind.strip().lower(), charset
