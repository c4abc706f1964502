"""Tools: what the decorator declares, and the definitions resolved from routed views."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from jsonschema import Draft202012Validator
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from . import schemas
from .routes import Route

NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
TOOL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
STANDARD_ACTIONS = {
    "list": ("GET", "List {plural}"),
    "retrieve": ("GET", "Get {singular}"),
    "create": ("POST", "Create {singular}"),
    "update": ("PUT", "Update {singular}"),
    "partial_update": ("PATCH", "Partially update {singular}"),
    "destroy": ("DELETE", "Delete {singular}"),
}
PARTIAL_ACTIONS = frozenset({"partial_update"})

# readOnlyHint, destructiveHint, idempotentHint per HTTP method (DESIGN §7).
METHOD_HINTS: dict[str, tuple[bool, bool, bool]] = {
    "GET": (True, False, True),
    "POST": (False, False, False),
    "PUT": (False, True, True),
    "PATCH": (False, True, False),
    "DELETE": (False, True, True),
}


@dataclass(frozen=True)
class ToolOptions:
    """What ``@mcp_tool(...)`` declared for a view, a handler or an action."""

    name: str | None = None
    title: str | None = None
    description: str | None = None
    annotations: dict[str, Any] | None = None
    input_schema: dict[str, Any] | None = None
    output_schema: Any = None
    include_structured_content: bool | None = None
    include_output_schema: bool | None = None
    methods: tuple[str, ...] | None = None
    actions: tuple[str, ...] | None = None
    tags: tuple[str, ...] = ()
    icons: list[dict[str, Any]] | None = None
    meta: dict[str, Any] | None = None
    stream: bool = False
    path: str | None = None


@dataclass
class Tool:
    """One MCP tool: a routed view, one HTTP method (and ViewSet action) of it."""

    name: str
    title: str
    description: str
    method: str
    route: Route
    view_class: type[APIView]
    action: str | None
    options: ToolOptions
    input_schema: dict[str, Any]
    #: Names of arguments that fill the URL path; the rest go to the query or the body.
    path_params: tuple[str, ...] = ()
    annotations: dict[str, Any] = field(default_factory=dict)
    #: The key the tool was declared under (a class or a function), to report clashes.
    declared_by: Any = None

    @property
    def callback(self) -> Callable[..., Any]:
        return self.route.callback

    @property
    def has_body(self) -> bool:
        return self.method in BODY_METHODS

    @cached_property
    def validator(self) -> Draft202012Validator:
        """Return the input validator, compiled once per tool (not per call)."""
        return Draft202012Validator(self.input_schema)

    def definition(self) -> dict[str, Any]:
        """Return the tool's wire definition (2025-11-25 form, before projection)."""
        definition: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        }
        if self.options.icons:
            definition["icons"] = self.options.icons
        if self.options.meta:
            definition["_meta"] = self.options.meta
        return definition


def snake_case(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()


def is_viewset(view_class: type) -> bool:
    return issubclass(view_class, ViewSetMixin)


def view_class_of(callback: Callable[..., Any]) -> type[APIView] | None:
    """Return the DRF view class behind a routed callback, or None for other views."""
    view_class = getattr(callback, "cls", None)
    if isinstance(view_class, type) and issubclass(view_class, APIView):
        return view_class
    return None


@dataclass(frozen=True)
class Candidate:
    """A (method, action) of a routed view that a declaration makes a tool."""

    method: str
    action: str | None
    handler: Callable[..., Any]
    options: ToolOptions
    declared_by: Any


def candidates(
    route: Route, view_class: type[APIView], declarations: dict[Any, ToolOptions]
) -> Iterator[Candidate]:
    """Yield the tools that ``declarations`` make of one routed view."""
    class_options = declarations.get(view_class)
    callback_options = declarations.get(route.callback)  # an @api_view function
    if is_viewset(view_class):
        actions: dict[str, str] = getattr(route.callback, "actions", {}) or {}
        for http_method, action in actions.items():
            method = http_method.upper()
            if method not in TOOL_METHODS:
                continue
            handler = getattr(view_class, action, None)
            if handler is None:
                continue
            handler_options = declarations.get(handler)
            if handler_options is not None:
                yield Candidate(method, action, handler, handler_options, handler)
            elif class_options is not None and (
                class_options.actions is None or action in class_options.actions
            ):
                yield Candidate(method, action, handler, class_options, view_class)
        return
    for method in TOOL_METHODS:
        if method.lower() not in view_class.http_method_names:
            continue
        handler = getattr(view_class, method.lower(), None)
        if handler is None:
            continue
        handler_options = declarations.get(handler)
        if handler_options is not None:
            yield Candidate(method, None, handler, handler_options, handler)
            continue
        options = class_options or callback_options
        if options is not None and (options.methods is None or method in options.methods):
            yield Candidate(method, None, handler, options, view_class if class_options else route.callback)


def _model_names(view_class: type[APIView], basename: str) -> tuple[str, str]:
    queryset = getattr(view_class, "queryset", None)
    model = getattr(queryset, "model", None)
    if model is not None:
        return str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
    words = basename.replace("_", " ").replace("-", " ")
    return words, words + "s"


def _docstring(obj: Any) -> str | None:
    doc = getattr(obj, "__doc__", None)
    module = getattr(obj, "__module__", "") or ""
    # DRF's own mixins describe DRF, not the user's API.
    if not doc or module.startswith("rest_framework"):
        return None
    return re.sub(r"\s+", " ", doc).strip() or None


def default_name(route: Route, view_class: type[APIView], cand: Candidate, several: bool) -> str:
    """Derive a tool name as DESIGN §7 says: ``<basename>_<action>`` or the URL name."""
    if cand.action is not None:
        basename = route.callback.initkwargs.get("basename") or snake_case(view_class.__name__)
        name = f"{basename}_{cand.action}"
        actions = getattr(route.callback, "actions", {})
        if sum(1 for a in actions.values() if a == cand.action) > 1 and cand.action not in STANDARD_ACTIONS:
            name += f"_{cand.method.lower()}"
        return name.replace("-", "_")
    base = route.url_name.replace("-", "_") if route.url_name else snake_case(view_class.__name__)
    return f"{base}_{cand.method.lower()}" if several else base


def default_title(route: Route, view_class: type[APIView], cand: Candidate, several: bool) -> str:
    if cand.action is not None:
        basename = route.callback.initkwargs.get("basename") or view_class.__name__
        singular, plural = _model_names(view_class, basename)
        if cand.action in STANDARD_ACTIONS:
            return STANDARD_ACTIONS[cand.action][1].format(singular=singular, plural=plural)
        action = cand.action.replace("_", " ")
        return f"{singular.capitalize()}: {action}"
    title = view_class().get_view_name()
    return f"{title} ({cand.method})" if several else title


def path_parameter_schema(route: Route, view_class: type[APIView], param: str) -> dict[str, Any]:
    converter = route.converters.get(param)
    if converter is None and is_viewset(view_class):
        # Routers use a regex group for the lookup; the model field knows its type.
        lookup = getattr(view_class, "lookup_field", "pk")
        lookup_kwarg = getattr(view_class, "lookup_url_kwarg", None) or lookup
        queryset = getattr(view_class, "queryset", None)
        if param == lookup_kwarg and queryset is not None:
            opts = queryset.model._meta
            model_field = opts.pk if lookup == "pk" else opts.get_field(lookup)
            described = {"description": f"The {opts.verbose_name}'s {model_field.name}."}
            if model_field.get_internal_type() in schemas.INTEGER_FIELDS:
                return {"type": "integer", **described}
            return {**schemas.converter_schema(None), **described}
    return schemas.converter_schema(converter)


def body_schema(view_class: type[APIView], route: Route, cand: Candidate) -> dict[str, Any] | None:
    """Return the schema of the request serializer's writable fields, or None if unknown."""
    view = view_class(**getattr(route.callback, "initkwargs", {}))
    view.action = cand.action  # type: ignore[attr-defined]
    view.request = None  # type: ignore[assignment]
    view.format_kwarg = None
    view.args, view.kwargs = (), {}
    get_serializer_class = getattr(view, "get_serializer_class", None)
    if get_serializer_class is None:
        return None
    try:
        serializer_class = get_serializer_class()
    except Exception:
        # get_serializer_class() that needs a request; the system check reports it.
        return None
    if serializer_class is None:
        return None
    partial = cand.method == "PATCH" or cand.action in PARTIAL_ACTIONS
    return schemas.serializer_schema(serializer_class(), partial=partial)


def input_schema(route: Route, view_class: type[APIView], cand: Candidate) -> dict[str, Any]:
    """Build one flat object schema: path parameters, then body fields."""
    params = [p for p in route.parameters if p not in route.default_kwargs]
    if cand.options.input_schema is not None:
        schema = dict(cand.options.input_schema)
        schema.setdefault("type", "object")
        properties = dict(schema.get("properties", {}))
    else:
        body = body_schema(view_class, route, cand) if cand.method in BODY_METHODS else None
        schema = {"type": "object"}
        properties = dict(body["properties"]) if body else {}
        if body is not None:
            schema["required"] = list(body.get("required", []))
            schema["additionalProperties"] = False
    clashes = sorted(set(params) & set(properties))
    if clashes and cand.options.input_schema is None:
        raise ValueError(
            f"argument name(s) {', '.join(clashes)} are both path parameters and body fields"
        )
    path_properties = {p: path_parameter_schema(route, view_class, p) for p in params}
    schema["properties"] = {**path_properties, **properties}
    required = [*params, *(r for r in schema.get("required", []) if r not in params)]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    return schema


def annotations(method: str, title: str, declared: dict[str, Any] | None) -> dict[str, Any]:
    read_only, destructive, idempotent = METHOD_HINTS[method]
    result: dict[str, Any] = {
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }
    result.update(declared or {})
    return result


def build_tool(route: Route, view_class: type[APIView], cand: Candidate, several: bool) -> Tool:
    """Resolve one candidate into a Tool with its name, texts and schemas."""
    options = cand.options
    name = options.name or default_name(route, view_class, cand, several)
    if not NAME_RE.match(name):
        raise ValueError(f"derived tool name {name!r} is not 1-64 characters of [A-Za-z0-9_.-]")
    title = options.title or default_title(route, view_class, cand, several)
    description = (
        options.description
        or _docstring(cand.handler)
        or _docstring(view_class)
        or f"{title}."
    )
    params = tuple(p for p in route.parameters if p not in route.default_kwargs)
    return Tool(
        name=name,
        title=title,
        description=description,
        method=cand.method,
        route=route,
        view_class=view_class,
        action=cand.action,
        options=options,
        input_schema=input_schema(route, view_class, cand),
        path_params=params,
        annotations=annotations(cand.method, title, options.annotations),
        declared_by=cand.declared_by,
    )
