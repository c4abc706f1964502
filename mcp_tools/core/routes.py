"""Routes found by walking the URLconf: where each view is mounted and how to reach it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.http import HttpResponseBase
from django.urls import URLPattern, URLResolver
from django.urls.resolvers import LocalePrefixPattern, RegexPattern, ResolverMatch, RoutePattern
from django.utils.regex_helper import normalize

from ..protocol.jsonrpc import clip, json_text
from .prototypes import Prototype

#: The HTTP methods whose arguments travel in a JSON body (the others' in the query string).
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class NoPath(ValueError):
    """No path of the route takes these path arguments.

    It names the one argument to blame when there is one (``parameter``, else None), and
    its message says what is wrong with the argument, never how the route is written: a
    client reads it.
    """

    def __init__(self, parameter: str | None = None, value: object = None) -> None:
        self.parameter = parameter
        if parameter is None:
            message = "these path arguments do not make a URL of this tool"
        else:
            message = f"{clip(json_text(value), 80)} is not a value this tool's URL can take"
        super().__init__(message)

    @property
    def json_path(self) -> str:
        return "$" if self.parameter is None else f"$.{self.parameter}"


@dataclass(frozen=True)
class Route:
    """One URL pattern of the URLconf, with everything needed to build a path to it."""

    callback: Callable[..., HttpResponseBase]
    #: The pattern as written, includes joined, e.g. ``api/todos/<int:pk>/``.
    route: str
    #: The full regular expression of the path, includes joined, without the leading ``^``.
    regex: str
    converters: dict[str, Any] = field(default_factory=dict)
    #: ``namespace:name`` of the pattern, or None.
    name: str | None = None
    #: The extra kwargs of the pattern and its includes, as the view receives them.
    default_kwargs: dict[str, Any] = field(default_factory=dict)
    #: What Django's ``resolve()`` reports of this route (``ResolverMatch`` fields).
    match_route: str = ""
    app_names: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()

    @cached_property
    def _possibilities(self) -> list[tuple[str, list[str]]]:
        return normalize(self.regex)

    @cached_property
    def _compiled(self) -> re.Pattern[str]:
        return re.compile("^" + self.regex)

    @cached_property
    def parameters(self) -> tuple[str, ...]:
        """Return the names of the path parameters, in order."""
        if "(" not in self.regex:
            return ()  # no group, no parameter: not worth the parse of normalize()
        names: list[str] = []
        for _, params in self._possibilities:
            names.extend(p for p in params if p not in names)
        return tuple(names)

    @cached_property
    def group_patterns(self) -> dict[str, str]:
        """Return the regex of each named group of the pattern (``re_path`` parameters)."""
        return dict(_named_groups(self.regex))

    @property
    def template(self) -> str:
        """Return the path for people to read: ``api/todos/<pk>/`` for any kind of pattern."""
        template, params = self._possibilities[0]
        return template % {name: f"<{name}>" for name in params}

    @property
    def url_name(self) -> str | None:
        return self.name.rpartition(":")[2] if self.name else None

    def resolve(self, kwargs: dict[str, Any]) -> tuple[str, ResolverMatch]:
        """Return the path that reaches this route with ``kwargs``, and the match of it.

        Each value is converted with its URL converter's ``to_url`` and the path must match
        the route's own pattern, as Django's ``reverse()`` requires, so a value can never
        lead to another view. The match is what ``resolve()`` makes of that path for this
        route: the view's args and kwargs (``to_python`` of each captured value, with the
        patterns' extra kwargs), its names and namespaces. Raises ``NoPath`` when no path
        matches.
        """
        if not kwargs and self._fixed is not None:
            return self._fixed[0], self._fixed_match.copy()
        for template, params in self._possibilities:
            if set(params) != set(kwargs):
                continue
            try:
                text = {key: self._to_url(key, value) for key, value in kwargs.items()}
            except ValueError:  # a converter's to_url refused a value, as reverse() allows
                continue
            candidate = template % text
            found = self._compiled.search(candidate)
            if found is None:
                continue
            try:
                captured = self._captured(found)
            except ValueError:  # a converter's to_python refused the value
                continue
            return "/" + candidate, self._match(found, captured)
        raise self._no_path(kwargs)

    @cached_property
    def _fixed(self) -> tuple[str, re.Match[str], dict[str, Any]] | None:
        """The path, match and captured values of a route without parameters, found once."""
        for template, params in self._possibilities:
            found = None if params else self._compiled.search(template)
            if found is not None:
                return "/" + template, found, self._captured(found)
        return None

    @cached_property
    def _fixed_match(self) -> Prototype[ResolverMatch]:
        """The match of a route without parameters, made once: each call gets a copy, in a
        third of the time of a new ``ResolverMatch`` (a view may write on its ``kwargs``)."""
        assert self._fixed is not None
        return Prototype(self._match(*self._fixed[1:]))

    def _match(self, found: re.Match[str], captured: dict[str, Any]) -> ResolverMatch:
        """Return what ``resolve()`` makes of the path ``found`` matched (a new one each call:
        views may write on it)."""
        # As Django: any named group in the pattern (even one that matched nothing) means
        # no positional arguments.
        args = () if captured or self.default_kwargs or found.re.groupindex else found.groups()
        return ResolverMatch(
            self.callback,
            args,
            {**captured, **self.default_kwargs},
            self.url_name,
            list(self.app_names),
            list(self.namespaces),
            self.match_route,
            captured_kwargs=dict(captured),
            extra_kwargs=dict(self.default_kwargs),
        )

    def _to_url(self, key: str, value: object) -> str:
        converter = self.converters.get(key)
        return converter.to_url(value) if converter else str(value)

    def _no_path(self, kwargs: dict[str, Any]) -> NoPath:
        """Name the first argument that its converter or its own group refuses, if any."""
        if set(kwargs) != set(self.parameters):
            return NoPath()
        for key, value in kwargs.items():
            converter = self.converters.get(key)
            group = self.group_patterns.get(key)
            try:
                text = self._to_url(key, value)
                if group is not None and re.fullmatch(group, text) is None:
                    raise ValueError(key)
                if converter is not None:
                    converter.to_python(text)
            except ValueError:
                return NoPath(key, value)
        return NoPath()

    def _captured(self, found: re.Match[str]) -> dict[str, Any]:
        captured: dict[str, Any] = {}
        for key, value in found.groupdict().items():
            converter = self.converters.get(key)
            if converter is not None:
                captured[key] = converter.to_python(value)
            elif value is not None:  # re_path drops the groups that matched nothing
                captured[key] = value
        return captured


def _named_groups(regex: str) -> Iterator[tuple[str, str]]:
    """Yield (name, body) of each ``(?P<name>body)`` group, nested parentheses balanced."""
    for match in re.finditer(r"\(\?P<(\w+)>", regex):
        depth, index, in_class = 1, match.end(), False
        while index < len(regex) and depth:
            char = regex[index]
            if char == "\\":
                index += 2
                continue
            if in_class:
                in_class = char != "]"
            elif char == "[":
                in_class = True
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            index += 1
        if depth == 0:
            yield match.group(1), regex[match.end() : index - 1]


def _regex_of(pattern: RegexPattern | RoutePattern | LocalePrefixPattern) -> str:
    regex = _source_of(pattern)
    return regex[1:] if regex.startswith("^") else regex


def _source_of(pattern: RegexPattern | RoutePattern | LocalePrefixPattern) -> str:
    """Return the regular expression of a pattern as ``pattern.regex.pattern`` would.

    Django compiles ``pattern.regex`` on first use, which a request only does for the
    patterns it tries: the walk takes the source Django keeps beside it instead, so listing
    the tools compiles none of the project's patterns. A translated pattern (or one of
    another kind) is read through ``regex``, in the active language, as Django reads it.
    """
    if "regex" not in pattern.__dict__:
        source = getattr(pattern, "_regex", None)
        if isinstance(pattern, RoutePattern) and isinstance(getattr(pattern, "_route", None), str):
            if isinstance(source, str):
                return source
        elif isinstance(pattern, RegexPattern) and isinstance(source, str):
            return source
    return str(pattern.regex.pattern)


def _route_of(pattern: RegexPattern | RoutePattern | LocalePrefixPattern) -> str:
    if isinstance(pattern, RegexPattern):
        return re.sub(r"^\^|(\$|\\Z)$", "", str(pattern))
    return str(pattern)


def _join_route(route1: str, route2: str) -> str:
    """Join two routes as Django's resolver reports them (``ResolverMatch.route``)."""
    return route2 if not route1 else route1 + route2.removeprefix("^")


@dataclass(frozen=True)
class _Prefix:
    """What the includes above a pattern contribute to its route."""

    route: str = ""
    regex: str = ""
    converters: dict[str, Any] = field(default_factory=dict)
    match_route: str = ""
    kwargs: dict[str, Any] = field(default_factory=dict)
    app_names: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()


def iter_routes(resolver: URLResolver) -> Iterator[Route]:
    """Yield every view pattern reachable from ``resolver``, includes flattened."""

    def walk(patterns: list[URLPattern | URLResolver], above: _Prefix) -> Iterator[Route]:
        for pattern in patterns:
            here = _Prefix(
                route=above.route + _route_of(pattern.pattern),
                regex=above.regex + _regex_of(pattern.pattern),
                converters={**above.converters, **getattr(pattern.pattern, "converters", {})},
                match_route=_join_route(above.match_route, str(pattern.pattern)),
                kwargs=above.kwargs,
                app_names=above.app_names,
                namespaces=above.namespaces,
            )
            if isinstance(pattern, URLResolver):
                yield from walk(
                    pattern.url_patterns,
                    _Prefix(
                        route=here.route,
                        regex=here.regex,
                        converters=here.converters,
                        match_route=here.match_route,
                        kwargs={**above.kwargs, **pattern.default_kwargs},
                        app_names=(*above.app_names, *filter(None, [pattern.app_name])),
                        namespaces=(*above.namespaces, *filter(None, [pattern.namespace])),
                    ),
                )
            elif isinstance(pattern, URLPattern):
                name = ":".join([*above.namespaces, pattern.name]) if pattern.name else None
                yield Route(
                    callback=pattern.callback,
                    route=here.route,
                    regex=here.regex,
                    converters=here.converters,
                    name=name,
                    default_kwargs={**above.kwargs, **pattern.default_args},
                    match_route=here.match_route,
                    app_names=above.app_names,
                    namespaces=above.namespaces,
                )

    yield from walk(resolver.url_patterns, _Prefix())
