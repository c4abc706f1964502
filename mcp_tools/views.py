"""The MCP endpoint: the Streamable HTTP transport (JSON-RPC over POST), stateless.

A plain Django view, not a DRF APIView: every tool call already pays for DRF's request and
response machinery once, in the tool's own view.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import DisallowedHost
from django.core.signals import got_request_exception
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from . import handlers, jsonrpc, mediatypes, protocol
from .authentication import Caller, authenticate
from .conf import mcp_settings
from .jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, JSONRPCError
from .protocol import Era
from .registry import ToolRegistry
from .registry import registry as default_registry
from .streaming import EVENT_STREAM

JSON = "application/json"


class _AllDatabases(frozenset):
    """``_non_atomic_requests`` for every alias: the endpoint never runs in ATOMIC_REQUESTS.

    Each tool call is wrapped on its own, as Django would wrap that view.
    """

    def __contains__(self, alias: object) -> bool:
        return True


logger = logging.getLogger("mcp_tools")


def error_response(request_id: Any, error: JSONRPCError) -> HttpResponse:
    """Answer a protocol fault: its envelope, its HTTP status and headers."""
    response = HttpResponse(
        jsonrpc.error_envelope(request_id, error), status=error.status, content_type=JSON
    )
    for name, value in error.headers.items():
        response[name] = value
    return response


class MCPView(View):
    """Serve MCP over Streamable HTTP for the tools of a registry (optionally some tags)."""

    http_method_names = ["post"]
    registry: ToolRegistry | None = None
    tags: Iterable[str] | None = None

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        view = super().as_view(**initkwargs)
        # Session callers pass CSRF through DRF's SessionAuthentication, as DRF views do.
        view = csrf_exempt(view)
        view._non_atomic_requests = _AllDatabases()  # type: ignore[attr-defined]
        return view

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            return super().dispatch(request, *args, **kwargs)
        except Exception as exc:
            # A fault of the server (a misconfigured permission class, a broken formatter):
            # logged and reported like any Django error, answered without a traceback.
            reference = uuid.uuid4().hex
            logger.error("The MCP endpoint failed (error reference %s)", reference, exc_info=exc)
            got_request_exception.send(sender=type(self), request=request)
            error = JSONRPCError(
                INTERNAL_ERROR, "Internal error", data={"errorRef": reference}, status=500
            )
            return error_response(None, error)

    def post(self, request: HttpRequest) -> HttpResponseBase:
        try:
            self.check_transport(request)
            value = jsonrpc.loads(self.read_body(request), max_depth=mcp_settings.MAX_JSON_DEPTH)
        except JSONRPCError as error:
            return error_response(None, error)
        if isinstance(value, list):
            return self.batch(request, value)
        return self.single(request, value)

    def single(self, request: HttpRequest, value: Any) -> HttpResponseBase:
        """Answer one JSON-RPC message."""
        request_id = jsonrpc.request_id_of(value)
        try:
            message = jsonrpc.parse_message(value)
            if not message.is_request:
                authenticate(request, self)
                return HttpResponse(status=202)  # notifications and responses
            era = protocol.detect(message, request.META)
            caller = authenticate(request, self)
            result = handlers.handle(self.call(request, message, era, caller, streams=True))
        except JSONRPCError as error:
            return error_response(request_id, error)
        if isinstance(result, HttpResponseBase):
            return result
        return HttpResponse(jsonrpc.result_envelope(message.id, result), content_type=JSON)

    def batch(self, request: HttpRequest, values: list[Any]) -> HttpResponseBase:
        """Answer a JSON-RPC batch, which only 2025-03-26 allows; never streamed."""
        try:
            version = protocol.version_from_header(
                request.META.get(protocol.PROTOCOL_VERSION_HEADER)
            )
            if version != protocol.BATCH_VERSION:
                raise JSONRPCError(
                    INVALID_REQUEST,
                    f"Invalid Request: batches are not supported in protocol version {version}",
                    status=400,
                )
            if not values:
                raise JSONRPCError(INVALID_REQUEST, "Invalid Request: empty batch", status=400)
            caller = authenticate(request, self)
        except JSONRPCError as error:
            return error_response(None, error)
        answers = [
            answer for value in values if (answer := self.batch_item(request, caller, value))
        ]
        if not answers:
            return HttpResponse(status=202)
        return HttpResponse("[" + ",".join(answers) + "]", content_type=JSON)

    def batch_item(self, request: HttpRequest, caller: Caller, value: Any) -> str | None:
        request_id = jsonrpc.request_id_of(value)
        try:
            message = jsonrpc.parse_message(value)
            if not message.is_request:
                return None
            if message.method == "initialize" or protocol.is_modern(message):
                raise JSONRPCError(
                    INVALID_REQUEST, f"Invalid Request: {message.method} cannot be batched"
                )
            era = protocol.detect(message, request.META)
            result = handlers.handle(self.call(request, message, era, caller, streams=False))
        except JSONRPCError as error:
            return jsonrpc.error_envelope(request_id, error)
        return jsonrpc.result_envelope(message.id, result)

    def call(
        self,
        request: HttpRequest,
        message: jsonrpc.Message,
        era: Era,
        caller: Caller,
        *,
        streams: bool,
    ) -> handlers.Call:
        return handlers.Call(
            message=message,
            request=request,
            caller=caller,
            era=era,
            registry=self.registry or default_registry,
            tags=frozenset(self.tags) if self.tags is not None else None,
            can_stream=streams and mediatypes.accepts(request.headers.get("Accept"), EVENT_STREAM),
        )

    def check_transport(self, request: HttpRequest) -> None:
        """Refuse foreign hosts and origins, non-JSON bodies and clients that can't read JSON."""
        try:
            host = request.get_host()
        except DisallowedHost as exc:
            raise JSONRPCError(
                INVALID_REQUEST, "Bad Request: host not allowed", status=400
            ) from exc
        origin = request.headers.get("Origin")
        if origin and not self.origin_allowed(origin, host):
            raise JSONRPCError(INVALID_REQUEST, "Forbidden: origin not allowed", status=403)
        content_type = (request.content_type or "").lower()
        if content_type != JSON:
            raise JSONRPCError(
                INVALID_REQUEST, "Unsupported Media Type: use application/json", status=415
            )
        accept = request.headers.get("Accept")
        if accept and not mediatypes.accepts(accept, JSON):
            raise JSONRPCError(
                INVALID_REQUEST,
                "Not Acceptable: the client must accept application/json",
                status=406,
            )

    def origin_allowed(self, origin: str, host: str) -> bool:
        if origin in mcp_settings.ALLOWED_ORIGINS:
            return True
        try:
            netloc = urlsplit(origin).netloc
        except ValueError:  # e.g. an unbalanced IPv6 bracket
            return False
        return netloc.lower() == host.lower()

    def read_body(self, request: HttpRequest) -> bytes:
        """Read the body with a bound, before anything parses it."""
        limit = mcp_settings.MAX_REQUEST_BYTES
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        too_large = JSONRPCError(
            INVALID_REQUEST, f"Payload Too Large: more than {limit} bytes", status=413
        )
        if declared > limit:
            raise too_large
        body = request.read(limit + 1)
        if len(body) > limit:
            raise too_large
        # What HttpRequest.body caches after reading: DRF's CSRF check reads request.POST.
        request._body = body
        return body
