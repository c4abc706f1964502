"""A read's finished ``ToolResult`` as ``ReadResourceResult`` contents (docs/resources.md).

The formatter has already made the view's body content blocks: a JSON or text body a text
block, an image or audio body a base64 block, any other binary body (a file, a
``FileResponse``) an embedded resource's blob. Each becomes the resource's contents at the
URI read: text with its media type, or a blob.
"""

from __future__ import annotations

from typing import Any

from ..protocol.results import ToolResult

__all__ = ["contents_of"]

TEXT = "text/plain"


def contents_of(result: ToolResult, uri: str, mime_type: str | None) -> list[dict[str, Any]]:
    """Return the contents of ``result`` at ``uri`` (``mime_type``: the resource's or its
    response's media type)."""
    found: list[dict[str, Any]] = []
    for block in result.content:
        kind = block.get("type")
        if kind == "text":
            found.append({"uri": uri, "mimeType": mime_type or TEXT, "text": block["text"]})
        elif kind in ("image", "audio"):
            found.append({"uri": uri, "mimeType": block["mimeType"], "blob": block["data"]})
        elif kind == "resource":
            embedded = dict(block["resource"])
            embedded["uri"] = uri
            embedded.setdefault("mimeType", mime_type or "application/octet-stream")
            found.append(embedded)
    return found
