"""Formatters: a view's HttpResponse, or the exception it raised, becomes a tool result.

The contract is DESIGN §4 and §5. ``ResponseFormatter`` is the default; a project can name
another class in ``MCP_TOOLS["FORMATTER_CLASS"]``.
"""

from __future__ import annotations

import base64
import json
import logging
import uuid
from typing import Any

from django.core.signals import got_request_exception
from django.http import HttpRequest, HttpResponseBase
from rest_framework.exceptions import ErrorDetail
from rest_framework.renderers import JSONRenderer

from .conf import mcp_settings
from .context import KEEP, Override, get_context
from .encoding import ResultEncodingError, encode_value
from .jsonrpc import RawJSON
from .results import (
    ERROR_REF_META_KEY,
    INTERNAL_SERVER_ERROR,
    NO_STRUCTURED,
    ToolResult,
    text_block,
)
from .tools import Tool

logger = logging.getLogger("mcp_tools")

TEXT_TYPES = frozenset(
    {"application/xml", "application/javascript", "application/yaml", "application/x-ndjson"}
)
#: ``_meta`` keys the server owns: an override's ``meta`` never removes them.
SERVER_META_PREFIXES = ("django-mcp-tools/", "io.modelcontextprotocol/")


class ResponseTooLarge(Exception):
    pass


def media_type(response: HttpResponseBase) -> tuple[str, str | None]:
    """Return the media type without parameters, lower-cased, and the charset parameter."""
    header = response.get("Content-Type", "") or ""
    kind, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"')
    return kind.strip().lower(), charset


def is_json_type(kind: str) -> bool:
    return kind == "application/json" or kind.endswith("+json")


def is_text_type(kind: str) -> bool:
    return kind.startswith("text/") or kind in TEXT_TYPES or kind.endswith("+xml")


def read_body(response: HttpResponseBase, limit: int) -> bytes:
    """Read at most ``limit`` bytes of the body, streaming or not; raise past it."""
    if not response.streaming:
        body = response.content  # type: ignore[attr-defined]
        if len(body) > limit:
            raise ResponseTooLarge
        return body
    chunks: list[bytes] = []
    size = 0
    for chunk in response:  # type: ignore[attr-defined]
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")


class BaseFormatter:
    """Turn the outcome of one view call into a ``ToolResult``."""

    def format_response(
        self, response: HttpResponseBase, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        raise NotImplementedError

    def format_exception(self, exc: BaseException, request: HttpRequest, tool: Tool) -> ToolResult:
        raise NotImplementedError


class ResponseFormatter(BaseFormatter):
    """The result contract of DESIGN §4 and §5."""

    def format_response(
        self, response: HttpResponseBase, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        context = get_context(request)
        override = context.pop_override() if context is not None else None
        try:
            body = read_body(response, mcp_settings.MAX_RESPONSE_BYTES)
        except ResponseTooLarge:
            limit = mcp_settings.MAX_RESPONSE_BYTES
            return ToolResult.error(f"Response too large: more than {limit} bytes")
        status = response.status_code
        if status >= 500:
            result = self.server_error(response, body, request, tool)
            if result.meta.get(ERROR_REF_META_KEY):
                return result  # masked: the override is ignored
        elif status >= 400:
            result = self.client_error(response, body)
        elif status >= 300:
            location = response.get("Location", "")
            result = ToolResult.error(f"Redirect to {location} was not followed")
        else:
            result = self.success(response, body, tool)
        return self.apply_override(result, override)

    def format_exception(self, exc: BaseException, request: HttpRequest, tool: Tool) -> ToolResult:
        context = get_context(request)
        if context is not None:
            context.pop_override()
        reference = uuid.uuid4().hex
        logger.error(
            "Tool %s failed (error reference %s)", tool.name, reference, exc_info=exc
        )
        got_request_exception.send(sender=type(self), request=request)
        if mcp_settings.mask_errors:
            return ToolResult.error(INTERNAL_SERVER_ERROR, **{ERROR_REF_META_KEY: reference})
        result = ToolResult.error(f"{type(exc).__name__}: {exc}")
        result.meta[ERROR_REF_META_KEY] = reference
        return result

    # -- by status ---------------------------------------------------------------------------

    def success(self, response: HttpResponseBase, body: bytes, tool: Tool) -> ToolResult:
        if not body:
            return ToolResult(content=[])
        kind, charset = media_type(response)
        if is_json_type(kind):
            return self.json_result(response, body, charset, tool)
        if is_text_type(kind):
            return ToolResult(content=[text_block(decode(body, charset))])
        if kind.startswith("image/") or kind.startswith("audio/"):
            block_type = "image" if kind.startswith("image/") else "audio"
            data = base64.b64encode(body).decode("ascii")
            return ToolResult(content=[{"type": block_type, "data": data, "mimeType": kind}])
        return ToolResult.error(f"Unsupported response content type {kind or 'none'}")

    def client_error(self, response: HttpResponseBase, body: bytes) -> ToolResult:
        data = getattr(response, "data", None)
        detail = data.get("detail") if isinstance(data, dict) else None
        if isinstance(detail, ErrorDetail) and detail.code == "tool_error":
            return ToolResult.error(str(detail))
        return ToolResult.error(decode(body, media_type(response)[1]))

    def server_error(
        self, response: HttpResponseBase, body: bytes, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        data = getattr(response, "data", None)
        detail = data.get("detail") if isinstance(data, dict) else None
        if getattr(response, "exception", False) and isinstance(detail, ErrorDetail):
            return ToolResult.error(decode(body, media_type(response)[1]))
        if not mcp_settings.mask_errors:
            return ToolResult.error(decode(body, media_type(response)[1]))
        reference = uuid.uuid4().hex
        logger.error(
            "Tool %s answered %s (error reference %s)", tool.name, response.status_code, reference
        )
        return ToolResult.error(INTERNAL_SERVER_ERROR, **{ERROR_REF_META_KEY: reference})

    # -- JSON --------------------------------------------------------------------------------

    def json_result(
        self, response: HttpResponseBase, body: bytes, charset: str | None, tool: Tool
    ) -> ToolResult:
        text = decode(body, charset)
        renderer = getattr(response, "accepted_renderer", None)
        if type(renderer) is JSONRenderer:
            # Rendered by DRF's plain JSON renderer: response.data tells the shape, and the
            # bytes are already valid JSON, so nothing is parsed again.
            data = response.data  # type: ignore[attr-defined]
            value: Any = RawJSON(text)
            scalar_string = data if isinstance(data, str) else None
        else:
            try:
                parsed = json.loads(text, parse_constant=_reject_constant)
            except ValueError:
                return ToolResult(content=[text_block(text)])
            value = RawJSON(text, parsed)
            scalar_string = parsed if isinstance(parsed, str) else None
        if scalar_string is not None:
            result = ToolResult(content=[text_block(scalar_string)], structured=scalar_string)
        else:
            result = ToolResult(content=[text_block(text)], structured=value)
        if not self.include_structured_content(tool):
            result.structured = NO_STRUCTURED
        return result

    def include_structured_content(self, tool: Tool) -> bool:
        if tool.options.include_structured_content is not None:
            return tool.options.include_structured_content
        return bool(mcp_settings.INCLUDE_STRUCTURED_CONTENT)

    # -- overrides ---------------------------------------------------------------------------

    def apply_override(self, result: ToolResult, override: Override | None) -> ToolResult:
        """Apply what the view stored with ``mcp_output`` (DESIGN §5)."""
        if override is None:
            return result
        if override.content is not KEEP:
            result.content = [dict(block) for block in override.content]
        if not result.is_error and override.structured_content is not KEEP:
            if override.structured_content is None:
                result.structured = NO_STRUCTURED
            else:
                try:
                    result.structured = encode_value(override.structured_content)
                except ResultEncodingError as exc:
                    return ToolResult.error(str(exc))
                if override.content is KEEP:
                    result.content = [text_block(result.structured.text)]
        if override.meta is not KEEP:
            owned = {k: v for k, v in result.meta.items() if k.startswith(SERVER_META_PREFIXES)}
            result.meta = {**(override.meta or {}), **owned}
        if override.annotations:
            for block in result.content:
                block["annotations"] = dict(override.annotations)
        return result


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
