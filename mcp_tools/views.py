"""The MCP endpoint: the Streamable HTTP transport (JSON-RPC over POST), stateless.

A plain Django view, not a DRF APIView: every tool call already pays for DRF's request and
response machinery once, in the tool's own view.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from . import handlers, jsonrpc
from .authentication import authenticate
from .conf import mcp_settings
from .jsonrpc import INVALID_REQUEST, JSONRPCError
from .registry import ToolRegistry
from .registry import registry as default_registry

JSON = "application/json"


class _AllDatabases(frozenset):
    """``_non_atomic_requests`` for every alias: the endpoint never runs in ATOMIC_REQUESTS.

    Each tool call is wrapped on its own, as Django would wrap that view.
    """

    def __contains__(self, alias: object) -> bool:
        return True


def _accepts_json(accept: str) -> bool:
    for item in accept.split(","):
        kind = item.split(";")[0].strip().lower()
        if kind in ("application/json", "application/*", "*/*"):
            return True
    return False


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
        view._non_atomic_requests = _AllDatabases()
        return view

    def post(self, request: HttpRequest) -> HttpResponse:
        request_id = None
        try:
            self.check_transport(request)
            value = jsonrpc.loads(self.read_body(request), max_depth=mcp_settings.MAX_JSON_DEPTH)
            if isinstance(value, list):
                raise JSONRPCError(
                    INVALID_REQUEST, "Invalid Request: batches are not supported", status=400
                )
            if isinstance(value, dict):
                request_id = value.get("id") if isinstance(value.get("id"), str | int) else None
            message = jsonrpc.parse_message(value)
            caller = authenticate(request, self)
            if not message.is_request:
                return HttpResponse(status=202)  # notifications and responses
            call = handlers.Call(
                message=message,
                request=request,
                caller=caller,
                version=handlers.version_of(message, request),
                registry=self.registry or default_registry,
                tags=frozenset(self.tags) if self.tags is not None else None,
            )
            result = handlers.handle(call)
        except JSONRPCError as error:
            response = HttpResponse(
                jsonrpc.error_envelope(request_id, error), status=error.status, content_type=JSON
            )
            for name, value in error.headers.items():
                response[name] = value
            return response
        return HttpResponse(jsonrpc.result_envelope(message.id, result), content_type=JSON)

    def check_transport(self, request: HttpRequest) -> None:
        """Refuse foreign origins, non-JSON bodies and clients that can't read JSON."""
        origin = request.headers.get("Origin")
        if origin and not self.origin_allowed(origin, request):
            raise JSONRPCError(INVALID_REQUEST, "Forbidden: origin not allowed", status=403)
        content_type = (request.content_type or "").lower()
        if content_type != JSON:
            raise JSONRPCError(
                INVALID_REQUEST, "Unsupported Media Type: use application/json", status=415
            )
        accept = request.headers.get("Accept")
        if accept and not _accepts_json(accept):
            raise JSONRPCError(
                INVALID_REQUEST, "Not Acceptable: the client must accept application/json", status=406
            )

    def origin_allowed(self, origin: str, request: HttpRequest) -> bool:
        if origin in mcp_settings.ALLOWED_ORIGINS:
            return True
        return urlsplit(origin).netloc.lower() == request.get_host().lower()

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
