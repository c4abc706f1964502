"""A processor that moves large artifacts out of a tool output into a store."""

from __future__ import annotations

import base64
import binascii
import hashlib
import mimetypes
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from ._bounding import Processor
from ._output import Part, ToolOutput

#: Saves an artifact's bytes with its media type and returns a reference to it (a URL, a
#: path, an id): whatever the model or the application can use to fetch it later.
ArtifactStore: TypeAlias = Callable[[bytes, str], str]

DEFAULT_MIN_BYTES = 100_000
DEFAULT_REFERENCE = "[{media_type} artifact of {size} bytes stored as {ref}]"
TEXT_MEDIA_TYPE = "text/plain; charset=utf-8"


def store_artifacts(
    store: ArtifactStore,
    *,
    min_bytes: int = DEFAULT_MIN_BYTES,
    reference: str = DEFAULT_REFERENCE,
) -> Processor:
    """Return a processor that stores each artifact of ``min_bytes`` or more and cites it.

    An artifact is a file part (its decoded bytes) or a text (the whole string output, or
    one text part; UTF-8). Each stored one is replaced by a text part made from
    ``reference``, where ``{ref}``, ``{media_type}`` and ``{size}`` are filled in. A list
    left without file parts becomes a string, as ``to_tool_output`` would have returned.
    """

    def cite(data: bytes, media_type: str) -> str:
        return reference.format(ref=store(data, media_type), media_type=media_type, size=len(data))

    def process_text(text: str) -> str:
        data = text.encode("utf-8", "surrogatepass")
        return cite(data, TEXT_MEDIA_TYPE) if len(data) >= min_bytes else text

    def process(output: ToolOutput) -> ToolOutput:
        if isinstance(output, str):
            return process_text(output)
        parts: list[Part] = []
        for part in output:
            if part["type"] == "text":
                parts.append({"type": "text", "text": process_text(part["text"])})
                continue
            data = _decode(part["data"]["data"])
            if len(data) >= min_bytes:
                parts.append({"type": "text", "text": cite(data, part["mediaType"])})
            else:
                parts.append(part)
        if any(part["type"] == "file" for part in parts):
            return parts
        return "".join(part["text"] for part in parts if part["type"] == "text")

    return process


def directory_store(directory: str | Path) -> ArtifactStore:
    """Return a store that writes each artifact to ``directory`` and returns its path.

    Files are named by the SHA-256 of their content, so storing the same artifact twice
    writes one file. The directory is created when missing.
    """
    root = Path(directory)

    def store(data: bytes, media_type: str) -> str:
        root.mkdir(parents=True, exist_ok=True)
        extension = mimetypes.guess_extension(media_type.partition(";")[0].strip()) or ".bin"
        path = root / f"{hashlib.sha256(data).hexdigest()}{extension}"
        if not path.exists():
            path.write_bytes(data)
        return str(path)

    return store


def _decode(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except binascii.Error as error:
        raise ValueError(f"Invalid base64 data in a file part: {error}") from error
