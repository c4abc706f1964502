"""The endpoints the URLconf mounts: where each ``MCPView`` is, and which registries they serve."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from django.urls import Resolver404, URLResolver, get_resolver, get_urlconf, resolve

from ..core.routes import NoPath, iter_routes
from ..resources.registry import ResourceRegistry
from ..resources.registry import registry as default_resource_registry
from ..tools.registry import ToolRegistry
from ..tools.registry import registry as default_registry
from .view import MCPView

__all__ = ["endpoint_at", "endpoint_of", "endpoint_paths", "mounted_endpoints", "served_registries"]


def endpoint_of(callback: object) -> MCPView | None:
    """Return the endpoint a routed ``callback`` serves (made with its ``as_view()``
    arguments), or None when it is no ``MCPView``."""
    view_class = getattr(callback, "view_class", None)
    if isinstance(view_class, type) and issubclass(view_class, MCPView):
        return view_class(**getattr(callback, "view_initkwargs", {}))
    return None


def endpoint_at(path: str, urlconf: str | None = None) -> MCPView | None:
    """Return the endpoint mounted at ``path``, or None when no ``MCPView`` is there."""
    try:
        match = resolve(path, urlconf)
    except Resolver404:
        return None
    endpoint = endpoint_of(match.func)
    if endpoint is not None and endpoint.toolset is None and "toolset" in match.kwargs:
        endpoint.toolset = match.kwargs["toolset"]  # /mcp/toolsets/<toolset>
    return endpoint


def mounted_endpoints(resolver: URLResolver | None = None) -> list[tuple[str, MCPView]]:
    """Return ``(route, endpoint)`` for every ``MCPView`` reachable from ``resolver`` (the
    root URLconf by default)."""
    found = []
    seen: set[int] = set()
    for route in iter_routes(resolver or get_resolver()):
        endpoint = endpoint_of(route.callback)
        # One endpoint routed twice (mcp_tools.urls: /mcp and its toolsets' path) is one.
        if endpoint is not None and id(route.callback) not in seen:
            seen.add(id(route.callback))
            found.append((route.route, endpoint))
    return found


def endpoint_paths(resolver: URLResolver | None = None) -> list[tuple[str, MCPView]]:
    """Return ``(path, endpoint)`` for every ``MCPView`` mounted at a path without
    parameters: the ``PATH_INFO`` that reaches it (no script prefix)."""
    found = []
    for route in iter_routes(resolver or get_resolver()):
        endpoint = endpoint_of(route.callback)
        if endpoint is None:
            continue
        try:
            path, _ = route.resolve({})
        except NoPath:
            continue  # mounted at a path with parameters: no one path to call it at
        found.append((path, endpoint))
    return found


#: The registries each URLconf serves, found once per resolver (a new URLconf is a new one),
#: by kind: ``"tools"``, ``"resources"``.
_served: dict[str, WeakKeyDictionary[URLResolver, tuple[Any, ...]]] = {
    "tools": WeakKeyDictionary(),
    "resources": WeakKeyDictionary(),
}


def _served_by(
    urlconf: str | None, kind: str, default: Any, get: Callable[[MCPView], Any]
) -> tuple[Any, ...]:
    """Return the registries of ``kind`` ``urlconf`` serves, each once: ``default``, then
    what ``get`` returns of every ``MCPView`` it mounts, in URLconf order."""
    resolver = get_resolver(urlconf if urlconf is not None else get_urlconf())
    served = _served[kind].get(resolver)
    if served is None:
        found = [default]
        for _, endpoint in mounted_endpoints(resolver):
            registry = get(endpoint)
            if all(registry is not known for known in found):
                found.append(registry)
        served = _served[kind][resolver] = tuple(found)
    return served


def served_registries(urlconf: str | None = None) -> tuple[ToolRegistry, ...]:
    """Return the registries whose tools ``urlconf`` serves, each once: the default registry,
    then the registry of every other ``MCPView`` it mounts, in URLconf order.

    The default registry is always there, mounted or not: its tools are the project's.
    """
    return _served_by(urlconf, "tools", default_registry, MCPView.get_registry)


def served_resource_registries(urlconf: str | None = None) -> tuple[ResourceRegistry, ...]:
    """Return the resource registries ``urlconf`` serves, each once: the default one, then
    that of every other ``MCPView`` it mounts (``resource_registry=``), in URLconf order."""
    return _served_by(
        urlconf, "resources", default_resource_registry, MCPView.get_resource_registry
    )
