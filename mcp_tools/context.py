"""The tool-call context stored on the view's request, and the override a view can set.

The endpoint attaches a ``ToolCallContext`` to the inner request; views read it through
``get_tool_call`` and ``is_mcp_request`` and write an override through ``mcp_output``.
"""

from __future__ import annotations

import base64
import binascii
import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

ATTRIBUTE = "_mcp_tool_call"

#: "Leave this part of the result as derived" (``None`` is a meaningful value).
KEEP: Any = type("Keep", (), {"__repr__": lambda self: "<keep>"})()


@dataclass
class Override:
    """What ``mcp_output`` stored: each field replaces what the formatter derives."""

    content: Any = KEEP
    structured_content: Any = KEEP
    meta: Any = KEEP
    annotations: dict[str, Any] | None = None


@dataclass
class ToolCallContext:
    """The state of one tool call, attached to the view's request."""

    params: dict[str, Any]
    tool_name: str
    override: Override | None = None
    #: Sends notifications to the client while the view runs; None when nothing listens.
    notifier: Any = None

    def pop_override(self) -> Override | None:
        """Return the override once; a second formatting pass sees none."""
        override, self.override = self.override, None
        return override


def _http_request(request: Any) -> Any:
    # A DRF Request wraps the HttpRequest; state lives on the HttpRequest, where both see it.
    return getattr(request, "_request", request)


def get_context(request: Any) -> ToolCallContext | None:
    """Return the tool-call context of ``request`` (DRF or Django), or None."""
    return getattr(_http_request(request), ATTRIBUTE, None)


def attach_context(http_request: Any, context: ToolCallContext) -> None:
    """Mark ``http_request`` as the inner request of a tool call."""
    setattr(http_request, ATTRIBUTE, context)


def attach_notifier(request: Any, notifier: Any) -> None:
    """Send this call's progress and log notifications to ``notifier`` (a streamed call)."""
    context = get_context(request)
    if context is not None:
        context.notifier = notifier


def is_mcp_request(request: Any) -> bool:
    """Return whether ``request`` is the inner request of an MCP tool call."""
    return get_context(request) is not None


def get_tool_call(request: Any) -> dict[str, Any] | None:
    """Return the ``tools/call`` params (``name``, ``arguments`` as received, ``_meta``)."""
    context = get_context(request)
    return copy.deepcopy(context.params) if context is not None else None


BLOCK_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource": ("resource",),
    "resource_link": ("uri", "name"),
}
AUDIENCES = frozenset({"user", "assistant"})


def check_block(block: Any) -> None:
    """Raise ``ValueError`` unless ``block`` is a well-formed content block."""
    if not isinstance(block, dict):
        raise ValueError(f"mcp_output: a content block must be a dict, not {type(block).__name__}")
    kind = block.get("type")
    if kind not in BLOCK_FIELDS:
        raise ValueError(
            f"mcp_output: unknown content block type {kind!r}; "
            f"expected one of {', '.join(BLOCK_FIELDS)}"
        )
    for name in BLOCK_FIELDS[kind]:
        if name not in block:
            raise ValueError(f"mcp_output: a {kind!r} content block needs {name!r}")
    if kind == "text" and not isinstance(block["text"], str):
        raise ValueError("mcp_output: a 'text' content block's text must be a string")
    if kind in ("image", "audio"):
        _check_base64(block["data"], f"{kind!r} data")
        if not isinstance(block["mimeType"], str) or "/" not in block["mimeType"]:
            raise ValueError(f"mcp_output: {kind!r} mimeType must be a media type string")
    if kind == "resource":
        resource = block["resource"]
        if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
            raise ValueError("mcp_output: a 'resource' block needs a resource dict with a uri")
        if "text" in resource:
            if not isinstance(resource["text"], str):
                raise ValueError("mcp_output: a resource's text must be a string")
        elif "blob" in resource:
            _check_base64(resource["blob"], "a resource's blob")
        else:
            raise ValueError("mcp_output: a 'resource' block needs text or blob")
    if kind == "resource_link" and not all(isinstance(block[k], str) for k in ("uri", "name")):
        raise ValueError("mcp_output: a 'resource_link' block's uri and name must be strings")
    if "annotations" in block:
        check_annotations(block["annotations"])


def _check_base64(data: Any, what: str) -> None:
    if not isinstance(data, str) or data.startswith("data:"):
        raise ValueError(f"mcp_output: {what} must be a base64 string, not a data: URL")
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"mcp_output: {what} is not valid base64") from exc


def check_annotations(annotations: Any) -> None:
    """Raise ``ValueError`` unless ``annotations`` is a valid content annotations object."""
    if not isinstance(annotations, dict):
        raise ValueError("mcp_output: annotations must be a dict")
    unknown = set(annotations) - {"audience", "priority", "lastModified"}
    if unknown:
        raise ValueError(f"mcp_output: unknown annotation(s) {', '.join(sorted(unknown))}")
    audience = annotations.get("audience")
    if audience is not None and (
        not isinstance(audience, list | tuple) or not set(audience) <= AUDIENCES
    ):
        raise ValueError("mcp_output: audience must be a list of 'user' and 'assistant'")
    priority = annotations.get("priority")
    if priority is not None and (
        isinstance(priority, bool)
        or not isinstance(priority, int | float)
        or not 0 <= priority <= 1
    ):
        raise ValueError(f"mcp_output: priority must be a number from 0 to 1, not {priority!r}")
    last_modified = annotations.get("lastModified")
    if last_modified is not None and not _is_iso_datetime(last_modified):
        raise ValueError(
            f"mcp_output: lastModified must be an ISO 8601 date-time string, not {last_modified!r}"
        )


def _is_iso_datetime(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def mcp_output(
    request: Any,
    *,
    content: Any = KEEP,
    structured_content: Any = KEEP,
    meta: Any = KEEP,
    annotations: dict[str, Any] | None = None,
) -> None:
    """Store an override of this tool call's MCP result on ``request``.

    Each given field replaces what the formatter would derive; ``structured_content=None``
    removes the structured content. A second call replaces the first whole. A no-op when
    ``request`` is not an MCP tool call.
    """
    if content is not KEEP:
        if not isinstance(content, list | tuple):
            raise ValueError("mcp_output: content must be a list of content blocks")
        for block in content:
            check_block(block)
        content = [dict(block) for block in content]
    if meta is not KEEP and meta is not None and not isinstance(meta, dict):
        raise ValueError("mcp_output: meta must be a dict")
    if annotations is not None:
        check_annotations(annotations)
        annotations = dict(annotations)
        if "audience" in annotations:
            annotations["audience"] = list(annotations["audience"])
    context = get_context(request)
    if context is None:
        return
    context.override = Override(content, structured_content, meta, annotations)
