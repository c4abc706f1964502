"""``@mcp_tool``: declare DRF views, handlers, actions and ``@api_view`` functions as tools."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from string import Formatter
from typing import Any, TypeVar

from django.core.exceptions import ImproperlyConfigured

from .registry import ToolRegistry
from .registry import registry as default_registry
from .tools import TOOL_METHODS, ToolOptions

V = TypeVar("V")


def _methods(methods: Iterable[str] | None) -> tuple[str, ...] | None:
    if methods is None:
        return None
    if isinstance(methods, str):
        methods = [methods]
    normalized = tuple(method.upper() for method in methods)
    unknown = sorted(set(normalized) - set(TOOL_METHODS))
    if unknown:
        raise ImproperlyConfigured(
            f"@mcp_tool(methods=...) accepts {', '.join(TOOL_METHODS)}; got {', '.join(unknown)}"
        )
    return normalized


def _confirm(confirm: object) -> bool | str | None:
    if confirm is None or isinstance(confirm, bool):
        return confirm
    if not isinstance(confirm, str) or not confirm.strip():
        raise ImproperlyConfigured(
            f"@mcp_tool(confirm=...) takes True, False or a message; got {confirm!r}"
        )
    try:
        list(Formatter().parse(confirm))
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"@mcp_tool(confirm={confirm!r}) is not a valid format string: {exc}"
        ) from None
    return confirm


def _headers(headers: object) -> dict[str, str] | None:
    if headers is None:
        return None
    if not isinstance(headers, Mapping) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in headers.items()
    ):
        raise ImproperlyConfigured(
            "@mcp_tool(headers=...) maps argument names to header names, e.g. "
            f'{{"region": "Region"}} for Mcp-Param-Region; got {headers!r}'
        )
    return dict(headers)


def mcp_tool(
    name: str | None = None,
    *,
    title: str | None = None,
    description: str | None = None,
    annotations: dict[str, Any] | None = None,
    input_schema: dict[str, Any] | None = None,
    output_schema: Any = None,
    include_structured_content: bool | None = None,
    include_output_schema: bool | None = None,
    methods: Iterable[str] | None = None,
    actions: Iterable[str] | None = None,
    tags: Iterable[str] = (),
    icons: list[dict[str, Any]] | None = None,
    meta: dict[str, Any] | None = None,
    stream: bool = False,
    path: str | None = None,
    confirm: bool | str | None = None,
    headers: Mapping[str, str] | None = None,
    registry: ToolRegistry | None = None,
) -> Callable[[V], V]:
    """Declare a DRF view (or one handler or action of it) as an MCP tool.

    Use with parentheses: ``@mcp_tool()`` or ``@mcp_tool("name")``. Returns the view unchanged.
    ``confirm=True`` (or a message such as ``"Delete todo {pk}?"``) asks the user before the
    view runs, where the client can answer (docs/input.md). ``headers={"region": "Region"}``
    has 2026-07-28 clients mirror the ``region`` argument in ``Mcp-Param-Region``, checked
    against the body (docs/protocol.md).
    """
    if name is not None and not isinstance(name, str):
        raise ImproperlyConfigured(
            f"@mcp_tool must be called with parentheses: write @mcp_tool() above {name!r}"
        )
    options = ToolOptions(
        name=name,
        title=title,
        description=description,
        annotations=annotations,
        input_schema=input_schema,
        output_schema=output_schema,
        include_structured_content=include_structured_content,
        include_output_schema=include_output_schema,
        methods=_methods(methods),
        actions=((actions,) if isinstance(actions, str) else tuple(actions))
        if actions is not None
        else None,
        tags=(tags,) if isinstance(tags, str) else tuple(tags),
        icons=icons,
        meta=meta,
        stream=stream,
        path=path,
        confirm=_confirm(confirm),
        headers=_headers(headers),
    )
    target = registry if registry is not None else default_registry

    def decorator(view: V) -> V:
        if not callable(view):
            raise ImproperlyConfigured(f"@mcp_tool cannot decorate {view!r}")
        target.register(view, options)
        return view

    return decorator
