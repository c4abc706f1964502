"""The caller of the /mcp endpoint, authenticated as a DRF view would authenticate it.

Also the endpoint's refusals (401 with a challenge that tells the truth, 403, 429) and
``BearerTokenAuthentication``, DRF tokens for clients that can only send ``Bearer``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, TokenAuthentication
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.settings import api_settings

from .protocol.jsonrpc import THROTTLED, UNAUTHORIZED, JSONRPCError


@dataclass(frozen=True)
class Caller:
    """Who called the endpoint, and with which authentication classes."""

    user: Any
    auth: Any
    authentication_classes: tuple[type, ...]
    #: Hand the user over to every view, whatever its authentication classes: for an
    #: operator's own calls (``manage.py mcp_call --user``), never for a request.
    forced: bool = False
    #: The authentication class instance that accepted the credentials (None: anonymous).
    authenticator: Any = None

    @classmethod
    def acting_as(cls, user: Any) -> Caller:
        """Return a caller that every view sees as ``user`` (an operator's command)."""
        return cls(user=user, auth=None, authentication_classes=(), forced=True)

    @property
    def is_authenticated(self) -> bool:
        return bool(getattr(self.user, "is_authenticated", False))

    def identity_for(self, view_class: type[Any]) -> tuple[Any, Any] | None:
        """Return ``(user, token)`` to hand over to a view with the same authentication classes.

        Anonymous callers are never handed over: the view's own classes then run on the copied
        credentials and refuse them exactly as a direct call would (401, not 403).
        """
        if not self.is_authenticated:
            return None
        if self.forced:
            return self.user, self.auth
        if tuple(getattr(view_class, "authentication_classes", ())) != self.authentication_classes:
            return None
        # Imported here: DRF imports this module while it reads DEFAULT_AUTHENTICATION_CLASSES
        # (BearerTokenAuthentication), before rest_framework.views can be imported.
        from rest_framework.views import APIView

        if view_class.get_authenticators is not APIView.get_authenticators:
            return None  # the view chooses its authenticators itself: let them run
        return self.user, self.auth


#: The longest ``Authorization`` header read at all: gunicorn's default bound on a header
#: field (8190 bytes) and a little more; a longer one is refused before any class runs.
MAX_AUTHORIZATION_BYTES = 8192

NOT_ACCEPTED = (
    "Invalid credentials: no authentication method of this endpoint accepts the "
    "Authorization header."
)
TOO_LONG = (
    f"Invalid credentials: the Authorization header is longer than {MAX_AUTHORIZATION_BYTES} bytes."
)


class BearerTokenAuthentication(TokenAuthentication):
    """Read DRF tokens sent as ``Authorization: Bearer <key>``, as many MCP clients send them.

    DRF's ``TokenAuthentication`` with the keyword ``Bearer``: the same ``authtoken`` keys,
    and its challenge is ``Bearer``. Listed after an OAuth class, it takes the keys that
    class does not know (docs/security.md).
    """

    keyword = "Bearer"


def quote(value: str) -> str:
    """Return ``value`` as the content of an RFC 9110 quoted-string (no CR or LF)."""
    value = str(value).replace("\r", "").replace("\n", "")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def bearer_challenge(params: dict[str, str]) -> str:
    """Return a ``Bearer`` challenge with ``params`` as quoted auth-params (RFC 6750 §3)."""
    if not params:
        return "Bearer"
    return "Bearer " + ", ".join(f'{key}="{quote(value)}"' for key, value in params.items())


def challenge(request: Request, endpoint: Any, error: str | None = None) -> str | None:
    """Return the ``WWW-Authenticate`` value of a 401 from ``endpoint``, or None.

    With OAuth metadata: ``Bearer`` with ``resource_metadata`` and the endpoint's ``scope``
    (and ``error``, when credentials were sent and refused). Without it: the challenge of
    the first authentication class that has one (``Token`` for ``TokenAuthentication``), so
    no client is sent off to an OAuth flow the site does not offer; None when none has one
    (``SessionAuthentication`` alone), where DRF answers 403.
    """
    url = endpoint.get_resource_metadata_url(request._request)
    if url is not None:
        params = {"error": error} if error else {}
        scopes = endpoint.get_oauth_scopes()
        if scopes:
            params["scope"] = " ".join(scopes)
        params["resource_metadata"] = url
        return bearer_challenge(params)
    for authenticator in request.authenticators or ():
        header = cast(BaseAuthentication, authenticator).authenticate_header(request)
        if header:
            return header
    return None


def unauthenticated(request: Request, endpoint: Any, detail: str, sent: bool) -> JSONRPCError:
    """Return the refusal of a caller without valid credentials: 401 with the challenge.

    ``sent``: whether the request carried credentials (the challenge then says
    ``error="invalid_token"``, RFC 6750 §3.1). Without any challenge to send, 403, as DRF.
    """
    header = challenge(request, endpoint, "invalid_token" if sent else None)
    if header is None:
        return JSONRPCError(UNAUTHORIZED, detail, status=403)
    return JSONRPCError(UNAUTHORIZED, detail, status=401, headers={"WWW-Authenticate": header})


def insufficient_scope(http: HttpRequest, endpoint: Any, scopes: list[str]) -> JSONRPCError:
    """Return the refusal of a token that lacks ``scopes``: 403 with an insufficient_scope
    challenge naming every scope the operation needs (RFC 6750 §3.1)."""
    params = {"error": "insufficient_scope", "scope": " ".join(scopes)}
    url = endpoint.get_resource_metadata_url(http)
    if url is not None:
        params["resource_metadata"] = url
    detail = f"Insufficient scope: this needs the scopes {' '.join(scopes)}"
    return JSONRPCError(
        UNAUTHORIZED, detail, status=403, headers={"WWW-Authenticate": bearer_challenge(params)}
    )


def missing_scopes(authenticator: Any, request: Request, view: Any) -> list[str] | None:
    """Ask ``authenticator`` which scopes ``view``'s permission classes need of the token.

    Authentication classes of scoped tokens (``mcp_tools.contrib.oauth``) answer through
    ``insufficient_scope(request, view)``: the scopes the operation needs when they are all
    the token lacks, else None. Other classes have no such method: None.
    """
    hook = getattr(authenticator, "insufficient_scope", None)
    return hook(request, view) if hook is not None else None


def _refusal(request: Request, endpoint: Any, exc: exceptions.APIException | None) -> JSONRPCError:
    sent = bool(request._request.META.get("HTTP_AUTHORIZATION"))
    if isinstance(exc, exceptions.AuthenticationFailed):
        return unauthenticated(request, endpoint, str(exc.detail), sent=True)
    if request.successful_authenticator is None:
        if sent:
            # A class that saw its own kind of credentials may say why it refused them, as
            # django-oauth-toolkit's do ("The access token has expired.").
            explained = getattr(request, "oauth2_error", None) or {}
            detail = explained.get("error_description") or NOT_ACCEPTED
            return unauthenticated(request, endpoint, str(detail), sent=True)
        if exc is None or isinstance(exc, exceptions.NotAuthenticated):
            detail = exceptions.NotAuthenticated.default_detail if exc is None else exc.detail
            return unauthenticated(request, endpoint, str(detail), sent=False)
    scopes = missing_scopes(request.successful_authenticator, request, endpoint)
    if scopes:
        return insufficient_scope(request._request, endpoint, scopes)
    detail = str(exc.detail) if exc is not None else str(exceptions.PermissionDenied.default_detail)
    return JSONRPCError(UNAUTHORIZED, detail, status=403)


def authenticate(request: HttpRequest, endpoint: Any) -> Caller:
    """Authenticate and authorize the endpoint's caller; raise a 401, 403 or 429 error.

    Runs the endpoint's authentication, permission and throttle classes as a DRF view runs
    its own (``get_authenticators``, ``get_permissions``, ``get_throttles``), once per /mcp
    request; the tool's own view then counts each call against its own throttles. An
    ``Authorization`` header that none of its classes accepts is refused (401), never served
    as an anonymous call; an endpoint with no classes at all leaves credentials to the views.
    """
    authenticators = endpoint.get_authenticators()
    permissions = endpoint.get_permissions()
    throttles = endpoint.get_throttles()
    too_long = len(request.META.get("HTTP_AUTHORIZATION", "")) > MAX_AUTHORIZATION_BYTES
    # APIClient.force_authenticate() hands DRF's Request a user through these attributes.
    forced = hasattr(request, "_force_auth_user") or hasattr(request, "_force_auth_token")
    open_endpoint = not authenticators and not throttles and not forced
    if open_endpoint and not too_long and all(type(p) is AllowAny for p in permissions):
        # An open endpoint that reads no credentials: what DRF would conclude, without
        # building its request (the views authenticate the copied credentials themselves).
        return Caller(user=_unauthenticated_user(), auth=None, authentication_classes=())
    # DRF's Request writes the user it authenticated onto the HttpRequest. Keep the one the
    # middleware set: the view's request copies it, and a view with other authentication
    # classes (SessionAuthentication alone, say) must not see a token user as its session's.
    middleware_user = request.__dict__.get("user", _MISSING)
    # The JSON parser serves only DRF's CSRF check for session callers (it reads .POST).
    drf_request = Request(request, parsers=[JSONParser()], authenticators=authenticators)
    try:
        if too_long:
            raise unauthenticated(drf_request, endpoint, TOO_LONG, sent=True)
        user = drf_request.user
        # An endpoint without authentication classes reads no credentials: its views do.
        refused = authenticators and drf_request.successful_authenticator is None
        if refused and "HTTP_AUTHORIZATION" in request.META:
            raise _refusal(drf_request, endpoint, None)
        for permission in permissions:
            if not permission.has_permission(drf_request, endpoint):
                raise _refusal(drf_request, endpoint, None)
        check_throttles(drf_request, endpoint, throttles)
    except exceptions.APIException as exc:
        raise _refusal(drf_request, endpoint, exc) from exc
    finally:
        if middleware_user is _MISSING:
            request.__dict__.pop("user", None)
        else:
            request.user = middleware_user
    classes = tuple(type(authenticator) for authenticator in authenticators)
    return Caller(
        user=user,
        auth=drf_request.auth,
        authentication_classes=classes,
        authenticator=drf_request.successful_authenticator,
    )


def check_throttles(request: Request, endpoint: Any, throttles: list[Any]) -> None:
    """Raise 429 (with ``Retry-After``) when a throttle of the endpoint refuses the request."""
    waits = [
        throttle.wait() for throttle in throttles if not throttle.allow_request(request, endpoint)
    ]
    if waits:
        known = [wait for wait in waits if wait is not None]
        wait = max(known) if known else None
        detail = str(exceptions.Throttled(wait).detail)
        headers = {"Retry-After": str(math.ceil(wait))} if wait is not None else {}
        raise JSONRPCError(THROTTLED, detail, status=429, headers=headers)


def _unauthenticated_user() -> Any:
    """Return DRF's user of an unauthenticated request (``UNAUTHENTICATED_USER``)."""
    factory: Any = api_settings.UNAUTHENTICATED_USER
    return factory() if factory else None


_MISSING = object()
