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

from . import input_schemas, schemas
from .conf import mcp_settings
from .routes import Route

NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
TOOL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
BODY_METHODS = input_schemas.BODY_METHODS
STANDARD_ACTIONS = {
    "list": ("GET", "List {plural}"),
    "retrieve": ("GET", "Get {singular}"),
    "create": ("POST", "Create {singular}"),
    "update": ("PUT", "Update {singular}"),
    "partial_update": ("PATCH", "Partially update {singular}"),
    "destroy": ("DELETE", "Delete {singular}"),
}

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
    #: Names of arguments that go to the query string even when the method has a body.
    query_params: tuple[str, ...] = ()
    annotations: dict[str, Any] = field(default_factory=dict)
    #: The key the tool was declared under (a class or a function), to report clashes.
    declared_by: Any = None
    #: Warnings found while building the tool, reported by the system checks.
    problems: tuple[ToolProblem, ...] = ()

    @property
    def callback(self) -> Callable[..., Any]:
        return self.route.callback

    @property
    def has_body(self) -> bool:
        return self.method in BODY_METHODS

    @cached_property
    def validator(self) -> Any:
        """Return the input validator, compiled once per tool (not per call)."""
        return schemas.argument_validator(self.input_schema)

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        """Return the known output schema, unwrapped, resolved once (None when unknown)."""
        from .output_schemas import resolve_output_schema  # it imports this module

        return resolve_output_schema(self)

    @cached_property
    def output_validator(self) -> Draft202012Validator:
        """Return the output validator, compiled once per tool (not per call)."""
        from .output_schemas import build_validator

        assert self.output_schema is not None
        return build_validator(self.output_schema)

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
        from .output_schemas import advertised_schema

        output_schema = advertised_schema(self)
        if output_schema is not None:
            definition["outputSchema"] = output_schema  # unwrapped; projection wraps it
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
            yield Candidate(
                method, None, handler, options, view_class if class_options else route.callback
            )


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
        if (
            sum(1 for a in actions.values() if a == cand.action) > 1
            and cand.action not in STANDARD_ACTIONS
        ):
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


@dataclass(frozen=True)
class ToolProblem:
    """A misconfiguration found while resolving a tool, reported by ``mcp_tools.checks``."""

    id: str
    message: str
    hint: str
    obj: Any = None
    error: bool = True


class ToolDefinitionError(ValueError):
    """A declared tool cannot be built; carries the problem for the system checks."""

    def __init__(self, problem: ToolProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def annotations(method: str, title: str, declared: dict[str, Any] | None) -> dict[str, Any]:
    """Return the tool annotations: decorator > ``DEFAULT_ANNOTATIONS`` > the HTTP method's."""
    read_only, destructive, idempotent = METHOD_HINTS[method]
    result: dict[str, Any] = {
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }
    result.update(mcp_settings.DEFAULT_ANNOTATIONS or {})
    result.update(declared or {})
    return result


def _describe(view_class: type[APIView], cand: Candidate) -> str:
    action = f" {cand.action}" if cand.action else ""
    return f"{view_class.__qualname__}{action} ({cand.method})"


def build_tool(route: Route, view_class: type[APIView], cand: Candidate, several: bool) -> Tool:
    """Resolve one candidate into a Tool with its name, texts and schemas.

    Raises ``ToolDefinitionError`` when the tool can't be built.
    """
    options = cand.options
    where = f"{_describe(view_class, cand)} at /{route.route}"
    name = options.name or default_name(route, view_class, cand, several)
    if not NAME_RE.match(name):
        raise ToolDefinitionError(
            ToolProblem(
                "mcp_tools.E002",
                f"The tool name {name!r} derived for {where} is not 1-64 characters of "
                "[A-Za-z0-9_.-].",
                "Pass name= to @mcp_tool, or rename the URL pattern or the router basename.",
                cand.declared_by,
            )
        )
    if options.input_schema is not None:
        invalid = input_schemas.schema_problem(options.input_schema)
        if invalid:
            raise ToolDefinitionError(
                ToolProblem(
                    "mcp_tools.E005",
                    f"The input_schema of tool {name!r} is not a valid JSON Schema: {invalid}.",
                    "Pass an object schema (type: object) that is valid JSON Schema 2020-12 "
                    "and draft-07 to @mcp_tool(input_schema=...).",
                    cand.declared_by,
                )
            )
    try:
        inputs = input_schemas.build_input_schema(
            route, view_class, cand.method, cand.action, options.input_schema
        )
    except input_schemas.ArgumentClash as exc:
        raise ToolDefinitionError(
            ToolProblem(
                "mcp_tools.E004",
                f"Tool {name!r} ({where}): {exc}, so the arguments can't be told apart.",
                "Rename the URL parameter, the filter or the serializer field, or declare the "
                "arguments yourself with @mcp_tool(input_schema=...).",
                cand.declared_by,
            )
        ) from exc
    title = options.title or default_title(route, view_class, cand, several)
    description = (
        options.description or _docstring(cand.handler) or _docstring(view_class) or f"{title}."
    )
    return Tool(
        name=name,
        title=title,
        description=description,
        method=cand.method,
        route=route,
        view_class=view_class,
        action=cand.action,
        options=options,
        input_schema=inputs.schema,
        path_params=inputs.path_params,
        query_params=inputs.query_params,
        annotations=annotations(cand.method, title, options.annotations),
        declared_by=cand.declared_by,
        problems=tuple(_warnings(name, where, inputs, cand.declared_by)),
    )


def _warnings(
    name: str, where: str, inputs: input_schemas.InputSchema, obj: Any
) -> Iterator[ToolProblem]:
    if inputs.serializer_error:
        yield ToolProblem(
            "mcp_tools.W002",
            f"Tool {name!r} ({where}): the request serializer could not be read with a "
            f"synthetic anonymous request ({inputs.serializer_error}), so the input schema "
            "lists no body fields.",
            "Make get_serializer_class() work for an anonymous request (check "
            "request.user.is_authenticated before using the user), or declare the arguments "
            "with @mcp_tool(input_schema=...).",
            obj,
            error=False,
        )
    if inputs.query_error:
        yield ToolProblem(
            "mcp_tools.W003",
            f"Tool {name!r} ({where}): the query parameters of the filter backends and the "
            f"paginator could not be read ({inputs.query_error}), so the input schema lists "
            "none.",
            "Set queryset on the view (filter sets need its model), or declare the arguments "
            "with @mcp_tool(input_schema=...).",
            obj,
            error=False,
        )
    if inputs.unsupported_fields:
        yield ToolProblem(
            "mcp_tools.W004",
            f"Tool {name!r} ({where}): the field(s) {', '.join(inputs.unsupported_fields)} "
            "take uploaded files, which JSON arguments can't carry; they are left out of the "
            "input schema.",
            "Expose a variant of the view whose serializer takes a URL or base64 text "
            "instead, or leave this method out with methods=/actions=.",
            obj,
            error=False,
        )
