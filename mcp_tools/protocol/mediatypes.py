"""Media types in ``Accept`` and ``Content-Type`` headers."""

from __future__ import annotations


def admitted_ranges(accept: str | None) -> frozenset[str]:
    """Return the media ranges an ``Accept`` header names, lower-cased, without parameters."""
    if not accept:
        return frozenset()
    return frozenset(item.split(";")[0].strip().lower() for item in accept.split(","))


def admits(ranges: frozenset[str], media_type: str) -> bool:
    """Return whether parsed ``ranges`` admit ``media_type`` (exactly, or by a wildcard)."""
    major = media_type.split("/")[0]
    return media_type in ranges or f"{major}/*" in ranges or "*/*" in ranges


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
