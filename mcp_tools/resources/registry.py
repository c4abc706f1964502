"""The resource registry: ``@mcp_resource`` declarations, resolved against the URLconf.

A declaration is recorded twice over: as a GET tool of the registry's own ``ToolRegistry``
(so a resource's view is found, routed, planned and run exactly as a tool's is), and as
the ``ResourceOptions`` that make that tool a resource. Tools of this registry are never
listed by ``tools/list``: only the endpoint's tool registry is.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from ..tools.registry import RoutedTools, ToolRegistry
from ..tools.tool import Tool, ToolOptions
from .resource import Resource, ResourceOptions, variables_of

__all__ = [
    "ResourceRegistry",
    "RoutedResources",
    "capabilities",
    "registry",
    "registry_of",
    "served_resources",
]

#: The scheme a resource URI must never have: a file of the server's is no view's.
#: Compared with the URI's parsed scheme, so ``file:/etc/x`` (no ``//``) is refused too.
FILE_SCHEME = "file"


class RoutedResources:
    """The resources resolved from one URLconf, by name, in URLconf order."""

    def __init__(self, routed: RoutedTools, resources: list[Resource]) -> None:
        #: The tools that read them (the key of their catalog: ``resources.state``).
        self.routed = routed
        self.by_name: dict[str, Resource] = {each.name: each for each in resources}

    def __iter__(self) -> Iterator[Resource]:
        return iter(self.by_name.values())

    def __len__(self) -> int:
        return len(self.by_name)


class ResourceRegistry:
    """Hold the ``@mcp_resource`` declarations and resolve them into resources per URLconf."""

    def __init__(self) -> None:
        self.tools = ToolRegistry()
        self._options: dict[object, ResourceOptions] = {}
        self._resolved: WeakKeyDictionary[RoutedTools, RoutedResources] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def register(self, obj: object, options: ResourceOptions, *, again: bool = False) -> None:
        """Record a declaration; the resources appear when routes are next resolved."""
        for address in (options.uri, options.uri_template):
            if address is not None and urlsplit(address).scheme.lower() == FILE_SCHEME:
                raise ImproperlyConfigured(
                    f"@mcp_resource({address!r}): a resource URI never uses file:; give "
                    "it a scheme of the site's own (the default is the app's label)"
                )
        self.tools.register(obj, ToolOptions(name=options.name, methods=("GET",)), again=again)
        self._options[obj] = options

    def clear(self) -> None:
        self.tools.clear()

    def resources(self, urlconf: str | None = None) -> RoutedResources:
        """Return the resources of ``urlconf`` (default: the current request's, else
        ROOT_URLCONF). Raises ``ImproperlyConfigured`` when one can't be built."""
        routed = self.tools.tools(urlconf)
        found = self._resolved.get(routed)
        if found is None:
            with self._lock:
                found = self._resolved.get(routed)
                if found is None:
                    made = [self._resource(tool) for tool in routed if tool.method == "GET"]
                    found = self._resolved[routed] = RoutedResources(routed, made)
        return found

    def _resource(self, tool: Tool) -> Resource:
        options = self._options[tool.declared_by]
        parameters = tool.route.parameters
        address = options.uri_template if parameters else (options.uri or options.uri_template)
        if address is None:
            address = default_address(tool)
        elif parameters and set(variables_of(address)) != set(parameters):
            raise ImproperlyConfigured(
                f"@mcp_resource({address!r}) on {tool.view_class.__qualname__}: its variables "
                f"must be the URL's parameters ({', '.join(parameters)})"
            )
        elif not parameters and variables_of(address):
            raise ImproperlyConfigured(
                f"@mcp_resource({address!r}) on {tool.view_class.__qualname__}: the URL "
                "takes no parameters, so the URI can have no {variables}"
            )
        return Resource(
            tool=tool,
            name=tool.name,
            address=address,
            is_template=bool(parameters),
            title=options.title,
            description=options.description,
            mime_type=options.mime_type,
        )


def default_address(tool: Tool) -> str:
    """Return a resource's URI (template) when its declaration gives none: the view's app
    label as the scheme, then its route with ``{parameter}`` for each parameter."""
    config = apps.get_containing_app_config(tool.view_class.__module__)
    scheme = (config.label if config is not None else "site").replace("_", "-")
    path = tool.route.template.strip("/").replace("<", "{").replace(">", "}")
    return f"{scheme}://{path}"


#: The default registry, used by ``@mcp_resource`` and the ``/mcp`` endpoint.
registry = ResourceRegistry()


def registry_of(endpoint: Any) -> ResourceRegistry:
    """Return the resource registry ``endpoint`` serves (the default one unless it says)."""
    get = getattr(endpoint, "get_resource_registry", None)
    return get() if get is not None else registry


def served_resources(exchange: Any) -> RoutedResources | None:
    """Return the resources an exchange's endpoint serves, or None: none, or a toolset's or
    tags' endpoint, which serves tools alone (docs/resources.md)."""
    endpoint = exchange.endpoint
    if endpoint.tags is not None or getattr(endpoint, "toolset", None) is not None:
        return None
    resources = registry_of(endpoint).resources(exchange.urlconf)
    return resources if len(resources) else None


def capabilities(call: Any, live: bool = False) -> dict[str, Any]:
    """Return the ``resources`` capability where this endpoint serves a resource; ``live``:
    where its server holds listeners' streams (docs/subscriptions.md)."""
    if served_resources(call.exchange) is None:
        return {}
    return {"resources": {"listChanged": live, "subscribe": live}}
