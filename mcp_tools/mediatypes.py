"""Media types in ``Accept`` and ``Content-Type`` headers.

Pure protocol logic: nothing here imports Django settings or models.
"""

from __future__ import annotations


def accepts(accept: str | None, media_type: str) -> bool:
    """Return whether an ``Accept`` header admits ``media_type`` (an absent header: no)."""
    if not accept:
        return False
    major = media_type.split("/")[0]
    admitted = {media_type, f"{major}/*", "*/*"}
    return any(item.split(";")[0].strip().lower() in admitted for item in accept.split(","))


def parse(content_type: str | None) -> tuple[str, str | None]:
    """Return a ``Content-Type``'s media type (lower-cased, no parameters) and its charset."""
    kind, _, params = (content_type or "").partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"')
    return kind.strip().lower(), charset
