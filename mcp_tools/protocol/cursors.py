"""Opaque ``tools/list`` cursors: an offset into the list, base64-encoded."""

from __future__ import annotations

import base64
import binascii

from .jsonrpc import INVALID_PARAMS, JSONRPCError

CURSOR_PREFIX = "offset:"


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"{CURSOR_PREFIX}{offset}".encode()).decode()


def decode_cursor(cursor: object, total: int) -> int:
    """Return the offset an opaque cursor stands for; raise -32602 for any other value."""
    invalid = JSONRPCError(INVALID_PARAMS, "Invalid params: invalid cursor")
    if not isinstance(cursor, str) or len(cursor) > 64:
        raise invalid
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
    except (binascii.Error, UnicodeError, ValueError) as exc:
        raise invalid from exc
    digits = text.removeprefix(CURSOR_PREFIX)
    if not text.startswith(CURSOR_PREFIX) or not digits.isdigit() or not 0 < int(digits) < total:
        raise invalid
    return int(digits)
