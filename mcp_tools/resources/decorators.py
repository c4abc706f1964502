"""``@mcp_resource``: declare a GET view (or one GET handler or action) a resource."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.core.exceptions import ImproperlyConfigured
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from ..tools.decorators import drf_view
from ..tools.decorators import expose as tools_expose
from ..tools.tool import ViewPart
from .registry import ResourceRegistry
from .registry import registry as default_registry
from .resource import ResourceOptions

__all__ = ["expose", "mcp_resource", "resource_options"]

V = TypeVar("V")


def resource_options(uri_template: Any = None, **options: Any) -> ResourceOptions:
    """Validate what a declaration says and return it as ``ResourceOptions``."""
    for key, value in {"uri_template": uri_template, **options}.items():
        if value is not None and not isinstance(value, str):
            raise ImproperlyConfigured(f"@mcp_resource({key}=...) takes a string; got {value!r}")
    return ResourceOptions(uri_template=uri_template, **options)


def mcp_resource(
    uri_template: str | None = None,
    *,
    uri: str | None = None,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    registry: ResourceRegistry | None = None,
) -> Callable[[V], V]:
    """Declare a DRF view's GET (a view class, its ``get`` or a ViewSet's ``list`` or
    ``retrieve``) an MCP resource: a template of its URL's parameters (``"orders://{pk}"``),
    or, for a URL without parameters, a resource at ``uri``. Both default to the view's app
    label as scheme and its route as path (docs/resources.md). Returns the view unchanged.
    """
    options = resource_options(
        uri_template,
        uri=uri,
        name=name,
        title=title,
        description=description,
        mime_type=mime_type,
    )
    target = registry if registry is not None else default_registry

    def decorator(view: V) -> V:
        if not callable(view):
            raise ImproperlyConfigured(f"@mcp_resource cannot decorate {view!r}")
        target.register(view, options)
        return view

    return decorator


def expose(view: V, name: str | None = None, *, resource: Any = None, **options: Any) -> V:
    """Declare a DRF view whose source you don't own as tools (``mcp_tools.tools``'s
    ``expose``), or, with ``resource=``, as a resource: ``resource=True`` for the defaults,
    a URI template (``"orders://{pk}"``), or a dict of ``@mcp_resource``'s arguments.
    ``actions=`` (a ViewSet's GET actions) or ``methods=["GET"]`` choose the handler, e.g.
    ``expose(OrderViewSet, resource="orders://{pk}", actions=["retrieve"])``
    (docs/resources.md#views-you-dont-own). Returns the view unchanged.
    """
    if resource is None or resource is False:
        return tools_expose(view, name, **options)
    registry = options.pop("registry", None)
    actions = options.pop("actions", None)
    methods = options.pop("methods", None)
    if options:
        raise ImproperlyConfigured(
            f"expose(..., resource=...) takes name, actions, methods and registry besides; "
            f"got {', '.join(sorted(options))}"
        )
    given = {} if resource is True else resource if isinstance(resource, dict) else None
    if given is None:
        given = {"uri_template": resource}
    declared = resource_options(**{"name": name, **given})
    target = registry if registry is not None else default_registry
    drf: Any = drf_view(view)
    if isinstance(drf, type) and issubclass(drf, APIView) and issubclass(drf, ViewSetMixin):
        keys: list[object] = [ViewPart(drf, action) for action in _names(actions)] or [drf]
    elif isinstance(drf, type) and methods is not None:
        keys = [ViewPart(drf, method.upper()) for method in _names(methods)]
    else:
        keys = [drf]
    for key in keys:
        target.register(key, declared, again=True)
    return view


def _names(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)
