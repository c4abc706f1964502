"""Routes found by walking the URLconf: where each view is mounted and how to reach it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.urls import URLPattern, URLResolver
from django.urls.resolvers import RegexPattern
from django.utils.regex_helper import normalize


@dataclass(frozen=True)
class Route:
    """One URL pattern of the URLconf, with everything needed to build a path to it."""

    callback: Callable[..., Any]
    #: The pattern as written, includes joined, e.g. ``api/todos/<int:pk>/``.
    route: str
    #: The full regular expression of the path, includes joined, without the leading ``^``.
    regex: str
    converters: dict[str, Any] = field(default_factory=dict)
    #: ``namespace:name`` of the pattern, or None.
    name: str | None = None
    default_kwargs: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def _possibilities(self) -> list[tuple[str, list[str]]]:
        return normalize(self.regex)

    @cached_property
    def _compiled(self) -> re.Pattern[str]:
        return re.compile("^" + self.regex)

    @cached_property
    def parameters(self) -> tuple[str, ...]:
        """Return the names of the path parameters, in order."""
        names: list[str] = []
        for _, params in self._possibilities:
            names.extend(p for p in params if p not in names)
        return tuple(names)

    @cached_property
    def group_patterns(self) -> dict[str, str]:
        """Return the regex of each named group of the pattern (``re_path`` parameters)."""
        return dict(_named_groups(self.regex))

    @property
    def url_name(self) -> str | None:
        return self.name.rpartition(":")[2] if self.name else None

    def build_path(self, kwargs: dict[str, Any]) -> str:
        """Return the decoded path (``PATH_INFO``) that reaches this route with ``kwargs``.

        Each value is converted with its URL converter's ``to_url`` and the result must match
        the route's own pattern, as Django's ``reverse()`` requires, so a value can never lead
        to another view. Raises ``ValueError`` when no path matches.
        """
        for template, params in self._possibilities:
            if set(params) != set(kwargs):
                continue
            text: dict[str, str] = {}
            for key, value in kwargs.items():
                converter = self.converters.get(key)
                text[key] = converter.to_url(value) if converter else str(value)
            candidate = template % text
            if self._compiled.search(candidate):
                return "/" + candidate
        raise ValueError(f"no path of {self.route!r} matches these path parameters")


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


def _regex_of(pattern: Any) -> str:
    regex = pattern.regex.pattern
    return regex[1:] if regex.startswith("^") else regex


def _route_of(pattern: Any) -> str:
    if isinstance(pattern, RegexPattern):
        return re.sub(r"^\^|(\$|\\Z)$", "", str(pattern))
    return str(pattern)


def iter_routes(resolver: URLResolver) -> Iterator[Route]:
    """Yield every view pattern reachable from ``resolver``, includes flattened."""

    def walk(
        patterns: list[Any], route: str, regex: str, converters: dict[str, Any], ns: list[str]
    ) -> Iterator[Route]:
        for pattern in patterns:
            part_route = _route_of(pattern.pattern)
            part_regex = _regex_of(pattern.pattern)
            part_converters = {**converters, **getattr(pattern.pattern, "converters", {})}
            if isinstance(pattern, URLResolver):
                namespaces = [*ns, pattern.namespace] if pattern.namespace else ns
                yield from walk(
                    pattern.url_patterns,
                    route + part_route,
                    regex + part_regex,
                    part_converters,
                    namespaces,
                )
            elif isinstance(pattern, URLPattern):
                name = ":".join([*ns, pattern.name]) if pattern.name else None
                yield Route(
                    callback=pattern.callback,
                    route=route + part_route,
                    regex=regex + part_regex,
                    converters=part_converters,
                    name=name,
                    default_kwargs=dict(pattern.default_args),
                )

    yield from walk(resolver.url_patterns, "", "", {}, [])
