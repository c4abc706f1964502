"""Formatters: a view's HttpResponse, or the exception it raised, becomes a tool result.

The contract is docs/results.md. ``ResponseFormatter`` is the default; a project names another
class in ``MCP_TOOLS["FORMATTER_CLASS"]``, or an endpoint in its ``formatter_class``.
"""

from __future__ import annotations

import base64
import logging
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import HttpRequest, HttpResponseBase
from rest_framework.exceptions import ErrorDetail
from rest_framework.renderers import JSONRenderer

from ..conf import mcp_settings
from ..core import errors
from ..core.context import KEEP, Override, get_context
from ..core.encoding import ResultEncodingError, encode_value, parse_json, without_whitespace
from ..exceptions import ClientDisconnected, InputUnavailable, ToolError
from ..protocol import mediatypes
from ..protocol.jsonrpc import RawJSON, json_text
from ..protocol.results import ERROR_REF_META_KEY, NO_STRUCTURED, ToolResult, text_block
from ..tools.tool import Tool

__all__ = ["BaseFormatter", "ResponseFormatter"]

logger = logging.getLogger("mcp_tools")

TEXT_TYPES = frozenset(
    {"application/xml", "application/javascript", "application/yaml", "application/x-ndjson"}
)
#: ``_meta`` keys the server owns: an override's ``meta`` never removes them.
SERVER_META_PREFIXES = ("django-mcp-tools/", "io.modelcontextprotocol/")


class ResponseTooLarge(Exception):
    """The body is longer than ``MAX_RESPONSE_BYTES``."""


def response_too_large() -> ToolResult:
    """Return the result of a body, or an answer, past ``MAX_RESPONSE_BYTES``."""
    return ToolResult.error(
        f"Response too large: more than {mcp_settings.MAX_RESPONSE_BYTES} bytes"
    )


def media_type(response: HttpResponseBase) -> tuple[str, str | None]:
    """Return the media type without parameters, lower-cased, and the charset parameter."""
    return mediatypes.parse(response.get("Content-Type"))


def is_json_type(kind: str) -> bool:
    """Return whether ``kind`` is JSON: ``application/json`` or any ``+json`` type."""
    return kind == "application/json" or kind.endswith("+json")


def is_text_type(kind: str) -> bool:
    """Return whether ``kind`` is read as text (``image/svg+xml`` included, via ``+xml``)."""
    return kind.startswith("text/") or kind in TEXT_TYPES or kind.endswith("+xml")


def read_body(response: HttpResponseBase, limit: int) -> bytes:
    """Read at most ``limit`` bytes of the body, streaming or not; raise past it."""
    if not response.streaming:
        body = response.content  # type: ignore[attr-defined]
        if len(body) > limit:
            raise ResponseTooLarge
        return body
    declared = response.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ResponseTooLarge  # a file past the bound: not one block of it is read
    chunks: list[bytes] = []
    size = 0
    for chunk in response:  # type: ignore[attr-defined]
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def decode(body: bytes, charset: str | None) -> str:
    """Decode with the response charset (UTF-8 by default), replacing invalid bytes."""
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")


#: The codes DRF renders ``ToolError`` and its subclasses with: their message is the text.
TOOL_ERROR_CODES = frozenset({ToolError.default_code, InputUnavailable.default_code})


class BaseFormatter:
    """Turn the outcome of one view call into a ``ToolResult``."""

    #: Whether a binary body other than an image or audio is an embedded blob resource:
    #: None, as ``BINARY_AS_RESOURCE`` says; a resource read sets it (docs/resources.md).
    binary_as_resource: bool | None = None

    def format_response(
        self, response: HttpResponseBase, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        raise NotImplementedError

    def format_exception(self, exc: BaseException, request: HttpRequest, tool: Tool) -> ToolResult:
        raise NotImplementedError


class ResponseFormatter(BaseFormatter):
    """The result contract of docs/results.md."""

    def format_response(
        self, response: HttpResponseBase, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        override = self.take_override(request)
        try:
            body = read_body(response, mcp_settings.MAX_RESPONSE_BYTES)
        except ResponseTooLarge:
            return self.apply_override(response_too_large(), override)
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
            result = self.success(response, body, request, tool)
        return self.apply_override(result, override)

    def format_exception(self, exc: BaseException, request: HttpRequest, tool: Tool) -> ToolResult:
        override = self.take_override(request)
        if isinstance(exc, ToolError):
            # Outside DRF's exception handler (a plain Django view): still the view's message.
            return self.apply_override(ToolResult.error(str(exc.detail)), override)
        if isinstance(exc, ClientDisconnected):
            # The view stopped as asked; nobody is left to read the result.
            logger.info("Tool %s stopped: the client disconnected", tool.name)
            return ToolResult.error("Client disconnected")
        if isinstance(exc, SuspiciousOperation | BadRequest):
            return self.apply_override(self.bad_request(exc, request), override)
        reference = errors.report("Tool %s failed", tool.name, exc=exc, request=request)
        if mcp_settings.mask_errors:
            return ToolResult.masked(reference)
        result = ToolResult.error(f"{type(exc).__name__}: {exc}", **{ERROR_REF_META_KEY: reference})
        return self.apply_override(result, override)

    def bad_request(self, exc: Exception, request: HttpRequest) -> ToolResult:
        """Answer what Django's handler answers with 400: the request was malformed.

        A client error, not a fault of the server: no error reference, and logged as Django
        logs it (``django.security.<name>`` for a ``SuspiciousOperation``). Its message may
        name a file path (``SuspiciousFileOperation``): it is shown only unmasked.
        """
        name = type(exc).__name__
        if isinstance(exc, SuspiciousOperation):
            logging.getLogger(f"django.security.{name}").error(
                str(exc), exc_info=exc, extra={"status_code": 400, "request": request}
            )
        else:
            logging.getLogger("django.request").warning(
                "Bad Request: %s", request.path, extra={"status_code": 400, "request": request}
            )
        if mcp_settings.mask_errors:
            return ToolResult.error(f"Bad Request ({name})")
        return ToolResult.error(f"Bad Request ({name}): {exc}")

    def take_override(self, request: HttpRequest) -> Override | None:
        """Consume the override the view stored; a second formatting pass sees none."""
        context = get_context(request)
        return context.pop_override() if context is not None else None

    # -- by status ---------------------------------------------------------------------------

    def success(
        self, response: HttpResponseBase, body: bytes, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        """Format a 2xx body by its content type (docs/results.md, by content type)."""
        if not body:
            return ToolResult(content=[text_block(self.confirmation(response, tool))])
        kind, charset = media_type(response)
        if is_json_type(kind):
            result = self.json_result(response, body, charset, tool)
            hint = page_hint(response, result, tool)
            if hint:
                result.content.append(text_block(hint))
            return result
        if is_text_type(kind):
            return ToolResult(content=[text_block(decode(body, charset))])
        if kind.startswith(("image/", "audio/")):
            block_type = "image" if kind.startswith("image/") else "audio"
            data = base64.b64encode(body).decode("ascii")
            return ToolResult(content=[{"type": block_type, "data": data, "mimeType": kind}])
        as_resource = self.binary_as_resource
        if as_resource or (as_resource is None and mcp_settings.BINARY_AS_RESOURCE):
            return ToolResult(content=[self.resource_block(body, kind, request)])
        return ToolResult.error(f"Unsupported response content type {kind or 'none'}")

    def confirmation(self, response: HttpResponseBase, tool: Tool) -> str:
        """Return the text of a success with no body: something the model can quote."""
        verb = "Deleted" if getattr(tool, "method", None) == "DELETE" else "Done"
        status = f"{response.status_code} {response.reason_phrase}"
        if response.status_code == 204:  # the reason says it: "No Content"
            return f"{verb} ({status})."
        return f"{verb} ({status}, no content)."

    def resource_block(self, body: bytes, kind: str, request: HttpRequest) -> dict[str, Any]:
        """Return an embedded blob resource whose uri is the view's absolute URL."""
        try:
            uri = request.build_absolute_uri()
        except KeyError:  # a request without a host (built by hand, not by the endpoint)
            uri = request.get_full_path()
        resource = {
            "uri": uri,
            "mimeType": kind or "application/octet-stream",
            "blob": base64.b64encode(body).decode("ascii"),
        }
        return {"type": "resource", "resource": resource}

    def client_error(self, response: HttpResponseBase, body: bytes) -> ToolResult:
        """Return the 4xx body as error text; a ``ToolError`` gives just its message."""
        data = getattr(response, "data", None)
        detail = data.get("detail") if isinstance(data, dict) else None
        if isinstance(detail, ErrorDetail) and detail.code in TOOL_ERROR_CODES:
            return ToolResult.error(str(detail))
        return ToolResult.error(decode(body, media_type(response)[1]))

    def server_error(
        self, response: HttpResponseBase, body: bytes, request: HttpRequest, tool: Tool
    ) -> ToolResult:
        """Keep a 5xx body only when DRF rendered it from an ``APIException``; else mask it."""
        data = getattr(response, "data", None)
        detail = data.get("detail") if isinstance(data, dict) else None
        if getattr(response, "exception", False) and isinstance(detail, ErrorDetail):
            return ToolResult.error(decode(body, media_type(response)[1]))
        if not mcp_settings.mask_errors:
            return ToolResult.error(decode(body, media_type(response)[1]))
        reference = errors.report("Tool %s answered %s", tool.name, response.status_code)
        return ToolResult.masked(reference)

    # -- JSON --------------------------------------------------------------------------------

    def json_result(
        self, response: HttpResponseBase, body: bytes, charset: str | None, tool: Tool
    ) -> ToolResult:
        """Return the body as text and, unless turned off, its value as structured content."""
        text = decode(body, charset)
        renderer = getattr(response, "accepted_renderer", None)
        # The body's bytes are spliced into the answer only when they are known to be one
        # line of strict JSON: a line break (indented JSON) would end an SSE data line.
        one_line = "\n" not in text and "\r" not in text
        if one_line and type(renderer) is JSONRenderer and renderer.strict:
            # Rendered by DRF's plain JSON renderer, unindented: response.data tells the
            # shape, and the bytes are valid JSON already, so nothing is parsed again.
            data = response.data  # type: ignore[attr-defined]
            value = RawJSON(text)
            scalar_string = data if isinstance(data, str) else None
        else:
            try:
                parsed = parse_json(text, nan=mcp_settings.JSON_NAN)
            except ResultEncodingError as exc:
                return ToolResult.error(str(exc))
            except ValueError:
                return ToolResult(content=[text_block(text)])  # not JSON after all: text
            # Otherwise re-encoded, compact, as when NaN/Infinity literals were replaced.
            strict = one_line and "NaN" not in text and "Infinity" not in text
            value = RawJSON(text, parsed) if strict else encode_value(parsed)
            scalar_string = parsed if isinstance(parsed, str) else None
        if scalar_string is not None:
            # The string itself, unquoted and never parsed, even when it looks like JSON.
            return self.with_structured(
                ToolResult([text_block(scalar_string)], scalar_string), tool
            )
        if not one_line and tool.include_structured_content and mcp_settings.JSON_TEXT == "compact":
            # Indented: the structured copy carries the value, so the model doesn't pay for
            # the indentation twice (docs/results.md).
            text = without_whitespace(text)
        return self.with_structured(ToolResult([text_block(text)], value), tool)

    @staticmethod
    def with_structured(result: ToolResult, tool: Tool) -> ToolResult:
        if not tool.include_structured_content:
            result.structured = NO_STRUCTURED
        return result

    # -- overrides ---------------------------------------------------------------------------

    def apply_override(self, result: ToolResult, override: Override | None) -> ToolResult:
        """Apply what the view stored with ``mcp_output`` (docs/results.md, overrides)."""
        if override is None:
            return result
        nan = mcp_settings.JSON_NAN
        try:
            if override.content is not KEEP:
                result.content = encode_value(list(override.content), nan=nan).value
            if not result.is_error and override.structured_content is not KEEP:
                self.apply_structured(result, override)
            if override.meta is not KEEP:
                meta = encode_value(override.meta or {}, nan=nan).value
                # Server-owned keys come from the server only: a view can't set or drop them.
                mine = {k: v for k, v in meta.items() if not k.startswith(SERVER_META_PREFIXES)}
                result.meta = {**mine, **_owned(result.meta)}
        except ResultEncodingError as exc:
            return ToolResult.error(str(exc), **_owned(result.meta))
        if override.annotations:
            for block in result.content:
                block["annotations"] = dict(override.annotations)
        return result

    def apply_structured(self, result: ToolResult, override: Override) -> None:
        """Replace the structured value; without a content override, the text follows it."""
        value = override.structured_content
        if value is None:
            result.structured = NO_STRUCTURED
            return
        if isinstance(value, str):
            # A Python string stays a string (never parsed), and its text is the string itself,
            # as for a JSON string scalar.
            result.structured = value
            text = value
        else:
            result.structured = encode_value(value, nan=mcp_settings.JSON_NAN)
            text = result.structured.text
        if override.content is KEEP:
            result.content = [text_block(text)]


#: The links of a DRF page, and the words that name them in a hint.
PAGE_LINKS = (("next", "Next page"), ("previous", "Previous page"))


def page_hint(response: HttpResponseBase, result: ToolResult, tool: Tool) -> str:
    """Return the arguments of the next and previous pages, as this tool takes them.

    ``Next page: {"page": 3}. Previous page: {"page": 1}.`` A DRF page names its neighbours
    by URL; a model would have to map the URL back to the tool's arguments.
    """
    if not getattr(tool, "query_params", ()) or result.is_error:
        return ""
    data = getattr(response, "data", None)
    if not isinstance(data, dict):
        return ""
    hints = []
    for key, words in PAGE_LINKS:
        link = data.get(key)
        if key not in data or not (link is None or isinstance(link, str)):
            return ""  # not a page of DRF's paginators
        if isinstance(link, str):
            hints.append(f"{words}: {json_text(page_arguments(link, tool))}.")
    return " ".join(hints)


def page_arguments(link: str, tool: Tool) -> dict[str, Any]:
    """Read a page link's query string as the tool's own arguments (typed as declared: an
    array argument with every value its key repeats)."""
    properties = tool.input_schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for name, value in parse_qsl(urlsplit(link).query, keep_blank_values=True):
        if name not in tool.query_params:
            continue
        schema = properties.get(name) if isinstance(properties.get(name), dict) else {}
        declared = schema.get("type")
        types = set(declared) if isinstance(declared, list) else {declared}
        items = schema.get("items")
        item_types = items.get("type") if isinstance(items, dict) else None
        typed: str | int = value
        if ("integer" in types or item_types == "integer") and value.isascii() and value.isdigit():
            typed = int(value)
        if "array" in types:
            arguments.setdefault(name, []).append(typed)
        else:
            arguments[name] = typed
    return arguments


def _owned(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k.startswith(SERVER_META_PREFIXES)}
