"""Small binary documents built with the standard library: a PNG chart, a WAV beep, a PDF."""

from __future__ import annotations

import io
import math
import struct
import wave
import zlib

WHITE = (255, 255, 255)
BAR_COLOURS = [(46, 134, 193), (39, 174, 96), (231, 76, 60), (243, 156, 18)]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bar_chart_png(values: list[int], *, width: int = 160, height: int = 100) -> bytes:
    """Return an RGB PNG with one bar per value, scaled to the largest."""
    top = max(values, default=0) or 1
    slot = width // max(len(values), 1)
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter type: none
        for x in range(width):
            index = x // slot
            inside = index < len(values) and x % slot >= 4
            tall = index < len(values) and height - y <= values[index] * (height - 10) // top
            row += bytes(BAR_COLOURS[index % len(BAR_COLOURS)] if inside and tall else WHITE)
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + _chunk(b"IEND", b"")
    )


def beep_wav(*, frequency: float = 880.0, seconds: float = 0.2, rate: int = 8000) -> bytes:
    """Return a mono 16-bit WAV sine beep."""
    frames = b"".join(
        struct.pack("<h", int(12000 * math.sin(2 * math.pi * frequency * i / rate)))
        for i in range(int(rate * seconds))
    )
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return buffer.getvalue()


def one_line_pdf(text: str) -> bytes:
    """Return a one-page PDF showing one line of ASCII text."""
    safe = text.encode("ascii", "replace").replace(b"\\", b"\\\\")
    safe = safe.replace(b"(", b"\\(").replace(b")", b"\\)")
    stream = b"BT /F1 12 Tf 36 760 Td (" + safe + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
