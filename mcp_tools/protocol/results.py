"""The internal model of a tool result, before projection onto a protocol version."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Final

from .jsonrpc import RawJSON

ERROR_REF_META_KEY = "django-mcp-tools/errorRef"
#: Where a followed redirect led: the path and query of the view that answered.
LOCATION_META_KEY = "django-mcp-tools/location"

INTERNAL_SERVER_ERROR = "Internal server error"


class NoStructured(enum.Enum):
    """The type of ``NO_STRUCTURED``: an enum of one, so that type checkers narrow on it."""

    NO_STRUCTURED = "no structured"

    def __repr__(self) -> str:
        return "<no structured>"


#: Marks "no structured content" (``None`` is a JSON value: null).
NO_STRUCTURED: Final = NoStructured.NO_STRUCTURED


def text_block(text: str) -> dict[str, Any]:
    """Return a text content block."""
    return {"type": "text", "text": text}


@dataclass(slots=True)
class ToolResult:
    """A ``CallToolResult``: content blocks, an optional structured value, ``_meta``, isError."""

    content: list[dict[str, Any]] = field(default_factory=list)
    structured: object = NO_STRUCTURED
    meta: dict[str, Any] = field(default_factory=dict)
    is_error: bool = False
    #: The tool's advertised output schema (unwrapped): it decides how projection wraps the
    #: structured value for versions that need an object, as it wraps the schema itself.
    output_schema: dict[str, Any] | None = None

    @classmethod
    def error(cls, message: str, **meta: object) -> ToolResult:
        """Return an ``isError`` result whose one text block is ``message``."""
        return cls(content=[text_block(message)], is_error=True, meta=dict(meta))

    @classmethod
    def masked(cls, reference: str) -> ToolResult:
        """Return ``Internal server error`` with its error reference in ``_meta``."""
        return cls.error(INTERNAL_SERVER_ERROR, **{ERROR_REF_META_KEY: reference})

    @property
    def error_reference(self) -> str | None:
        return self.meta.get(ERROR_REF_META_KEY)

    @property
    def has_structured(self) -> bool:
        """Return whether the result carries a structured value (``null`` counts)."""
        return self.structured is not NO_STRUCTURED

    def structured_value(self) -> object:
        """Return the structured value as plain Python data."""
        if isinstance(self.structured, RawJSON):
            return self.structured.value
        return self.structured

    def texts(self) -> list[str]:
        """Return the text of every text block, in order."""
        return [block["text"] for block in self.content if block.get("type") == "text"]


@dataclass(frozen=True, slots=True)
class InputRequiredResult:
    """A 2026-07-28 ``InputRequiredResult``: what the call needs from the client, and its state."""

    #: key → ``{"method", "params"}``: the requests the client answers before it retries.
    input_requests: dict[str, dict[str, Any]]
    #: The signed state the client echoes back (docs/input.md).
    request_state: str

    def wire(self) -> dict[str, Any]:
        return {
            "resultType": "input_required",
            "inputRequests": self.input_requests,
            "requestState": self.request_state,
        }
