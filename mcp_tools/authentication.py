"""The caller of the /mcp endpoint, authenticated as a DRF view would authenticate it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.views import APIView

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

    @classmethod
    def acting_as(cls, user: Any) -> Caller:
        """Return a caller that every view sees as ``user`` (an operator's command)."""
        return cls(user=user, auth=None, authentication_classes=(), forced=True)

    @property
    def is_authenticated(self) -> bool:
        return bool(getattr(self.user, "is_authenticated", False))

    def identity_for(self, view_class: type[APIView]) -> tuple[Any, Any] | None:
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
        if view_class.get_authenticators is not APIView.get_authenticators:
            return None  # the view chooses its authenticators itself: let them run
        return self.user, self.auth


def _refusal(request: Request, exc: exceptions.APIException | None = None) -> JSONRPCError:
    missing = isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed) or (
        exc is None and request.successful_authenticator is None
    )
    if missing:
        # 401 with a Bearer challenge whatever DRF's first authentication class would say:
        # MCP clients start their authorization flow from it.
        challenge = "Bearer"
        if isinstance(exc, exceptions.AuthenticationFailed):
            challenge = 'Bearer error="invalid_token"'
        detail = (
            str(exc.detail) if exc is not None else str(exceptions.NotAuthenticated.default_detail)
        )
        return JSONRPCError(
            UNAUTHORIZED, detail, status=401, headers={"WWW-Authenticate": challenge}
        )
    detail = str(exc.detail) if exc is not None else str(exceptions.PermissionDenied.default_detail)
    return JSONRPCError(UNAUTHORIZED, detail, status=403)


def authenticate(request: HttpRequest, endpoint: Any) -> Caller:
    """Authenticate and authorize the endpoint's caller; raise a 401, 403 or 429 error.

    Runs the endpoint's authentication, permission and throttle classes as a DRF view runs
    its own (``get_authenticators``, ``get_permissions``, ``get_throttles``), once per /mcp
    request; the tool's own view then counts each call against its own throttles.
    """
    authenticators = endpoint.get_authenticators()
    # DRF's Request writes the user it authenticated onto the HttpRequest. Keep the one the
    # middleware set: the view's request copies it, and a view with other authentication
    # classes (SessionAuthentication alone, say) must not see a token user as its session's.
    middleware_user = request.__dict__.get("user", _MISSING)
    # The JSON parser serves only DRF's CSRF check for session callers (it reads .POST).
    drf_request = Request(request, parsers=[JSONParser()], authenticators=authenticators)
    try:
        user = drf_request.user
        for permission in endpoint.get_permissions():
            if not permission.has_permission(drf_request, endpoint):
                raise _refusal(drf_request)
        check_throttles(drf_request, endpoint)
    except exceptions.APIException as exc:
        raise _refusal(drf_request, exc) from exc
    finally:
        if middleware_user is _MISSING:
            request.__dict__.pop("user", None)
        else:
            request.user = middleware_user
    classes = tuple(type(authenticator) for authenticator in authenticators)
    return Caller(user=user, auth=drf_request.auth, authentication_classes=classes)


def check_throttles(request: Request, endpoint: Any) -> None:
    """Raise 429 (with ``Retry-After``) when a throttle of the endpoint refuses the request."""
    waits = [
        throttle.wait()
        for throttle in endpoint.get_throttles()
        if not throttle.allow_request(request, endpoint)
    ]
    if waits:
        known = [wait for wait in waits if wait is not None]
        wait = max(known) if known else None
        detail = str(exceptions.Throttled(wait).detail)
        headers = {"Retry-After": str(math.ceil(wait))} if wait is not None else {}
        raise JSONRPCError(THROTTLED, detail, status=429, headers=headers)


_MISSING = object()
