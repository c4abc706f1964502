"""The endpoint's refusals: 401 with a challenge that tells the truth, 403 with the
permission's message or ``insufficient_scope``, 429 with ``Retry-After`` (docs/security.md)."""

from __future__ import annotations

import math
from typing import Protocol, cast

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from ..protocol.jsonrpc import THROTTLED, UNAUTHORIZED, JSONRPCError

__all__ = ["challenge", "insufficient_scope", "missing_scopes", "refusal", "refused_credentials"]

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


class Resource(Protocol):
    """What a refusal reads of the endpoint that refuses (``MCPView``): its OAuth metadata."""

    def get_resource_metadata_url(self, request: HttpRequest) -> str | None: ...


class ScopedResource(Resource, Protocol):
    """An endpoint whose challenges also name the scopes it asks for (``MCPView``)."""

    def get_oauth_scopes(self) -> list[str]: ...


def quote(value: str) -> str:
    """Return ``value`` as the content of an RFC 9110 quoted-string (no CR or LF)."""
    value = str(value).replace("\r", "").replace("\n", "")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def bearer_challenge(params: dict[str, str]) -> str:
    """Return a ``Bearer`` challenge with ``params`` as quoted auth-params (RFC 6750 §3)."""
    if not params:
        return "Bearer"
    return "Bearer " + ", ".join(f'{key}="{quote(value)}"' for key, value in params.items())


def challenge(request: Request, endpoint: ScopedResource, error: str | None = None) -> str | None:
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


def unauthenticated(
    request: Request, endpoint: ScopedResource, detail: str, sent: bool
) -> JSONRPCError:
    """Return the refusal of a caller without valid credentials: 401 with the challenge.

    ``sent``: whether the request carried credentials (the challenge then says
    ``error="invalid_token"``, RFC 6750 §3.1). Without any challenge to send, 403, as DRF.
    """
    header = challenge(request, endpoint, "invalid_token" if sent else None)
    if header is None:
        return JSONRPCError(UNAUTHORIZED, detail, status=403)
    return JSONRPCError(UNAUTHORIZED, detail, status=401, headers={"WWW-Authenticate": header})


def insufficient_scope(http: HttpRequest, endpoint: Resource, scopes: list[str]) -> JSONRPCError:
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


def missing_scopes(authenticator: object, request: Request, view: object) -> list[str] | None:
    """Ask ``authenticator`` which scopes ``view``'s permission classes need of the token.

    Authentication classes of scoped tokens (``mcp_tools.contrib.oauth``) answer through
    ``insufficient_scope(request, view)``: the scopes the operation needs when they are all
    the token lacks, else None. Other classes have no such method: None.
    """
    hook = getattr(authenticator, "insufficient_scope", None)
    return hook(request, view) if hook is not None else None


def refusal(
    request: Request, endpoint: ScopedResource, exc: exceptions.APIException
) -> JSONRPCError:
    """Return the endpoint's answer to what its policy raised (``MCPView.initial``).

    DRF's exceptions, answered as the MCP authorization rules want them: 401 with a
    challenge that tells the truth (RFC 6750), 403 with the permission's message (and an
    ``insufficient_scope`` challenge when the token lacks only scopes), 429 with
    ``Retry-After``.
    """
    if isinstance(exc, exceptions.Throttled):
        wait = getattr(exc, "wait", None)
        headers = {"Retry-After": str(math.ceil(wait))} if wait is not None else {}
        return JSONRPCError(THROTTLED, str(exc.detail), status=429, headers=headers)
    if isinstance(exc, exceptions.AuthenticationFailed):
        return unauthenticated(request, endpoint, str(exc.detail), sent=True)
    if request.successful_authenticator is None:
        if request._request.META.get("HTTP_AUTHORIZATION"):
            return unauthenticated(request, endpoint, refused_credentials(request), sent=True)
        if isinstance(exc, exceptions.NotAuthenticated):
            return unauthenticated(request, endpoint, str(exc.detail), sent=False)
    scopes = missing_scopes(request.successful_authenticator, request, endpoint)
    if scopes:
        return insufficient_scope(request._request, endpoint, scopes)
    code = exc.get_codes()
    data = {"code": code} if code != exc.default_code and isinstance(code, str) else None
    return JSONRPCError(UNAUTHORIZED, str(exc.detail), data, status=403)


def refused_credentials(request: Request) -> str:
    """Say why credentials that no authentication class accepted were refused.

    A class that saw its own kind of credentials may say why, as django-oauth-toolkit's do
    ("The access token has expired.").
    """
    explained = getattr(request, "oauth2_error", None) or {}
    return str(explained.get("error_description") or NOT_ACCEPTED)
