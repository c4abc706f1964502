"""Views set up for introspection: an instance for one action, with a synthetic request.

Many views pick their serializer, queryset or paginator from ``self.request`` (the user, the
method, the action). To read those at start-up the view gets a request of the tool's method
from an anonymous user, as DRF's own schema generator does.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from rest_framework.mixins import ListModelMixin
from rest_framework.request import Request
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from ..routes import Route


class IntrospectionError(Exception):
    """The view could not say what it reads or writes without a real request."""


def synthetic_request(method: str, path: str = "/") -> Request:
    """Return a DRF request of ``method`` from an anonymous user, with no body."""
    request = Request(RequestFactory().generic(method, path))
    request.user = AnonymousUser()
    return request


def view_for(
    view_class: type[APIView],
    route: Route,
    method: str,
    action: str | None,
    request: Request | None = None,
) -> Any:
    """Return a view instance set up as DRF sets it up to handle ``method`` (and ``action``).

    ``request`` is the DRF request it handles; by default a synthetic anonymous one.
    """
    view = view_class(**getattr(route.callback, "initkwargs", {}))
    view.request = request if request is not None else synthetic_request(method, "/" + route.route)
    view.args, view.kwargs = (), {}
    view.format_kwarg = None
    view.headers = {}
    if action is not None and isinstance(view, ViewSetMixin):
        view.action = action
        view.action_map = dict(getattr(route.callback, "actions", {}) or {})
    return view


def is_list_view(view_class: type[APIView], method: str, action: str | None) -> bool:
    """Return whether the tool lists a collection (its filters and paginator apply)."""
    if action is not None:
        return action == "list"
    return method == "GET" and issubclass(view_class, ListModelMixin)


def serializer_class_of(view: Any) -> Any:
    """Return the serializer class the view names, or None.

    ``get_serializer_class()`` where the view has it (a ``GenericAPIView``), else the
    ``serializer_class`` attribute a plain ``APIView`` may carry, read as drf-spectacular
    reads it. Exceptions of the view's own code propagate.
    """
    get_serializer_class = getattr(view, "get_serializer_class", None)
    if callable(get_serializer_class):
        return get_serializer_class()
    return getattr(view, "serializer_class", None)


def serializer_of(view: Any) -> BaseSerializer | None:
    """Return the view's request serializer, or None when the view declares none.

    Raises ``IntrospectionError`` when the view fails to name it.
    """
    try:
        if callable(getattr(view, "get_serializer", None)):
            return view.get_serializer()
        serializer_class = serializer_class_of(view)
        if serializer_class is None or isinstance(serializer_class, BaseSerializer):
            return serializer_class
        return serializer_class()
    except AssertionError as exc:
        if getattr(view, "serializer_class", None) is None and "serializer_class" in str(exc):
            return None  # a GenericAPIView without a serializer: DRF's own assertion
        raise IntrospectionError(f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:
        raise IntrospectionError(f"{type(exc).__name__}: {exc}") from exc
