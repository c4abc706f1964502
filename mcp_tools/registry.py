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
from django.core.signals import setting_changed
from django.urls import URLResolver, get_resolver, get_urlconf

from .jsonrpc import RawJSON
from .routes import Route, iter_routes
from .tools import (
    NAME_RE,
    Tool,
    ToolDefinitionError,
    ToolOptions,
    ToolProblem,
    build_tool,
    candidates,
    view_class_of,
)

DUPLICATE_NAME = "mcp_tools.E001"


class AlreadyRegistered(ImproperlyConfigured):
    """A tool name is used twice, or one object is decorated twice."""


class ToolSet:
    """The tools resolved from one URLconf, by name, in URLconf order, and their problems."""

    def __init__(
        self,
        tools: list[Tool],
        problems: list[ToolProblem] | None = None,
        reached: set[Any] | None = None,
    ) -> None:
        self.by_name: dict[str, Tool] = {tool.name: tool for tool in tools}
        self.problems: list[ToolProblem] = list(problems or [])
        #: Declarations some route reaches, including those whose tools failed to build.
        self.reached: set[Any] = {tool.declared_by for tool in tools} | set(reached or ())
        self.reached |= {problem.obj for problem in self.problems}
        for tool in tools:
            self.problems.extend(tool.problems)
        #: Encoded tools/list pages, built once (DESIGN §10); see handlers.list_tools.
        self.pages: dict[Any, RawJSON] = {}

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.by_name.values())

    def __len__(self) -> int:
        return len(self.by_name)

    def get(self, name: str) -> Tool | None:
        return self.by_name.get(name)

    @property
    def errors(self) -> list[ToolProblem]:
        return [problem for problem in self.problems if problem.error]

    def raise_errors(self) -> None:
        """Raise the first error, so a misconfigured URLconf can't serve half its tools."""
        errors = self.errors
        if errors:
            error_class = (
                AlreadyRegistered if errors[0].id == DUPLICATE_NAME else ImproperlyConfigured
            )
            more = (
                f" (and {len(errors) - 1} more problems: run manage.py check)"
                if len(errors) > 1
                else ""
            )
            raise error_class(errors[0].message + more)


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

    def clear(self) -> None:
        """Forget resolved tools (after a declaration or URLconf change)."""
        self._resolved = WeakKeyDictionary()

    def tools(self, urlconf: str | None = None) -> ToolSet:
        """Return the tools of ``urlconf`` (default: the current request's, else ROOT_URLCONF).

        Raises ``ImproperlyConfigured`` when a declared tool can't be built.
        """
        toolset = self.inspect(urlconf)
        toolset.raise_errors()
        return toolset

    def inspect(self, urlconf: str | None = None) -> ToolSet:
        """Return the tools of ``urlconf`` with every problem found, raising none."""
        resolver = get_resolver(urlconf if urlconf is not None else get_urlconf())
        toolset = self._resolved.get(resolver)
        if toolset is None:
            with self._lock:
                toolset = self._resolved.get(resolver)
                if toolset is None:
                    toolset = self._resolve(resolver)
                    self._resolved[resolver] = toolset
        return toolset

    def get_tool(self, name: str, urlconf: str | None = None) -> Tool | None:
        return self.tools(urlconf).get(name)

    def _resolve(self, resolver: URLResolver) -> ToolSet:
        found: list[Tool] = []
        problems: list[ToolProblem] = []
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
                    found.append(build_tool(route, view_class, cand, several=len(cands) > 1))
                except ToolDefinitionError as exc:
                    problems.append(exc.problem)
        tools, clashes = _unique(found)
        return ToolSet(tools, problems + clashes, {tool.declared_by for tool in found})

    def unrouted(self, urlconf: str | None = None) -> list[Any]:
        """Return the declared objects that no route reaches."""
        reached = self.inspect(urlconf).reached
        return [obj for obj in self._declarations if obj not in reached]


def _same_path(path: str, route: Route) -> bool:
    return path.strip("/") == route.route.strip("/")


def _unique(tools: list[Tool]) -> tuple[list[Tool], list[ToolProblem]]:
    """Drop the tools that clash (mounted twice, or one name twice) and report them."""
    problems: list[ToolProblem] = []
    by_declaration: dict[tuple[Any, type, str, str | None], list[Tool]] = defaultdict(list)
    for tool in tools:
        by_declaration[(tool.declared_by, tool.view_class, tool.method, tool.action)].append(tool)
    dropped: set[int] = set()
    for group in by_declaration.values():
        if len(group) > 1:
            routes = ", ".join(f"/{tool.route.route}" for tool in group)
            problems.append(
                ToolProblem(
                    "mcp_tools.E003",
                    f"{group[0].view_class.__qualname__} {group[0].method} is mounted at several "
                    f"URLs ({routes}); pass path= to @mcp_tool to choose one",
                    'Pass path= to @mcp_tool with the route to expose, e.g. path="/api/items/".',
                    group[0].declared_by,
                )
            )
            dropped.update(id(tool) for tool in group)
    by_name: dict[str, list[Tool]] = defaultdict(list)
    for tool in tools:
        if id(tool) not in dropped:
            by_name[tool.name].append(tool)
    for name, group in by_name.items():
        if len(group) > 1:
            routes = ", ".join(f"/{tool.route.route}" for tool in group)
            problems.append(
                ToolProblem(
                    DUPLICATE_NAME,
                    f"Tool name {name!r} is used by several views ({routes}); pass name= to "
                    "@mcp_tool to tell them apart",
                    "Give each tool a unique name of 1-64 characters of [A-Za-z0-9_.-] "
                    "with @mcp_tool(name=...), or choose one route with path=.",
                    group[0].declared_by,
                )
            )
            dropped.update(id(tool) for tool in group)
    return [tool for tool in tools if id(tool) not in dropped], problems


def _clear_on_settings_change(*, setting: str, **kwargs: Any) -> None:
    # Tool definitions read MCP_TOOLS (annotations, page-size cap) when they are built.
    if setting == "MCP_TOOLS":
        registry.clear()


#: The default registry, used by ``@mcp_tool`` and the ``/mcp`` endpoint.
registry = ToolRegistry()

setting_changed.connect(_clear_on_settings_change)
