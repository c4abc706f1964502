"""Views set up for introspection: an instance for one action, with a synthetic request.

Many views pick their serializer, queryset or paginator from ``self.request`` (the user, the
method, the action). To read those at start-up the view gets a request of the tool's method
from an anonymous user, as DRF's own schema generator does, and ``swagger_fake_view = True``,
the flag drf-spectacular and drf-yasg set for views that guard ``get_queryset()`` with it.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import unquote_to_bytes

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import FieldDoesNotExist
from django.core.handlers.wsgi import WSGIRequest
from django.db import DatabaseError
from django.db.models import Field, Model
from rest_framework.mixins import ListModelMixin
from rest_framework.request import Request
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from ..core.routes import Route
from . import adapters


class IntrospectionError(Exception):
    """The view could not say what it reads or writes without a real request."""


def synthetic_request(method: str, path: str = "/") -> Request:
    """Return a DRF request of ``method`` from an anonymous user, with no body.

    Its environ is the one Django's ``RequestFactory`` makes, built here so that serving
    requests never imports ``django.test`` (and with it unittest and the test server).
    """
    environ = {
        "REQUEST_METHOD": method.upper(),
        # As RequestFactory (and a WSGI server) puts a path: its bytes as Latin-1 characters.
        "PATH_INFO": unquote_to_bytes(path).decode("iso-8859-1"),
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "REMOTE_ADDR": "127.0.0.1",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_COOKIE": "",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
        "wsgi.multiprocess": True,
        "wsgi.multithread": False,
        "wsgi.run_once": False,
    }
    request = Request(WSGIRequest(environ))
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
    view: Any = view_class(**getattr(route.callback, "initkwargs", {}))
    if request is None:
        request = synthetic_request(method, "/" + route.route)
        view.swagger_fake_view = True  # schema generation, not a request (see above)
    view.request = request
    view.args, view.kwargs = (), {}
    view.format_kwarg = None
    view.headers = {}
    if not hasattr(request, "accepted_renderer"):
        negotiate(view, request)
    if action is not None and isinstance(view, ViewSetMixin):
        view.action = action
        view.action_map = dict(getattr(route.callback, "actions", {}) or {})
    return view


def negotiate(view: APIView, request: Request) -> None:
    """Give a synthetic request what ``APIView.initial()`` gives every real one: the
    negotiated renderer and media type, and the API version.

    Views read them outside a response too: NetBox's and Nautobot's serializer context and
    paginator look for ``text/csv`` in ``request.accepted_media_type``, and drf-spectacular's
    generator negotiates for an ``AcceptHeaderVersioning`` view before reading it.
    """
    request.accepted_renderer, request.accepted_media_type = view.perform_content_negotiation(
        request, force=True
    )
    # A version the view refuses is left unset, as it was before.
    with contextlib.suppress(Exception):
        request.version, request.versioning_scheme = view.determine_version(request)


@dataclass(frozen=True, eq=False)
class ViewMethod:
    """One HTTP method (and ViewSet action) of a routed DRF view: what a tool is made of.

    Naming, the schemas, the definition, visibility and the checks all read the view
    through it; its introspection view is set up once.
    """

    route: Route
    view_class: type[APIView]
    method: str
    action: str | None
    #: The method or action that handles it (its docstring describes the tool).
    handler: Callable[..., Any] | None = None
    #: The paths of the view class's other routes (``Route.template``): where an action
    #: routed by hand sits among them says what it does (``performs``).
    siblings: tuple[str, ...] = ()

    @cached_property
    def view(self) -> Any:
        """The view set up for this method with a synthetic anonymous request (``view_for``)."""
        return view_for(self.view_class, self.route, self.method, self.action)

    def view_with(self, request: Request | None = None) -> Any:
        """Return a new view set up for this method to handle ``request`` (a caller's; by
        default a synthetic anonymous one): for code that may keep state on it."""
        return view_for(self.view_class, self.route, self.method, self.action, request)

    @cached_property
    def model(self) -> type[Model] | None:
        """The model the view works on, or None (``model_of``)."""
        return model_of(self.view)

    @property
    def is_list(self) -> bool:
        """Whether the tool lists a collection (its filters and paginator apply)."""
        if self.action is not None:
            return self.performs == "list" or adapters.lists(self.view_class, self.action)
        return self.method == "GET" and issubclass(self.view_class, ListModelMixin)

    @cached_property
    def performs(self) -> str | None:
        """What a ViewSet action does, by its method and route, not its Python name.

        A standard action (``list``, ``retrieve``, …) is itself. An action routed by hand
        (``as_view({"get": "listing_view"})``, as Wagtail's API routes its views) is read
        from its route among the class's other routes: on a path that ends in a URL
        parameter it retrieves, updates or destroys by its method; on the path another
        route extends by a URL parameter (the collection) it lists or creates; on a static
        segment after the collection it is that segment's word (``find``). A DRF
        ``@action``, and anything else, keeps its own name: None.
        """
        if self.action is None:
            return None
        if self.action in STANDARD_ACTIONS:
            return self.action
        if hasattr(self.handler, "mapping"):  # a DRF @action: routed by its own url_path
            return None
        return routed_action(self.method, self.route.template, self.siblings)


#: The standard actions of a ViewSet (DRF's mixins).
STANDARD_ACTIONS = ("list", "retrieve", "create", "update", "partial_update", "destroy")
#: What an action routed by hand does, by its method, on a detail path and on a collection.
DETAIL_ACTIONS = {
    "GET": "retrieve",
    "PUT": "update",
    "PATCH": "partial_update",
    "DELETE": "destroy",
}
COLLECTION_ACTIONS = {"GET": "list", "POST": "create"}


def _segments(template: str) -> list[str]:
    return [part for part in template.strip("/").split("/") if part]


def _is_parameter(segment: str) -> bool:
    return segment.startswith("<") and segment.endswith(">")


def routed_action(method: str, template: str, siblings: tuple[str, ...]) -> str | None:
    """Return what an action routed by hand at ``template`` does among its ``siblings``
    (``ViewMethod.performs``), or None when its route doesn't say."""
    segments = _segments(template)
    if segments and _is_parameter(segments[-1]):
        return DETAIL_ACTIONS.get(method)
    others = [_segments(sibling) for sibling in siblings]
    if any(
        len(other) == len(segments) + 1 and other[:-1] == segments and _is_parameter(other[-1])
        for other in others
    ):
        return COLLECTION_ACTIONS.get(method)
    if segments and any(other == segments[:-1] for other in others):
        word = re.sub(r"[^A-Za-z0-9]+", "_", segments[-1]).strip("_").lower()
        return word or None
    return None


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


def database_unready(exc: BaseException | None) -> bool:
    """Return whether ``exc``, or an exception that led to it, is the database's own: a
    table missing before ``migrate``, a database that can't be reached."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, DatabaseError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def model_of(view: Any) -> type[Model] | None:
    """Return the model a view works on, or None, looked for as drf-spectacular looks.

    The ``queryset`` attribute first; else the model of the serializer's ``Meta``; else what
    ``get_queryset()`` returns for the synthetic request, which may run the view's own code
    and fail (an anonymous user has no orders): then None.
    """
    for find in (_queryset_model, _serializer_model, _get_queryset_model):
        try:
            model = find(view)
        except Exception:
            continue
        if isinstance(model, type) and issubclass(model, Model):
            return model
    return None


def _queryset_model(view: Any) -> Any:
    return getattr(getattr(view, "queryset", None), "model", None)


def _serializer_model(view: Any) -> Any:
    serializer_class = serializer_class_of(view)
    return getattr(getattr(serializer_class, "Meta", None), "model", None)


def _get_queryset_model(view: Any) -> Any:
    get_queryset = getattr(view, "get_queryset", None)
    return getattr(get_queryset(), "model", None) if callable(get_queryset) else None


def lookup_model_field(model: type[Model], lookup: str) -> Field | None:
    """Return the model field a lookup (``pk``, ``slug``, ``author__username``) ends on."""
    field: Any = None
    for part in lookup.split("__"):
        if field is not None:
            model = field.related_model
            if model is None:
                return None  # a transform (``name__lower``): no field to type it by
        try:
            field = model._meta.pk if part == "pk" else model._meta.get_field(part)
        except FieldDoesNotExist:
            return None
    return field if isinstance(field, Field) else None
