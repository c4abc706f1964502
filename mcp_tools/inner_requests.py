"""The inner request: the view's own request, made by the same caller as the /mcp request."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import urlencode

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest

from .arguments import SplitArguments, query_value
from .conf import mcp_settings
from .context import ToolCallContext, attach_context
from .tools import Tool

#: Attributes that middleware set on the /mcp request and the view may read.
COPIED_ATTRIBUTES = ("user", "session", "LANGUAGE_CODE", "urlconf")


def wsgi_str(text: str) -> str:
    """Return ``text`` as a WSGI server puts a URL part in the environ (PEP 3333).

    The server percent-decodes the URL to bytes and hands them on as Latin-1 characters;
    Django reads them back as UTF-8. A decoded path placed as it is would fail past Latin-1
    (``١``) or reach the view mangled (``é`` as ``%E9``).
    """
    return text.encode("utf-8").decode("latin-1")


def script_name(outer: HttpRequest) -> str:
    """Return the /mcp request's ``SCRIPT_NAME`` in the WSGI form (ASGI's is decoded)."""
    name = outer.META.get("SCRIPT_NAME", "")
    return name if isinstance(outer, WSGIRequest) else wsgi_str(name)


def build_inner_request(
    outer: HttpRequest,
    tool: Tool,
    arguments: SplitArguments,
    context: ToolCallContext,
    *,
    identity: tuple[Any, Any] | None = None,
) -> WSGIRequest:
    """Build the request the tool's view receives, as a direct HTTP call would make it.

    ``identity`` is ``(user, token)`` to hand over DRF authentication the endpoint already did.
    Raises ``routes.NoPath`` when the path arguments do not reach the tool's route.

    The view is the tool's own: ``resolver_match`` is its route's match of the path (what
    ``resolve()`` makes of it), so no argument can send the call to another view.
    """
    path, match = tool.route.resolve(arguments.path)
    meta = outer.META
    environ: dict[str, Any] = {
        key: meta[key] for key in mcp_settings.FORWARDED_HEADERS if key in meta
    }
    query = [(k, v) for k, value in arguments.query.items() for v in query_value(value)]
    payload = b""
    if arguments.body is not None:
        payload = json.dumps(arguments.body, ensure_ascii=False).encode()
        environ["CONTENT_TYPE"] = "application/json"
    environ.update(
        {
            "REQUEST_METHOD": tool.method,
            "SCRIPT_NAME": script_name(outer),
            "PATH_INFO": wsgi_str(path),
            "QUERY_STRING": urlencode(query) if query else "",
            "HTTP_ACCEPT": "*/*",
            "CONTENT_LENGTH": str(len(payload)),
            "wsgi.input": io.BytesIO(payload),
            "wsgi.url_scheme": outer.scheme or "http",
        }
    )
    inner = WSGIRequest(environ)
    for name in COPIED_ATTRIBUTES:
        if hasattr(outer, name):
            setattr(inner, name, getattr(outer, name))
    inner.resolver_match = match
    if identity is not None:
        # DRF's forced-authentication hook (what APIRequestFactory uses): the view's Request
        # takes this user and token instead of authenticating the same credentials again.
        inner._force_auth_user, inner._force_auth_token = identity  # type: ignore[attr-defined]
    attach_context(inner, context)
    return inner
