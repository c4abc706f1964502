"""Tools: what ``@mcp_tool`` declares, and one tool resolved from a routed view.

Plain data: the registry resolves declarations into tools (``mcp_tools.tools.definitions``
builds each one), and the rest of the package only reads them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from django.utils.functional import Promise
from rest_framework.views import APIView

from ..auth.caller import authentication_of, declared_classes
from ..core.routes import BODY_METHODS, Route

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from ..protocol.headers import ArgumentHeader
    from ..schemas.fields import Relation
    from ..schemas.introspection import ViewMethod

NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
TOOL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


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
    #: Ask the user before the view runs: True, a message template, False, or None for the
    #: ``CONFIRM_DESTRUCTIVE`` default.
    confirm: bool | str | None = None
    #: Arguments mirrored in ``Mcp-Param-<Name>`` headers: argument name → header name.
    headers: dict[str, str] | None = None
    #: Whether a call may run as an MCP task (docs/tasks.md): None (never), ``"optional"``
    #: (when the client can take one) or ``"required"`` (refused where it can't).
    task: str | None = None
    #: Made without naming the tool (``EXPOSE_PATHS``, or ``expose()`` of a whole class): one
    #: that fails a check is left out with a warning (``mcp_tools.W009``), not an error.
    wholesale: bool = False


@dataclass(frozen=True, repr=False)
class ViewPart:
    """One action of a ViewSet class, or one HTTP method of an APIView class, declared on
    its own: what ``expose(View, actions=[...])`` declares, as ``@mcp_tool`` on the handler
    would, for a class whose source the project does not own (its handler may be a mixin's,
    shared by every view)."""

    view_class: type[APIView]
    #: The action (``"create"``, ``"me"``) or the HTTP method (``"GET"``).
    name: str

    def __repr__(self) -> str:  # as checks and errors name it: UserViewSet.create
        return f"{self.view_class.__qualname__}.{self.name}"


@dataclass(frozen=True)
class ToolProblem:
    """A misconfiguration found while resolving tools; ``mcp_tools.checks`` words it."""

    #: The system check id, e.g. ``mcp_tools.E002``.
    id: str
    #: What the problem is about: the decorated class, function or handler.
    obj: object = None
    #: The values its message names (tool name, routes, ...).
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> bool:
        return ".E" in self.id

    @property
    def info(self) -> bool:
        return ".I" in self.id


@dataclass(frozen=True, eq=False)
class Tool:
    """One MCP tool: a routed view, one HTTP method (and ViewSet action) of it."""

    name: str
    #: The title and the description, each a ``str`` or a lazy translation of one.
    title: str
    description: str
    #: The routed view's method (and action) the tool calls.
    operation: ViewMethod
    options: ToolOptions
    input_schema: dict[str, Any]
    #: The input validator, compiled once from ``input_schema`` and ``folded``.
    validator: Validator
    #: Names of arguments that fill the URL path; the rest go to the query or the body.
    path_params: tuple[str, ...] = ()
    #: Names of arguments that go to the query string even when the method has a body.
    query_params: tuple[str, ...] = ()
    #: The arguments a 2026-07-28 client mirrors in ``Mcp-Param-*`` headers, checked per call.
    headers: tuple[ArgumentHeader, ...] = ()
    annotations: dict[str, Any] = field(default_factory=dict)
    #: Whether JSON results carry structuredContent (an advertised output schema forces it).
    include_structured_content: bool = True
    #: The advertised output schema (unwrapped), or None when none is advertised.
    output_schema: dict[str, Any] | None = None
    #: Its compiled validator, or None when the schema itself is invalid (see below).
    output_validator: Validator | None = None
    #: Why the advertised output schema can't be checked, when it can't.
    output_schema_error: str | None = None
    #: The key the tool was declared under (a class or a function), to report clashes.
    declared_by: object = None
    #: Problems found while building the tool, reported by the system checks.
    problems: tuple[ToolProblem, ...] = ()
    #: Arguments that name rows of another model (``schemas.fields.Relation``).
    relations: tuple[Relation, ...] = ()
    #: The arguments whose description names the tool that lists their rows: (argument,
    #: that tool, the description without it, for a caller who doesn't see that tool).
    listings: tuple[tuple[str, str, str], ...] = ()
    #: The name an earlier version gave the tool (``naming.former_name``), or None.
    former_name: str | None = None
    #: Lookup variants of its filters that ``input_schema`` leaves out (``FILTER_LOOKUPS``,
    #: the description states them): their schemas, which still type a call's arguments.
    folded: dict[str, Any] = field(default_factory=dict)

    @property
    def method(self) -> str:
        return self.operation.method

    @property
    def route(self) -> Route:
        return self.operation.route

    @property
    def view_class(self) -> type[APIView]:
        return self.operation.view_class

    @property
    def action(self) -> str | None:
        return self.operation.action

    @property
    def callback(self) -> Callable[..., Any]:
        return self.operation.route.callback

    @property
    def initkwargs(self) -> Mapping[str, Any]:
        """The view's ``as_view()`` arguments: its instance's attributes over the class's
        (``as_view(authentication_classes=[...])``)."""
        return getattr(self.callback, "initkwargs", None) or {}

    def declared(self, name: str) -> tuple[type, ...] | None:
        """Return the classes the view declares as ``name`` (``permission_classes``,
        ``authentication_classes``), its ``as_view()`` arguments first; None when its
        instance computes them (``auth.caller.declared_classes``)."""
        return declared_classes(self.view_class, name, self.initkwargs)

    @property
    def authentication(self) -> type[APIView] | tuple[type, ...]:
        """What decides how the view authenticates a request (``auth.caller.authentication_of``):
        a key equal for views that authenticate alike. Worked out again only when the view
        class's ``authentication_classes`` or ``get_authenticators`` is replaced (a test's
        ``monkeypatch``), as DRF reads them per request."""
        view_class = self.view_class
        declared = getattr(view_class, "authentication_classes", None)
        chooser = view_class.get_authenticators
        known = self.__dict__.get("_authentication")
        if known is None or known[0] is not declared or known[1] is not chooser:
            found = authentication_of(view_class, self.initkwargs)
            known = self.__dict__["_authentication"] = (declared, chooser, found)
        return known[2]

    @property
    def has_body(self) -> bool:
        return self.method in BODY_METHODS

    @cached_property
    def argument_schema(self) -> dict[str, Any]:
        """The schema a call's arguments are converted by: ``input_schema`` and ``folded``."""
        return with_folded(self.input_schema, self.folded)

    @cached_property
    def takes_no_arguments(self) -> bool:
        """Whether a call without arguments is valid (checked once: most such calls are)."""
        return not any(self.validator.iter_errors({}))

    def definition(self) -> dict[str, Any]:
        """Return the tool's wire definition (2025-11-25 form, before projection).

        Titles and descriptions may be lazy translations: they are put into words here, in
        the active language.
        """
        definition: dict[str, Any] = {
            "name": self.name,
            "title": str(self.title),
            "description": str(self.description),
            "inputSchema": self.input_schema,
            "annotations": {
                key: str(value) if isinstance(value, Promise) else value
                for key, value in self.annotations.items()
            },
        }
        if self.options.icons:
            definition["icons"] = self.options.icons
        if self.options.meta:
            definition["_meta"] = self.options.meta
        if self.output_schema is not None:
            definition["outputSchema"] = self.output_schema  # unwrapped; projection wraps it
        if self.options.task is not None:
            # Only 2025-11-25 carries it; 2026-07-28's server decides call by call.
            definition["execution"] = {"taskSupport": self.options.task}
        return definition


def with_folded(schema: dict[str, Any], folded: dict[str, Any]) -> dict[str, Any]:
    """Return ``schema`` with the lookup variants it leaves out as properties again: what a
    call's arguments are typed and checked by (docs/tools.md#lookup-variants)."""
    if not folded:
        return schema
    return {**schema, "properties": {**schema.get("properties", {}), **folded}}
