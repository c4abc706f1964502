"""``@mcp_tool`` and ``expose()``: declare DRF views, handlers, actions and ``@api_view``
functions as tools, on their source or, for views the project does not own, by a call."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from string import Formatter
from typing import Any, TypeVar

from django.core.exceptions import ImproperlyConfigured
from django.views import View
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from .naming import is_function_view
from .registry import ToolRegistry
from .registry import registry as default_registry
from .tool import TOOL_METHODS, ToolOptions, ViewPart

V = TypeVar("V")


def _methods(methods: Iterable[str] | None, caller: str = "@mcp_tool") -> tuple[str, ...] | None:
    if methods is None:
        return None
    if isinstance(methods, str):
        methods = [methods]
    normalized = tuple(method.upper() for method in methods)
    unknown = sorted(set(normalized) - set(TOOL_METHODS))
    if unknown:
        raise ImproperlyConfigured(
            f"{caller}(methods=...) accepts {', '.join(TOOL_METHODS)}; got {', '.join(unknown)}"
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


TASK_SUPPORT = ("optional", "required")


def _task(task: object, caller: str) -> str | None:
    if task is None or task in TASK_SUPPORT:
        return task  # type: ignore[return-value]
    raise ImproperlyConfigured(
        f'{caller}(task=...) takes None, "optional" or "required"; got {task!r}'
    )


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
    task: str | None = None,
    registry: ToolRegistry | None = None,
) -> Callable[[V], V]:
    """Declare a DRF view (or one handler or action of it) as an MCP tool.

    Use with parentheses: ``@mcp_tool()`` or ``@mcp_tool("name")``. Returns the view unchanged.
    ``confirm=True`` (or a message such as ``"Delete todo {pk}?"``) asks the user before the
    view runs, where the client can answer (docs/input.md). ``headers={"region": "Region"}``
    has 2026-07-28 clients mirror the ``region`` argument in ``Mcp-Param-Region``, checked
    against the body (docs/protocol.md). ``task="optional"`` lets a call that outlasts
    ``TASK_IMMEDIATE_SECONDS`` run as an MCP task, polled by the client; ``"required"`` refuses
    clients that can't take a task (docs/tasks.md).
    """
    if name is not None and not isinstance(name, str):
        raise ImproperlyConfigured(
            f"@mcp_tool must be called with parentheses: write @mcp_tool() above {name!r}"
        )
    options = _options(
        name=name,
        title=title,
        description=description,
        annotations=annotations,
        input_schema=input_schema,
        output_schema=output_schema,
        include_structured_content=include_structured_content,
        include_output_schema=include_output_schema,
        methods=methods,
        actions=actions,
        tags=tags,
        icons=icons,
        meta=meta,
        stream=stream,
        path=path,
        confirm=confirm,
        headers=headers,
        task=task,
    )
    target = registry if registry is not None else default_registry

    def decorator(view: V) -> V:
        if not callable(view):
            raise ImproperlyConfigured(f"@mcp_tool cannot decorate {view!r}")
        target.register(view, options)
        return view

    return decorator


def expose(
    view: V,
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
    task: str | None = None,
    registry: ToolRegistry | None = None,
) -> V:
    """Declare a DRF view whose source you don't own as tools, as ``@mcp_tool(...)`` would.

    ``view`` is an ``APIView`` or ViewSet class (``actions=``/``methods=`` choose its tools)
    or an ``@api_view`` function, e.g. ``expose(djoser.views.UserViewSet, actions=["me"])``.
    Each action (method) named is declared on its own, so one class can be exposed in
    several calls, each for its own actions. Exposing a view again with the same options
    does nothing; with other options it is refused. Returns the view unchanged
    (docs/tools.md#views-you-dont-own).
    """
    target_view = drf_view(view)
    options = _options(
        name=name,
        title=title,
        description=description,
        annotations=annotations,
        input_schema=input_schema,
        output_schema=output_schema,
        include_structured_content=include_structured_content,
        include_output_schema=include_output_schema,
        methods=methods,
        actions=actions,
        tags=tags,
        icons=icons,
        meta=meta,
        stream=stream,
        path=path,
        confirm=confirm,
        headers=headers,
        task=task,
        caller="expose",
    )
    target = registry if registry is not None else default_registry
    for key, each in _parts(target_view, options):
        target.register(key, each, again=True)
    return view


def _parts(view: Any, options: ToolOptions) -> list[tuple[Any, ToolOptions]]:
    """Return what to declare: each named action of a ViewSet (each named method of an
    APIView) on its own, as ``@mcp_tool`` on its handler would, so that other ``expose()``
    calls can give the class's other actions options of their own; else the view whole."""
    if not isinstance(view, type) or not issubclass(view, APIView):
        return [(view, options)]
    viewset = issubclass(view, ViewSetMixin)
    named = options.actions if viewset else options.methods
    missing = [name for name in named or () if not callable(getattr(view, name.lower(), None))]
    if missing:
        kind = "action" if viewset else "method"
        raise ImproperlyConfigured(
            f"expose({view.__qualname__}, {kind}s=...): {view.__qualname__} has no {kind} "
            f"{', '.join(map(repr, missing))}"
        )
    if viewset and options.actions is not None:
        return [
            (ViewPart(view, action), dataclasses.replace(options, actions=(action,)))
            for action in options.actions
        ]
    if not viewset and options.methods is not None:
        return [
            (ViewPart(view, method), dataclasses.replace(options, methods=(method,)))
            for method in options.methods
        ]
    return [(view, dataclasses.replace(options, wholesale=True))]


def drf_view(view: Any) -> Any:
    """Return what declares ``view``: a DRF view class, or the callback ``@api_view`` made.

    A class-based view's ``as_view()`` callback stands for its class (a router builds its
    own callbacks). Anything else is refused with what to pass instead.
    """
    view_class = view if isinstance(view, type) else getattr(view, "cls", None)
    if isinstance(view_class, type) and issubclass(view_class, APIView):
        return view if view is not view_class and is_function_view(view_class) else view_class
    plain = "expose() takes a Django REST framework view; {} is a plain Django view: {}"
    if isinstance(view, type) and issubclass(view, View) or hasattr(view, "view_class"):
        raise ImproperlyConfigured(
            plain.format(
                _label(getattr(view, "view_class", view)),
                "write it as an APIView (or a ViewSet) to make it tools",
            )
        )
    qualname = getattr(view, "__qualname__", "")
    if callable(view) and not isinstance(view, type) and qualname:
        owner, _, method = qualname.rpartition(".")
        if owner and not owner.endswith("<locals>"):
            raise ImproperlyConfigured(
                f"expose() takes a view, not one of its methods: write expose({owner}, "
                f'actions=["{method}"]) for a ViewSet action, or expose({owner}, '
                f'methods=["GET"]) for an APIView handler'
            )
        raise ImproperlyConfigured(
            plain.format(_label(view), "put @api_view([...]) on it to make it tools")
        )
    raise ImproperlyConfigured(
        "expose() takes a Django REST framework view (an APIView or ViewSet class, or an "
        f"@api_view function); got {view!r}"
    )


def _label(view: Any) -> str:
    return f"{getattr(view, '__module__', '?')}.{getattr(view, '__qualname__', repr(view))}"


def _options(
    *,
    name: Any,
    methods: Iterable[str] | None,
    actions: Iterable[str] | None,
    tags: Iterable[str],
    confirm: object,
    headers: object,
    task: object = None,
    caller: str = "@mcp_tool",
    **options: Any,
) -> ToolOptions:
    """Validate what a declaration says and return it as ``ToolOptions``."""
    if name is not None and not isinstance(name, str):
        raise ImproperlyConfigured(f"{caller}(name=...) takes a string; got {name!r}")
    return ToolOptions(
        name=name,
        methods=_methods(methods, caller),
        actions=((actions,) if isinstance(actions, str) else tuple(actions))
        if actions is not None
        else None,
        tags=(tags,) if isinstance(tags, str) else tuple(tags),
        confirm=_confirm(confirm),
        headers=_headers(headers),
        task=_task(task, caller),
        **options,
    )
