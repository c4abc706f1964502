"""Small helpers shared by the test modules that read /mcp answers themselves."""

from __future__ import annotations

import json
from typing import Any

#: The modern era's one protocol version.
MODERN = "2026-07-28"


def error_of(response: Any) -> dict[str, Any]:
    """Return the error object of a JSON-RPC error answer, checking the envelope has no more."""
    payload = json.loads(response.content)
    assert set(payload) == {"jsonrpc", "id", "error"}
    return payload["error"]


def result_of(response: Any) -> Any:
    """Return the result of a plain JSON answer (never an SSE stream)."""
    return json.loads(response.content)["result"]


def write_catalog(locale: Any, language: str, messages: dict[str, str]) -> None:
    """Write a gettext catalog (``<locale>/<language>/LC_MESSAGES/django.mo``) of ``messages``.

    The GNU .mo format, written here so that no test needs gettext's msgfmt installed.
    """
    import struct
    from pathlib import Path

    entries = {"": "Content-Type: text/plain; charset=UTF-8\n", **messages}
    keys = sorted(entries)
    ids = [key.encode() for key in keys]
    strs = [entries[key].encode() for key in keys]
    header = 7 * 4
    tables = header + 2 * 8 * len(keys)
    offsets: list[tuple[int, int]] = []
    blob = b""
    for text in ids + strs:
        offsets.append((len(text), tables + len(blob)))
        blob += text + b"\0"
    data = struct.pack("<7I", 0x950412DE, 0, len(keys), header, header + 8 * len(keys), 0, 0)
    data += b"".join(struct.pack("<2I", *pair) for pair in offsets) + blob
    folder = Path(locale) / language / "LC_MESSAGES"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "django.mo").write_bytes(data)
