"""The caller of the /mcp endpoint, as a DRF view would authenticate it, and who it is to
the views its tool calls reach (identity handover, docs/dispatch.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from ..core.request_headers import read_headers

if TYPE_CHECKING:
    from rest_framework.views import APIView

__all__ = [
    "Caller",
    "authentication_of",
    "caller_key",
    "picks_own_authenticators",
    "quota_key",
    "unauthenticated_user",
]

#: No ``as_view()`` arguments: a view made as its class declares it.
NO_ARGUMENTS: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Caller:
    """Who called the endpoint, and with which authentication classes."""

    user: Any
    auth: object
    authentication_classes: tuple[type, ...]
    #: Hand the user over to every view, whatever its authentication classes: for an
    #: operator's own calls (``manage.py mcp_call --user``), never for a request.
    forced: bool = False
    #: The authentication class instance that accepted the credentials (None: anonymous).
    authenticator: object = None
    #: What the credential may do short of the user's full power (a DOT token's scopes);
    #: None for one without scopes (``auth.credentials.scopes_of``).
    scopes: frozenset[str] | None = None
    #: A task's run: its view gets ``task_identity``, what it saw when the task was made.
    in_task: bool = False
    task_identity: tuple[Any, object] | None = None
    #: ``identity_for`` per view authentication (``authentication_of``), worked out once
    #: per caller (its /mcp request).
    _identities: dict[type[APIView] | tuple[type, ...], tuple[Any, object] | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def acting_as(cls, user: Any) -> Caller:
        """Return a caller that every view sees as ``user`` (an operator's command)."""
        return cls(user=user, auth=None, authentication_classes=(), forced=True)

    @classmethod
    def for_task(
        cls,
        user: Any,
        auth: object,
        scopes: frozenset[str] | None,
        identity: tuple[Any, object] | None,
    ) -> Caller:
        """Return the caller of a task's run (docs/tasks.md#who-runs-the-view): who called
        the endpoint, with the credential and scopes it made the task with, and the
        ``identity`` the tool's view saw then, handed over to it (None: the view's own
        authentication runs, and finds no credential in the worker's request)."""
        return cls(
            user=user,
            auth=auth,
            authentication_classes=(),
            scopes=scopes,
            in_task=True,
            task_identity=identity,
        )

    @property
    def is_authenticated(self) -> bool:
        return bool(getattr(self.user, "is_authenticated", False))

    def identity_for(self, view: AuthenticatingView) -> tuple[Any, object] | None:
        """Return ``(user, token)`` to hand over to a view (a tool's) whose authentication
        classes are the endpoint's.

        Anonymous callers are never handed over: the view's own classes then run on the copied
        credentials and refuse them exactly as a direct call would (401, not 403).
        """
        key = view.authentication
        try:
            return self._identities[key]
        except KeyError:
            identity = self._identities[key] = self._identity_for(key)
            return identity

    def _identity_for(
        self, authentication: type[APIView] | tuple[type, ...]
    ) -> tuple[Any, object] | None:
        if self.in_task:
            return self.task_identity
        if not self.is_authenticated:
            return None
        if self.forced:
            return self.user, self.auth
        # A view that picks its authenticators itself (its key is its class) runs them.
        if authentication != self.authentication_classes:
            return None
        return self.user, self.auth


class AuthenticatingView(Protocol):
    """What ``identity_for`` reads of a view (a ``Tool``): ``authentication_of`` it."""

    @property
    def authentication(self) -> type[APIView] | tuple[type, ...]: ...


def picks_own_authenticators(view_class: type[APIView]) -> bool:
    """Return whether ``view_class`` overrides DRF's ``get_authenticators()``: it may read
    its request to choose, so only its own instance can say which classes run."""
    # Imported here: DRF imports this module while it reads DEFAULT_AUTHENTICATION_CLASSES
    # (BearerTokenAuthentication), before rest_framework.views can be imported.
    from rest_framework.views import APIView

    return (
        view_class.get_authenticators is not APIView.get_authenticators
        or declared_classes(view_class, "authentication_classes") is None
    )


def declared_classes(
    view_class: type[APIView], name: str, initkwargs: Mapping[str, Any] = NO_ARGUMENTS
) -> tuple[type, ...] | None:
    """Return the classes a view of ``view_class`` made with ``initkwargs`` (its
    ``as_view()`` arguments, which set its instance's attributes) declares as ``name``
    (``authentication_classes``, ``permission_classes``); None when its instance computes
    them (a property, as Nautobot's TokenViewSet adds Basic authentication to the
    defaults)."""
    value = initkwargs[name] if name in initkwargs else getattr(view_class, name, ())
    return tuple(value) if isinstance(value, list | tuple) else None


def authentication_of(
    view_class: type[APIView], initkwargs: Mapping[str, Any] = NO_ARGUMENTS
) -> type[APIView] | tuple[type, ...]:
    """Return what decides how a view of ``view_class`` made with ``initkwargs``
    authenticates a request: its classes, or the view class itself when it picks its own
    authenticators or its classes can't be read (a key, equal when alike)."""
    classes = declared_classes(view_class, "authentication_classes", initkwargs)
    if classes is None or picks_own_authenticators(view_class):
        return view_class
    return classes


def caller_key(caller: Caller) -> str:
    """Name the caller: its user (model and primary key), or ``anonymous``."""
    if not caller.is_authenticated:
        return "anonymous"
    user = caller.user
    return f"{user._meta.label_lower}:{user.pk}"


def quota_key(request: HttpRequest, caller: Caller) -> str:
    """Name whose share a request counts against where each caller has one
    (``MAX_TASKS_PER_CALLER``, ``MAX_STREAMS_PER_CALLER``): an authenticated caller's own,
    an anonymous one's client address as DRF's throttles read it (``NUM_PROXIES``), so that
    one anonymous client can't take every other's share.

    Only the share: an anonymous task is still found by its id alone (its ``caller``), so
    a client whose address changes (a mobile network) keeps it."""
    if caller.is_authenticated:
        return caller_key(caller)
    read_headers(request)  # get_ident() reads them: at a third of Django's price
    # get_ident() reads only the request's headers and META, which Django's request has:
    # wrapping it in DRF's Request (its parsers, its negotiator) would cost more than this.
    return f"anonymous@{BaseThrottle().get_ident(request)}"[:200]  # type: ignore[arg-type]


def unauthenticated_user() -> Any:
    """Return DRF's user of an unauthenticated request (``UNAUTHENTICATED_USER``)."""
    factory: Any = api_settings.UNAUTHENTICATED_USER
    return factory() if factory else None
