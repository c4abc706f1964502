"""The inner request: the view's own request, made by the same caller as the /mcp request."""

from __future__ import annotations

import functools
import io
import json
from typing import Any
from urllib.parse import urlencode

from django.core.handlers.wsgi import LimitedStream, WSGIRequest
from django.http import HttpRequest
from django.http.request import HttpHeaders
from django.utils.functional import cached_property

from ..conf import mcp_settings
from ..core.context import ToolCallContext, attach_context
from ..core.prototypes import Prototype
from ..core.request_headers import headers_of, remembers
from .arguments import SplitArguments, query_value
from .plans import CallPlan

#: Attributes the skipped middleware set on the /mcp request, carried to the view's request
#: (``DISPATCH = "middleware"``): the user, the session, the messages, the language.
COPIED_ATTRIBUTES = ("user", "auser", "session", "_messages", "LANGUAGE_CODE", "urlconf")

#: ``META`` keys of the /mcp request that are not headers but describe the same client and
#: server, as the WSGI server set them (PEP 3333, RFC 3875).
CLIENT_META = frozenset(
    {
        "REMOTE_ADDR",
        "REMOTE_HOST",
        "REMOTE_USER",
        "AUTH_TYPE",
        "SERVER_NAME",
        "SERVER_PORT",
        "SERVER_PROTOCOL",
        "HTTPS",
    }
)

#: Headers of the transport, not of the client's request to the view: the view's request
#: has its own body, media types, encoding and method; MCP's own headers, a resumed
#: stream's, the connection's (hop-by-hop, RFC 9110 §7.6.1), the conditions on the /mcp
#: response (RFC 9110 §13) and method overrides never reach the view.
TRANSPORT_HEADERS = frozenset(
    {
        "HTTP_ACCEPT",
        "HTTP_ACCEPT_ENCODING",
        "HTTP_LAST_EVENT_ID",
        "HTTP_CONNECTION",
        "HTTP_KEEP_ALIVE",
        "HTTP_PROXY_CONNECTION",
        "HTTP_TE",
        "HTTP_TRAILER",
        "HTTP_TRANSFER_ENCODING",
        "HTTP_UPGRADE",
        "HTTP_EXPECT",
        "HTTP_IF_MATCH",
        "HTTP_IF_NONE_MATCH",
        "HTTP_IF_MODIFIED_SINCE",
        "HTTP_IF_UNMODIFIED_SINCE",
        "HTTP_IF_RANGE",
        "HTTP_RANGE",
        # The method is the tool's: no override a middleware could honour.
        "HTTP_X_HTTP_METHOD_OVERRIDE",
        "HTTP_X_HTTP_METHOD",
        "HTTP_X_METHOD_OVERRIDE",
    }
)


class InnerRequest(WSGIRequest):
    """The view's request: a ``WSGIRequest`` whose ``headers`` cost a third of Django's
    (``core.request_headers``), since DRF reads them on every call."""

    @cached_property
    def headers(self) -> HttpHeaders:  # type: ignore[override]
        return headers_of(self.META)


#: What each view's request has of its own, never taken from a template: its environ (the
#: same dict as ``META``) and the stream of its body.
PER_CALL = frozenset({"environ", "META", "_stream"})


class RequestTemplate:
    """What Django's ``WSGIRequest`` constructor derives from the environ items that every
    call of a tool without path arguments shares: its path, script name, method and content
    type (``path``, ``path_info``, ``method``, ``content_type``, ``content_params``), and
    what it writes back into the environ (the decoded ``PATH_INFO`` and ``SCRIPT_NAME``).

    Made from the first call's own request, built by the constructor; a later call whose
    environ has the same items gets a copy of these attributes (``core.prototypes``) instead
    of running the constructor again (about 3 us of its 3.5;
    docs/performance.md#the-call-plan). ``tests/pipeline/test_inner_requests.py`` pins that
    a copy equals what the constructor makes, for each Django version the suite runs.
    """

    __slots__ = ("key", "prototype", "written")

    #: The environ items the constructor reads, so the key of a template.
    KEYS = ("SCRIPT_NAME", "PATH_INFO", "REQUEST_METHOD", "CONTENT_TYPE")

    def __init__(self, key: tuple[Any, ...], request: InnerRequest) -> None:
        #: The environ items it was made from, before the constructor wrote to them.
        self.key = key
        #: Its own copies of the request's lists and dicts (``content_params``), so the
        #: request it was made from shares none of them.
        self.prototype = Prototype(request, left_out=PER_CALL)
        meta = request.META
        self.written = {key: meta[key] for key in ("PATH_INFO", "SCRIPT_NAME")}

    @property
    def attributes(self) -> dict[str, Any]:
        """The attributes each request copies."""
        return self.prototype.attributes

    @staticmethod
    def key_of(environ: dict[str, Any]) -> tuple[Any, ...]:
        return tuple([environ.get(key) for key in RequestTemplate.KEYS])

    def request(self, environ: dict[str, Any], length: int) -> InnerRequest:
        """Return the view's request of ``environ`` (whose body is ``length`` bytes)."""
        environ.update(self.written)
        stream = LimitedStream(environ["wsgi.input"], length)
        return self.prototype.copy(environ=environ, META=environ, _stream=stream)


def new_request(environ: dict[str, Any], length: int, plan: CallPlan | None) -> InnerRequest:
    """Return the view's request of ``environ`` (a body of ``length`` bytes): from the
    ``plan``'s template when it has one for these environ items, else built by Django's
    constructor and kept as the plan's template. ``plan`` is None for a request whose path
    comes from path arguments, which change from call to call: built each time."""
    if plan is None:
        return InnerRequest(environ)
    key = RequestTemplate.key_of(environ)
    template = plan.request_template
    if template is not None and template.key == key:
        return template.request(environ, length)
    request = InnerRequest(environ)
    # A charset makes the constructor read the query string (Django's encoding setter),
    # which may refuse it (TooManyFieldsSent): such a request is built every time, so
    # that every call fails alike.
    if "charset" not in (request.content_params or {}):
        plan.request_template = RequestTemplate(key, request)
    return request


def carries(key: str) -> bool:
    """Return whether the ``META`` key ``key`` of the /mcp request reaches the view's request."""
    if key.startswith("HTTP_"):
        return key not in TRANSPORT_HEADERS and not key.startswith("HTTP_MCP_")
    return key in CLIENT_META


#: ``carries()`` of each key seen so far: header names repeat from request to request.
#: Bounded, so that a client inventing header names can't grow it (``remembers``).
_CARRIED: dict[str, bool] = {}


def client_environ(meta: dict[str, Any]) -> dict[str, Any]:
    """Return what of the /mcp request's ``META`` a direct request by the same client would
    carry: its headers (``Authorization``, ``Cookie``, ``Host``, ``X-Forwarded-*``, the
    project's own such as ``X-Tenant-ID``) and the client's address, less the transport's.
    """
    known = _CARRIED
    try:
        return {key: value for key, value in meta.items() if known[key]}
    except KeyError:  # a key not seen yet
        known.update((key, carries(key)) for key in meta if remembers(known, key))
        return {key: value for key, value in meta.items() if carries(key)}


@functools.cache
def own_attributes() -> frozenset[str]:
    """Return the attributes every request has of its own, never carried over."""
    blank = WSGIRequest({"REQUEST_METHOD": "GET", "wsgi.input": io.BytesIO()})
    return frozenset(vars(blank)) | {"resolver_match"}


def carried_attributes(outer: HttpRequest, *, every: bool) -> dict[str, Any]:
    """Return the attributes middleware set on ``outer`` that the view's request carries.

    ``every``: each public attribute the /mcp request's middleware set (a tenant, a site, a
    verified user), for a view no middleware runs for (``DISPATCH = "direct"``). Else only
    those of the middleware the chain skips (``COPIED_ATTRIBUTES``): the rest runs again.
    """
    found = vars(outer)
    if not every:
        return {name: found[name] for name in COPIED_ATTRIBUTES if name in found}
    own = own_attributes()
    cls = type(outer)
    return {
        name: value
        for name, value in found.items()
        if name not in own
        # What the request class computes and caches (GET, COOKIES, headers): the /mcp
        # request's own, never the view's.
        and not hasattr(cls, name)
        and (not name.startswith("_") or name in COPIED_ATTRIBUTES)
    }


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
    plan: CallPlan,
    arguments: SplitArguments,
    context: ToolCallContext,
    *,
    identity: tuple[Any, object] | None = None,
    query_string: str | None = None,
) -> InnerRequest:
    """Build the request the tool's view receives, as a direct HTTP call would make it.

    ``identity`` is ``(user, token)`` to hand over DRF authentication the endpoint already did.
    ``query_string``: the query as given (a followed redirect's), in place of the arguments'.
    Raises ``routes.NoPath`` when the path arguments do not reach the tool's route.

    The view is the tool's own: ``resolver_match`` is its route's match of the path (what
    ``resolve()`` makes of it), so no argument can send the call to another view.
    """
    path, match = plan.tool.route.resolve(arguments.path)
    environ = client_environ(outer.META)
    environ.update(plan.environ)  # the method and Accept of every call of the tool
    query = arguments.query
    payload = b""
    if arguments.body is not None:
        payload = json.dumps(arguments.body, ensure_ascii=False).encode()
        environ["CONTENT_TYPE"] = plan.media_type
    environ["SCRIPT_NAME"] = script_name(outer)
    environ["PATH_INFO"] = wsgi_str(path)
    if query_string is not None:
        environ["QUERY_STRING"] = wsgi_str(query_string)
    else:
        environ["QUERY_STRING"] = (
            urlencode([(k, v) for k, value in query.items() for v in query_value(value)])
            if query
            else ""
        )
    environ["CONTENT_LENGTH"] = str(len(payload))
    environ["wsgi.input"] = io.BytesIO(payload)
    environ["wsgi.url_scheme"] = outer.scheme or "http"
    # The path of a tool without path arguments is the same at every call: a template's.
    inner = new_request(environ, len(payload), None if arguments.path else plan)
    inner.__dict__.update(carried_attributes(outer, every=mcp_settings.DISPATCH == "direct"))
    inner.resolver_match = match
    if identity is not None:
        # DRF's forced-authentication hook (what APIRequestFactory uses): the view's Request
        # takes this user and token instead of authenticating the same credentials again.
        inner._force_auth_user, inner._force_auth_token = identity  # type: ignore[attr-defined]
    attach_context(inner, context)
    return inner
