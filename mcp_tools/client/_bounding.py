"""Processors that bound untrusted tool output: truncate, redact, and their composition.

A processor is a plain callable from a ``ToolOutput`` to a ``ToolOutput``. Processors never
change their input: they return new strings, lists and parts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeAlias

from ._output import Part, TextPart, ToolOutput

Processor: TypeAlias = Callable[[ToolOutput], ToolOutput]

DEFAULT_TRUNCATION_MARKER = "\n[truncated {chars} characters ({bytes} bytes)]"
DEFAULT_REDACTION = "[REDACTED]"

# The largest number a marker can report has this many digits (a 64-bit size).
_MAX_DIGITS = 20


def compose(*processors: Processor) -> Processor:
    """Return one processor that applies ``processors`` in the order given."""

    def process(output: ToolOutput) -> ToolOutput:
        for processor in processors:
            output = processor(output)
        return output

    return process


def truncate(
    *,
    max_chars: int | None = None,
    max_bytes: int | None = None,
    marker: str = DEFAULT_TRUNCATION_MARKER,
) -> Processor:
    """Return a processor that cuts the text of an output to at most ``max_chars`` / ``max_bytes``.

    The bounds hold for the whole text of the output, marker included: the text of a string,
    or the text parts of a list taken together in order (file parts are kept; bound them with
    ``store_artifacts``). Bytes are UTF-8 and a character is never split. ``marker`` is
    appended where text was cut; ``{chars}`` and ``{bytes}`` in it are replaced by how much
    was cut.
    """
    if max_chars is None and max_bytes is None:
        raise ValueError("truncate() needs max_chars, max_bytes or both")
    widest = marker.format(chars="9" * _MAX_DIGITS, bytes="9" * _MAX_DIGITS)
    for name, limit, size in (
        ("max_chars", max_chars, len(widest)),
        ("max_bytes", max_bytes, _utf8_size(widest)),
    ):
        if limit is not None and limit < size:
            raise ValueError(f"{name}={limit} leaves no room for the marker: use at least {size}")

    def process(output: ToolOutput) -> ToolOutput:
        parts = _as_parts(output)
        text = "".join(part["text"] for part in parts if part["type"] == "text")
        encoded = _utf8(text)
        fits_chars = max_chars is None or len(text) <= max_chars
        if fits_chars and (max_bytes is None or len(encoded) <= max_bytes):
            return output
        # Reserve room for the widest marker this text can need, so the final one fits.
        widest = marker.format(chars=len(text), bytes=len(encoded))
        keep = len(text)
        if max_chars is not None:
            keep = min(keep, max_chars - len(widest))
        if max_bytes is not None:
            keep = min(keep, _chars_within(encoded, max_bytes - _utf8_size(widest)))
        kept_bytes = _utf8_size(text[:keep])
        cut = marker.format(chars=len(text) - keep, bytes=len(encoded) - kept_bytes)
        return _from_parts(_cut_parts(parts, keep, cut), output)

    return process


def redact(
    patterns: str | re.Pattern[str] | Iterable[str | re.Pattern[str]],
    replacement: str = DEFAULT_REDACTION,
) -> Processor:
    """Return a processor that replaces every match of ``patterns`` in the output's text.

    ``patterns`` are regular expressions (strings or compiled); ``replacement`` is used as
    ``re.sub`` uses it. File parts are kept as they are.
    """
    if isinstance(patterns, str | re.Pattern):
        patterns = (patterns,)
    compiled = tuple(re.compile(pattern) for pattern in patterns)

    def substitute(text: str) -> str:
        for pattern in compiled:
            text = pattern.sub(replacement, text)
        return text

    def process(output: ToolOutput) -> ToolOutput:
        if isinstance(output, str):
            return substitute(output)
        return [
            {"type": "text", "text": substitute(part["text"])} if part["type"] == "text" else part
            for part in output
        ]

    return process


def _as_parts(output: ToolOutput) -> list[Part]:
    if isinstance(output, str):
        return [{"type": "text", "text": output}]
    return output


def _from_parts(parts: list[Part], original: ToolOutput) -> ToolOutput:
    if isinstance(original, str):
        return "".join(part["text"] for part in parts if part["type"] == "text")
    return parts


def _cut_parts(parts: list[Part], keep: int, marker: str) -> list[Part]:
    """Keep the first ``keep`` characters of text, end it with ``marker``, drop the rest."""
    result: list[Part] = []
    marked = False
    for part in parts:
        if part["type"] != "text":
            result.append(part)
        elif not marked:
            text = part["text"]
            if len(text) <= keep:
                result.append(part)
                keep -= len(text)
            else:
                cut: TextPart = {"type": "text", "text": text[:keep] + marker}
                result.append(cut)
                marked = True
    return result


def _utf8(text: str) -> bytes:
    # surrogatepass: JSON can carry lone surrogates, which strict UTF-8 refuses.
    return text.encode("utf-8", "surrogatepass")


def _utf8_size(text: str) -> int:
    return len(_utf8(text))


def _chars_within(encoded: bytes, size: int) -> int:
    """Return how many characters of ``encoded`` fit in ``size`` bytes."""
    if size <= 0:
        return 0
    end = min(size, len(encoded))
    # Step back over continuation bytes so no character is split.
    while end < len(encoded) and end > 0 and encoded[end] & 0xC0 == 0x80:
        end -= 1
    return len(encoded[:end].decode("utf-8", "surrogatepass"))
