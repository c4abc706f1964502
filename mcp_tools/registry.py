"""The tool registry: declarations made by ``@mcp_tool``, resolved against the URLconf.

Declarations are recorded at import time; tools are resolved lazily, on first use, by walking
the URLconf (so a tool knows its path), once per URLconf.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterator
from typing import Any
from weakref import WeakKeyDictionary

from django.core.exceptions import ImproperlyConfigured
from django.urls import URLResolver, get_resolver, get_urlconf

from .routes import Route, iter_routes
from .tools import NAME_RE, Tool, ToolOptions, build_tool, candidates, view_class_of


class AlreadyRegistered(ImproperlyConfigured):
    """A tool name is used twice, or one object is decorated twice."""


class ToolSet:
    """The tools resolved from one URLconf, by name, in URLconf order."""

    def __init__(self, tools: list[Tool]) -> None:
        self.by_name: dict[str, Tool] = {tool.name: tool for tool in tools}

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.by_name.values())

    def __len__(self) -> int:
        return len(self.by_name)

    def get(self, name: str) -> Tool | None:
        return self.by_name.get(name)


class ToolRegistry:
    """Hold the ``@mcp_tool`` declarations and resolve them into tools per URLconf."""

    def __init__(self) -> None:
        self._declarations: dict[Any, ToolOptions] = {}
        self._resolved: WeakKeyDictionary[URLResolver, ToolSet] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def register(self, obj: Any, options: ToolOptions) -> None:
        """Record a declaration; the tools appear when routes are next resolved."""
        if obj in self._declarations:
            raise AlreadyRegistered(f"{obj!r} is already decorated with @mcp_tool")
        if options.name is not None:
            if not NAME_RE.match(options.name):
                raise ImproperlyConfigured(
                    f"@mcp_tool name {options.name!r} must be 1-64 characters of [A-Za-z0-9_.-]"
                )
            for other, other_options in self._declarations.items():
                if other_options.name == options.name:
                    raise AlreadyRegistered(
                        f"Tool name {options.name!r} is declared twice: on {other!r} and {obj!r}"
                    )
        self._declarations[obj] = options
        self.clear()

    def unregister(self, obj: Any) -> None:
        del self._declarations[obj]
        self.clear()

    def is_registered(self, obj: Any) -> bool:
        return obj in self._declarations

    def clear(self) -> None:
        """Forget resolved tools (after a declaration or URLconf change)."""
        self._resolved = WeakKeyDictionary()

    def tools(self, urlconf: str | None = None) -> ToolSet:
        """Return the tools of ``urlconf`` (default: the current request's, else ROOT_URLCONF)."""
        resolver = get_resolver(urlconf if urlconf is not None else get_urlconf())
        toolset = self._resolved.get(resolver)
        if toolset is None:
            with self._lock:
                toolset = self._resolved.get(resolver)
                if toolset is None:
                    toolset = ToolSet(self._resolve(resolver))
                    self._resolved[resolver] = toolset
        return toolset

    def get_tool(self, name: str, urlconf: str | None = None) -> Tool | None:
        return self.tools(urlconf).get(name)

    def _resolve(self, resolver: URLResolver) -> list[Tool]:
        found: list[Tool] = []
        for route in iter_routes(resolver):
            if "format" in route.parameters:
                continue  # DRF's format-suffix twin of another route
            view_class = view_class_of(route.callback)
            if view_class is None:
                continue
            cands = list(candidates(route, view_class, self._declarations))
            for cand in cands:
                if cand.options.path is not None and not _same_path(cand.options.path, route):
                    continue
                try:
                    tool = build_tool(route, view_class, cand, several=len(cands) > 1)
                except ValueError as exc:
                    raise ImproperlyConfigured(
                        f"Cannot make a tool of {view_class.__qualname__} {cand.method} "
                        f"at /{route.route}: {exc}"
                    ) from exc
                found.append(tool)
        _check_unique(found)
        return found

    def unrouted(self, urlconf: str | None = None) -> list[Any]:
        """Return the declared objects that no route reaches."""
        routed = {tool.declared_by for tool in self.tools(urlconf)}
        return [obj for obj in self._declarations if obj not in routed]


def _same_path(path: str, route: Route) -> bool:
    return path.strip("/") == route.route.strip("/")


def _check_unique(tools: list[Tool]) -> None:
    by_name: dict[str, list[Tool]] = defaultdict(list)
    by_declaration: dict[tuple[Any, type, str, str | None], list[Tool]] = defaultdict(list)
    for tool in tools:
        by_name[tool.name].append(tool)
        key = (tool.declared_by, tool.view_class, tool.method, tool.action)
        by_declaration[key].append(tool)
    for group in by_declaration.values():
        if len(group) > 1:
            routes = ", ".join(f"/{tool.route.route}" for tool in group)
            raise ImproperlyConfigured(
                f"{group[0].view_class.__qualname__} {group[0].method} is mounted at several "
                f"URLs ({routes}); pass path= to @mcp_tool to choose one"
            )
    for name, group in by_name.items():
        if len(group) > 1:
            routes = ", ".join(f"/{tool.route.route}" for tool in group)
            raise AlreadyRegistered(
                f"Tool name {name!r} is used by several views ({routes}); pass name= to "
                "@mcp_tool to tell them apart"
            )


#: The default registry, used by ``@mcp_tool`` and the ``/mcp`` endpoint.
registry = ToolRegistry()
