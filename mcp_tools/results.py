"""The internal model of a tool result, before projection to a protocol version.

Pure protocol logic: nothing here imports Django settings or models.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from .jsonrpc import RawJSON

ERROR_REF_META_KEY = "django-mcp-tools/errorRef"

INTERNAL_SERVER_ERROR = "Internal server error"

#: Marks "no structured content" (``None`` is a JSON value: null).
NO_STRUCTURED = object()


def text_block(text: str) -> dict[str, Any]:
    """Return a text content block."""
    return {"type": "text", "text": text}


@dataclass(slots=True)
class ToolResult:
    """A ``CallToolResult``: content blocks, an optional structured value, ``_meta``, isError."""

    content: list[dict[str, Any]] = field(default_factory=list)
    structured: Any = NO_STRUCTURED
    meta: dict[str, Any] = field(default_factory=dict)
    is_error: bool = False

    @classmethod
    def error(cls, message: str, **meta: Any) -> ToolResult:
        """Return an ``isError`` result whose one text block is ``message``."""
        return cls(content=[text_block(message)], is_error=True, meta=dict(meta))

    @classmethod
    def masked(cls) -> ToolResult:
        """Return ``Internal server error`` with a new error reference in ``_meta``."""
        return cls.error(INTERNAL_SERVER_ERROR, **{ERROR_REF_META_KEY: uuid.uuid4().hex})

    @property
    def error_reference(self) -> str | None:
        return self.meta.get(ERROR_REF_META_KEY)

    @property
    def has_structured(self) -> bool:
        """Return whether the result carries a structured value (``null`` counts)."""
        return self.structured is not NO_STRUCTURED

    def structured_value(self) -> Any:
        """Return the structured value as plain Python data."""
        if isinstance(self.structured, RawJSON):
            return self.structured.value
        return self.structured

    def texts(self) -> list[str]:
        """Return the text of every text block, in order."""
        return [block["text"] for block in self.content if block.get("type") == "text"]
