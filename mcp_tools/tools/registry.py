"""The tool registry: ``@mcp_tool`` declarations, resolved against the URLconf.

Declarations are recorded at import time (``@mcp_tool``, ``expose()``). Tools are resolved
lazily, on first use, by walking the URLconf (so a tool knows its path), once per URLconf:
each routed DRF view's methods and actions are matched against the declarations, a view
routed under an exposed path prefix and declared nowhere is taken as declared with the
defaults (``PathRules``), and each match is built into a ``Tool``
(``mcp_tools.tools.definitions``).
"""

from __future__ import annotations

import inspect
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any
from weakref import WeakKeyDictionary

from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.urls import URLResolver, get_resolver, get_urlconf
from rest_framework.routers import APIRootView
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from ..conf import mcp_settings
from ..core.routes import Route, iter_routes
from ..schemas import adapters
from ..schemas.introspection import ViewMethod
from . import naming
from .definitions import Candidate, ToolDefinitionError, build_tool, excluded, relate
from .naming import is_function_view
from .problems import describe
from .tool import NAME_RE, TOOL_METHODS, Tool, ToolOptions, ToolProblem, ViewPart

DUPLICATE_NAME = "mcp_tools.E001"
MOUNTED_TWICE = "mcp_tools.E003"
NOT_DRF = "mcp_tools.W005"
UNTAKEN_HEADERS = "mcp_tools.E084"
BAD_PATHS = "mcp_tools.E090"
UNMATCHED_EXPOSE = "mcp_tools.W090"
UNMATCHED_EXCLUDE = "mcp_tools.W091"
EXCLUDED_WHOLE = "mcp_tools.W092"
UNREADABLE = "mcp_tools.W008"
LEFT_OUT = "mcp_tools.W009"

#: What a view routed under an exposed path, and declared nowhere, is declared with.
PATH_OPTIONS = ToolOptions(wholesale=True)

#: The modules of views that describe an API rather than act in it: drf-spectacular's and
#: DRF's schema views are never tools of a path (a router's root view neither).
SCHEMA_VIEW_MODULES = ("drf_spectacular.", "rest_framework.schemas.")


_NOTHING = object()


class AlreadyRegistered(ImproperlyConfigured):
    """A tool name is used twice, or one object is decorated twice."""


class RoutedTools:
    """The tools resolved from one URLconf, by name, in URLconf order, and their problems."""

    def __init__(
        self,
        tools: list[Tool],
        failures: list[ToolProblem] | None = None,
        reached: set[object] | None = None,
        warnings: list[ToolProblem] | None = None,
    ) -> None:
        self.by_name: dict[str, Tool] = {tool.name: tool for tool in tools}
        #: Problems that kept a declared tool from being built (errors, always).
        self.failures: list[ToolProblem] = list(failures or [])
        #: Every problem: the failures, the warnings of routes that make no tool, then what
        #: each built tool reported.
        self.problems: list[ToolProblem] = [
            *self.failures,
            *(warnings or []),
            *(problem for tool in tools for problem in tool.problems),
        ]
        #: Declarations some route reaches, including those whose tools failed to build.
        self.reached: set[object] = {tool.declared_by for tool in tools} | set(reached or ())
        self.reached |= {problem.obj for problem in [*self.failures, *(warnings or [])]}
        #: The version of the schema adapters' registry the tools were built with.
        self.taught = adapters.version

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.by_name.values())

    def __len__(self) -> int:
        return len(self.by_name)

    def get(self, name: str) -> Tool | None:
        return self.by_name.get(name)

    def raise_failures(self) -> None:
        """Raise the first failure, so a misconfigured URLconf can't serve half its tools."""
        if not self.failures:
            return
        first = self.failures[0]
        more = len(self.failures) - 1
        suffix = f" (and {more} more problems: run manage.py check)" if more else ""
        error_class = AlreadyRegistered if first.id == DUPLICATE_NAME else ImproperlyConfigured
        raise error_class(describe(first)[0] + suffix)


@dataclass(frozen=True)
class PathRules:
    """Which routes are tools without a declaration: those under an ``expose`` prefix and
    under no ``exclude`` prefix (URL path prefixes, as the URL patterns read, includes
    joined, without a leading slash)."""

    expose: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: Names, or shell patterns (``fnmatch``), of the tools nobody named to leave out.
    exclude_tools: tuple[str, ...] = ()
    #: What is wrong with the values given (``mcp_tools.E090``, ``mcp_tools.W092``).
    problems: tuple[ToolProblem, ...] = ()

    @classmethod
    def of(
        cls, expose: object, exclude: object, source: str = "", exclude_tools: object = ()
    ) -> PathRules:
        """Return the rules of ``expose`` and ``exclude`` prefixes and ``exclude_tools``
        patterns; a value that is no list of strings counts as none and is reported.
        ``source`` names where they were given (``"MCP_TOOLS"``: the settings; else the
        registry's arguments)."""
        problems: list[ToolProblem] = []

        def prefixes(key: str, value: object) -> tuple[str, ...]:
            if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
                return tuple(item if key == "EXCLUDE_TOOLS" else item.lstrip("/") for item in value)
            where = f"MCP_TOOLS[{key!r}]" if source == "MCP_TOOLS" else f"{key.lower()}="
            problems.append(ToolProblem(BAD_PATHS, key, {"where": where, "value": value}))
            return ()

        rules = cls(prefixes("EXPOSE_PATHS", expose), prefixes("EXCLUDE_PATHS", exclude))
        for prefix in rules.expose:
            covering = next((other for other in rules.exclude if prefix.startswith(other)), None)
            if covering is not None:
                params = {"prefix": prefix, "exclude": covering}
                problems.append(ToolProblem(EXCLUDED_WHOLE, prefix, params))
        names = prefixes("EXCLUDE_TOOLS", exclude_tools)
        return cls(rules.expose, rules.exclude, names, tuple(problems))

    def leaves_out(self, name: str) -> bool:
        """Return whether ``EXCLUDE_TOOLS`` leaves out a tool nobody named, named ``name``."""
        return any(fnmatchcase(name, pattern) for pattern in self.exclude_tools)

    def __bool__(self) -> bool:
        return bool(self.expose)

    @staticmethod
    def under(route: Route, prefixes: Sequence[str]) -> str | None:
        """Return the first of ``prefixes`` the route's path starts with, or None."""
        readings = (route.template, route.route)
        return next((p for p in prefixes if any(r.startswith(p) for r in readings)), None)


class ToolRegistry:
    """Hold the ``@mcp_tool`` declarations and resolve them into tools per URLconf.

    ``expose_paths``/``exclude_paths``: the URL path prefixes whose DRF views are tools
    without a declaration (docs/tools.md#exposing-a-whole-api). ``None`` (the default
    registry's): the ``EXPOSE_PATHS`` and ``EXCLUDE_PATHS`` settings.
    """

    def __init__(
        self,
        *,
        expose_paths: Sequence[str] | None = (),
        exclude_paths: Sequence[str] = (),
        exclude_tools: Sequence[str] = (),
    ) -> None:
        # As given: a string is refused (E090), not read as a list of its characters.
        self._paths = (
            None
            if expose_paths is None
            else PathRules.of(expose_paths, exclude_paths, exclude_tools=exclude_tools)
        )
        self._declarations: dict[object, ToolOptions] = {}
        #: The object declared under each explicit name: a name's clash found at once, not
        #: by a scan of every declaration (500 tools made the URLconf's import quadratic).
        self._named: dict[str, object] = {}
        self._resolved: WeakKeyDictionary[URLResolver, RoutedTools] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def register(self, obj: object, options: ToolOptions, *, again: bool = False) -> None:
        """Record a declaration; the tools appear when routes are next resolved.

        ``again=True`` (``expose()``): the same declaration made twice is made once; made
        with other options, it is refused all the same.
        """
        if obj in self._declarations:
            if again and self._declarations[obj] == options:
                return
            if again:
                raise AlreadyRegistered(
                    f"{_qualname(obj)} is already declared as a tool with other options "
                    "(by @mcp_tool or expose()); declare it once"
                )
            raise AlreadyRegistered(f"{obj!r} is already decorated with @mcp_tool")
        if options.name is not None:
            if not NAME_RE.match(options.name):
                raise ImproperlyConfigured(
                    f"@mcp_tool name {options.name!r} must be 1-64 characters of [A-Za-z0-9_.-]"
                )
            other = self._named.get(options.name, _NOTHING)
            if other is not _NOTHING:
                raise AlreadyRegistered(
                    f"Tool name {options.name!r} is declared twice: on {other!r} and {obj!r}"
                )
            self._named[options.name] = obj
        self._declarations[obj] = options
        self.clear()

    def clear(self) -> None:
        """Forget resolved tools (after a declaration or URLconf change)."""
        self._resolved = WeakKeyDictionary()

    def tools(self, urlconf: str | None = None) -> RoutedTools:
        """Return the tools of ``urlconf`` (default: the current request's, else ROOT_URLCONF).

        Raises ``ImproperlyConfigured`` when a declared tool can't be built.
        """
        routed = self.inspect(urlconf)
        routed.raise_failures()
        return routed

    def inspect(self, urlconf: str | None = None) -> RoutedTools:
        """Return the tools of ``urlconf`` with every problem found, raising none."""
        resolver = get_resolver(urlconf if urlconf is not None else get_urlconf())
        routed = self._resolved.get(resolver)
        if routed is None or routed.taught != adapters.version:
            with self._lock:
                routed = self._resolved.get(resolver)
                if routed is None or routed.taught != adapters.version:
                    routed = self._resolve(resolver)
                    self._resolved[resolver] = routed
        return routed

    def get_tool(self, name: str, urlconf: str | None = None) -> Tool | None:
        return self.tools(urlconf).get(name)

    def unrouted(self, urlconf: str | None = None) -> list[object]:
        """Return the declared objects that no route reaches."""
        reached = self.inspect(urlconf).reached
        return [obj for obj in self._declarations if obj not in reached]

    def path_rules(self) -> PathRules:
        """Return the prefixes whose views are tools without a declaration."""
        if self._paths is not None:
            return self._paths
        return PathRules.of(
            mcp_settings.EXPOSE_PATHS,
            mcp_settings.EXCLUDE_PATHS,
            "MCP_TOOLS",
            mcp_settings.EXCLUDE_TOOLS,
        )

    def _resolve(self, resolver: URLResolver) -> RoutedTools:
        found: list[Tool] = []
        failures: list[ToolProblem] = []
        warnings: list[ToolProblem] = []
        excluded_by: set[object] = set()
        paths = self.path_rules()
        failures += [problem for problem in paths.problems if problem.error]
        warnings += [problem for problem in paths.problems if not problem.error]
        matched: set[str] = set()  # the prefixes some DRF view is routed under
        by_path: set[int] = set()  # the tools no declaration made (ids)
        routes = [route for route in iter_routes(resolver) if "format" not in route.parameters]
        siblings = _siblings(routes)  # (DRF's format-suffix twins of routes left out)
        for route in routes:
            view_class = view_class_of(route.callback)
            if view_class is None:
                declared = _declared_in(route.callback, self._declarations) or _declared_in(
                    getattr(route.callback, "view_class", None), self._declarations
                )
                if declared is not None:  # @mcp_tool on a plain Django view (or a View class)
                    params = {"view": _qualname(declared), "route": route.route}
                    warnings.append(ToolProblem(NOT_DRF, declared, params))
                continue
            declarations = self._declarations
            exposed = _exposed_by_path(route, view_class, paths, matched) if paths else None
            if exposed is not None and not _declares_view(route, view_class, declarations):
                declarations = {**declarations, exposed: PATH_OPTIONS}
            else:
                exposed = None
            cands = list(candidates(route, view_class, declarations, siblings[view_class]))
            for cand in [cand for cand in cands if excluded(cand)]:
                cands.remove(cand)  # left out of the API schema: not a tool either
                excluded_by.add(cand.declared_by)
            for cand in cands:
                if cand.options.path is not None and not _same_path(cand.options.path, route):
                    continue
                try:
                    tool = build_tool(cand, several=len(cands) > 1)
                except ToolDefinitionError as exc:
                    if not cand.options.wholesale:
                        failures.append(exc.problem)
                    elif not paths.leaves_out(str(exc.problem.params.get("name", ""))):
                        warnings.append(left_out(exc.problem, cand.options, view_class))
                    continue
                except Exception as exc:  # a view that can't be read: that tool alone is lost
                    warnings.append(unreadable(cand, exc))
                    continue
                if cand.options.wholesale and paths.leaves_out(tool.name):
                    excluded_by.add(cand.declared_by)
                    continue
                found.append(tool)
                if exposed is not None and cand.declared_by is exposed:
                    by_path.add(id(found[-1]))
        warnings += _unmatched(paths, matched)
        tools, clashes = _unique(found, by_path)
        failures += [problem for problem in clashes if problem.error]
        warnings += [problem for problem in clashes if not problem.error]
        tools = relate(tools)
        reached = {tool.declared_by for tool in found} | excluded_by
        return RoutedTools(tools, failures + _untaken_headers(found), reached, warnings)


def left_out(problem: ToolProblem, options: ToolOptions, view_class: type) -> ToolProblem:
    """Return ``problem`` of a tool nobody named (``EXPOSE_PATHS``, ``expose()`` of a whole
    class) as the warning that it was left out: one view of someone else's API must not stop
    the project (docs/checks.md)."""
    message, hint = describe(problem)
    source = "EXPOSE_PATHS" if options is PATH_OPTIONS else f"expose({view_class.__qualname__})"
    params = {"source": source, "problem": message, "hint": hint, "check": problem.id}
    return ToolProblem(LEFT_OUT, problem.obj, params)


def unreadable(cand: Candidate, exc: Exception) -> ToolProblem:
    """Return the warning that the view of ``cand`` raised ``exc`` while being read."""
    operation = cand.operation
    params = {"where": naming.where(operation), "error": f"{type(exc).__name__}: {exc}"}
    return ToolProblem(UNREADABLE, cand.declared_by, params)


def _exposed_by_path(
    route: Route, view_class: type[APIView], paths: PathRules, matched: set[str]
) -> object:
    """Return what a declaration of this routed view would be keyed by (its class, or the
    ``@api_view`` callback) when ``paths`` expose it, else None; note the prefixes it is
    routed under."""
    prefix = PathRules.under(route, paths.expose)
    if prefix is None:
        return None
    matched.add(prefix)
    left_out = PathRules.under(route, paths.exclude)
    if left_out is not None:
        matched.add(left_out)
        return None
    if (
        issubclass(view_class, APIRootView)
        or view_class.__module__.startswith(SCHEMA_VIEW_MODULES)
        or inspect.getattr_static(view_class, "schema", 0) is None
    ):
        return None  # a router's index of links, a schema, or a view left out of the schema
    return route.callback if is_function_view(view_class) else view_class


def _declares_view(
    route: Route, view_class: type[APIView], declarations: dict[object, ToolOptions]
) -> bool:
    """Whether a declaration names the view itself (its class, the ``@api_view`` function):
    then it alone says which of its methods are tools."""
    if view_class in declarations or _declared_in(route.callback, declarations) is not None:
        return True
    return (
        not issubclass(view_class, ViewSetMixin)
        and wrapped_function(view_class, declarations) is not None
    )


def _unmatched(paths: PathRules, matched: set[str]) -> list[ToolProblem]:
    """Report the prefixes under which no DRF view is routed (under an exposed one)."""
    problems = [
        ToolProblem(UNMATCHED_EXPOSE, prefix, {"prefix": prefix})
        for prefix in paths.expose
        if prefix not in matched
    ]
    problems += [
        ToolProblem(UNMATCHED_EXCLUDE, prefix, {"prefix": prefix})
        for prefix in paths.exclude
        if prefix not in matched
    ]
    return problems


def view_class_of(callback: Callable[..., Any]) -> type[APIView] | None:
    """Return the DRF view class behind a routed callback, or None for other views."""
    view_class = getattr(callback, "cls", None)
    if isinstance(view_class, type) and issubclass(view_class, APIView):
        return view_class
    return None


def _siblings(routes: list[Route]) -> defaultdict[type | None, tuple[str, ...]]:
    """The paths each view class is routed at (``ViewMethod.siblings``)."""
    found: defaultdict[type | None, list[str]] = defaultdict(list)
    for route in routes:
        found[view_class_of(route.callback)].append(route.template)
    return defaultdict(tuple, {cls: tuple(paths) for cls, paths in found.items()})


def candidates(
    route: Route,
    view_class: type[APIView],
    declarations: dict[object, ToolOptions],
    siblings: tuple[str, ...] = (),
) -> Iterator[Candidate]:
    """Yield the tools that ``declarations`` make of one routed view (``siblings``: the
    paths the view class is routed at)."""
    others = tuple(path for path in siblings if path != route.template)

    def operation(method: str, action: str | None, handler: Any) -> ViewMethod:
        return ViewMethod(route, view_class, method, action, handler, others)

    class_options = declarations.get(view_class)
    if issubclass(view_class, ViewSetMixin):
        actions: dict[str, str] = getattr(route.callback, "actions", {}) or {}
        for http_method, action in actions.items():
            method = http_method.upper()
            handler = getattr(view_class, action, None)
            if method not in TOOL_METHODS or handler is None:
                continue
            handler_options = declarations.get(handler)
            part = ViewPart(view_class, action)
            if handler_options is not None:
                yield Candidate(operation(method, action, handler), handler_options, handler)
            elif part in declarations:
                yield Candidate(operation(method, action, handler), declarations[part], part)
            elif class_options is not None and (
                class_options.actions is None or action in class_options.actions
            ):
                yield Candidate(operation(method, action, handler), class_options, view_class)
        return
    # An @api_view function: @mcp_tool above @api_view declares the callback itself, below
    # it the function @api_view wraps.
    callback: Any = route.callback
    callback_options = declarations.get(callback)
    if callback_options is None and class_options is None:
        wrapped = wrapped_function(view_class, declarations)
        if wrapped is not None:
            callback, callback_options = wrapped, declarations[wrapped]
    for method in TOOL_METHODS:
        handler = getattr(view_class, method.lower(), None)
        if method.lower() not in view_class.http_method_names or handler is None:
            continue
        handler_options = declarations.get(handler)
        if handler_options is not None:
            yield Candidate(operation(method, None, handler), handler_options, handler)
            continue
        part = ViewPart(view_class, method)
        if part in declarations:
            yield Candidate(operation(method, None, handler), declarations[part], part)
            continue
        options = class_options or callback_options
        if options is not None and (options.methods is None or method in options.methods):
            declared_by = view_class if class_options else callback
            yield Candidate(operation(method, None, handler), options, declared_by)


#: How many ``functools.wraps`` layers are followed down to a declared function.
MAX_WRAPPED = 10


def _unwrapped(obj: object) -> Iterator[object]:
    """Yield ``obj`` and each function it wraps (``__wrapped__``, as ``functools.wraps`` sets)."""
    for _ in range(MAX_WRAPPED):
        yield obj
        obj = getattr(obj, "__wrapped__", None)
        if obj is None:
            return


def _declared_in(obj: object, declarations: dict[object, ToolOptions]) -> object:
    for each in _unwrapped(obj):
        try:
            if each in declarations:
                return each
        except TypeError:  # unhashable: never a declaration
            continue
    return None


def wrapped_function(view_class: type[APIView], declarations: dict[object, ToolOptions]) -> object:
    """Return the declared function a view's handlers call, as ``@api_view`` makes them.

    ``@api_view`` wraps the function in handlers that close over it; the function (or what
    it ``functools.wraps``) is found among their closure's values. None when there is none.
    """
    for name in view_class.http_method_names:
        handler = view_class.__dict__.get(name)
        for cell in getattr(handler, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            declared = _declared_in(value, declarations) if callable(value) else None
            if declared is not None:
                return declared
    return None


def _qualname(obj: object) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


def _same_path(path: str, route: Route) -> bool:
    return path.strip("/") == route.route.strip("/")


def _unique(tools: list[Tool], by_path: set[int]) -> tuple[list[Tool], list[ToolProblem]]:
    """Drop the tools that clash (mounted twice, or one name twice) and report them.

    A view that exposed paths make tools (``by_path``: no declaration) at several routes
    is a tool at each, as over HTTP; only their names may clash.
    """
    problems: list[ToolProblem] = []
    by_declaration: dict[tuple[object, type, str, str | None], list[Tool]] = defaultdict(list)
    for tool in tools:
        if id(tool) in by_path:
            continue
        by_declaration[(tool.declared_by, tool.view_class, tool.method, tool.action)].append(tool)
    dropped: set[int] = set()
    for group in by_declaration.values():
        if len(group) > 1:
            params = {
                "view": group[0].view_class.__qualname__,
                "method": group[0].method,
                "routes": _routes(group),
            }
            problems.append(ToolProblem(MOUNTED_TWICE, group[0].declared_by, params))
            dropped.update(id(tool) for tool in group)
    by_name: dict[str, list[Tool]] = defaultdict(list)
    for tool in tools:
        if id(tool) not in dropped:
            by_name[tool.name].append(tool)
    for name, group in by_name.items():
        if len(group) < 2:
            continue
        params = {"name": name, "routes": _routes(group)}
        named = [tool for tool in group if not tool.options.wholesale]
        if len(named) > 1:
            problems.append(ToolProblem(DUPLICATE_NAME, group[0].declared_by, params))
            dropped.update(id(tool) for tool in group)
            continue
        # A declared tool keeps its name; tools nobody named that clash are left out.
        for tool in group:
            if tool.options.wholesale:
                clash = ToolProblem(DUPLICATE_NAME, tool.declared_by, params)
                problems.append(left_out(clash, tool.options, tool.view_class))
                dropped.add(id(tool))
    return [tool for tool in tools if id(tool) not in dropped], problems


def _untaken_headers(tools: list[Tool]) -> list[ToolProblem]:
    """Report the arguments of a ``headers=`` that no tool of its declaration takes."""
    untaken: dict[object, set[str]] = {}
    for tool in tools:
        if tool.options.headers:
            left = untaken.setdefault(tool.declared_by, set(tool.options.headers))
            left -= set(tool.input_schema.get("properties", {}))
    return [
        ToolProblem(
            UNTAKEN_HEADERS,
            obj,
            {"view": _qualname(obj), "arguments": ", ".join(repr(arg) for arg in sorted(left))},
        )
        for obj, left in untaken.items()
        if left
    ]


def _routes(tools: list[Tool]) -> str:
    return ", ".join(f"/{tool.route.route}" for tool in tools)


def _clear_on_settings_change(*, setting: str, **kwargs: object) -> None:
    # Tool definitions read MCP_TOOLS (annotations, switches, page-size cap) when built.
    if setting == "MCP_TOOLS":
        registry.clear()


#: The default registry, used by ``@mcp_tool``, ``expose()`` and the ``/mcp`` endpoint; its
#: exposed paths are the settings'.
registry = ToolRegistry(expose_paths=None)

setting_changed.connect(_clear_on_settings_change)
