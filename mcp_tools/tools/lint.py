"""Tool definitions scored as a model reads them: six components, and the smells that lower them.

The components follow "MCP Tool Descriptions Are Smelly!" (2026): purpose; how to use the
tool; its limitations; its parameters explained; length and completeness; examples. Each
scores 0 (missing) to 2 (stated); each gap is a named smell with a level and a hint
(``manage.py mcp_lint``, docs/tools.md).
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import json
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rest_framework import filters, pagination

from ..schemas.input_schema import required_query
from .naming import about_the_list, needs
from .tool import Tool

#: Smell levels, lowest first.
LEVELS = ("info", "warning", "error")
COMPONENTS = ("purpose", "usage", "limitations", "parameters", "length", "examples")

#: Characters per token, the approximation used without a tokenizer.
CHARS_PER_TOKEN = 4
#: A description shorter than this says too little.
MIN_DESCRIPTION_CHARS = 20
#: A tool's budget: the characters of its definition's compact JSON, as ``tools/list``
#: carries it (about 2,000 tokens). Past it a definition costs a model more steps than it
#: saves (the study's finding on long descriptions), and every client pays it on every
#: ``tools/list`` (docs/tools.md#a-budget-per-tool).
MAX_DEFINITION_CHARS = 8000

LIMIT_WORDS = re.compile(
    r"\b(needs?|requires?|only|must|permission|allowed|throttl\w*|limit\w*)\b", re.I
)
RETURN_WORDS = re.compile(
    r"\b(returns?|answers?|results?|shows?|exports?|gives?|draws?|publish\w*|lists?|counts?)\b",
    re.I,
)
USAGE_WORDS = re.compile(r"\b(call|pass|use|with|give|send|set)\b", re.I)
EXAMPLE_WORDS = re.compile(r"\b(e\.g\.|for example|example)", re.I)


@dataclass(frozen=True)
class Smell:
    """One gap in a tool's definition."""

    component: str
    code: str
    level: str
    message: str
    hint: str


@dataclass
class Report:
    """A tool's scores (0-2 per component) and smells."""

    name: str
    tokens: int
    scores: dict[str, int] = field(default_factory=dict)
    smells: list[Smell] = field(default_factory=list)

    @property
    def score(self) -> int:
        return sum(self.scores.values())

    def smell(self, component: str, code: str, level: str, message: str, hint: str) -> None:
        self.smells.append(Smell(component, code, level, message, hint))
        self.scores[component] = min(self.scores[component], 0 if level != "info" else 1)


def definition_chars(definition: dict[str, Any]) -> int:
    """Return a definition's size in characters of its compact JSON."""
    return len(json.dumps(definition, separators=(",", ":"), ensure_ascii=False, default=str))


def definition_tokens(definition: dict[str, Any]) -> int:
    """Return a definition's size in tokens, as characters of its compact JSON ÷ 4."""
    return round(definition_chars(definition) / CHARS_PER_TOKEN)


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def lint_tool(tool: Tool | None, definition: dict[str, Any] | None = None) -> Report:
    """Score one tool's definition (as a client lists it) and name its smells.

    Without ``tool`` (a tool of the package's own, as discovery mode's), ``definition`` is
    all there is: the smells read from a view are not looked for.
    """
    if definition is None:
        assert tool is not None, "lint_tool() needs a tool or its definition"
        definition = tool.definition()
    description = str(definition.get("description") or "").strip()
    title = str(definition.get("title") or "").strip()
    schema = definition.get("inputSchema") or {}
    properties = _properties(schema)
    chars = definition_chars(definition)
    name = tool.name if tool is not None else str(definition.get("name", ""))
    report = Report(name, round(chars / CHARS_PER_TOKEN), dict.fromkeys(COMPONENTS, 2))

    if len(description.split()) < 3 or description.rstrip(".").lower() == title.lower():
        report.smell(
            "purpose",
            "unclear-purpose",
            "error",
            "the description does not say what the tool does",
            "Start the view's docstring (or description=) with what the tool does, as a verb.",
        )
    elif tool is not None and (repeated := _repeated_name(tool, description)):
        report.smell(
            "purpose",
            "repeats-name",
            "error",
            f"the description starts by repeating the view's name ({repeated!r})",
            "Start the view's docstring (or description=) with what the tool does, as a verb.",
        )

    if tool is not None and about_the_list(tool.operation, description):
        report.smell(
            "purpose",
            "list-for-one",
            "warning",
            "the tool acts on one object, and its description speaks of a list",
            "Describe what the tool does to one object: a docstring on the action (or "
            "description=), not the class's words for the collection.",
        )

    path_params = set(tool.path_params) if tool is not None else set()
    untyped = [name for name, prop in properties.items() if not _typed(prop)]
    for name in untyped:
        report.smell(
            "parameters",
            "untyped-parameter",
            "warning",
            f"argument {name!r} has no type",
            "Give the field (or filter) a type a schema can say, or declare the argument with "
            "@mcp_tool(input_schema=...) or expose(..., input_schema=...).",
        )
    undescribed = [name for name, prop in properties.items() if not _described(prop)]
    for name in undescribed:
        if name not in path_params:
            report.smell(
                "parameters",
                "undescribed-parameter",
                "warning",
                f"argument {name!r} has no description",
                "Give the serializer field (or filter) a help_text, or the model field a "
                "verbose_name.",
            )
        elif not re.search(rf"\b{re.escape(name)}\b", description):
            report.smell(
                "parameters",
                "undescribed-path-parameter",
                "warning",
                f"URL argument {name!r} has no description",
                f"Say what {name} identifies in the view's docstring (or description=), or "
                "declare its schema with @mcp_tool(input_schema=...) or expose(..., "
                "input_schema=...); a router's lookup on a ViewSet is described by its "
                "lookup_field's model field (verbose_name).",
            )

    query = [name for name in properties if name not in path_params]
    unread = False
    lister = _lister(tool) if tool is not None else None
    if lister is not None:
        names, read = lister
        missing = sorted(read - set(properties))
        if not query or missing:
            unread = True
            named = f": {', '.join(missing)}" if missing else ""
            report.smell(
                "parameters",
                "unlisted-query-parameters",
                "warning",
                f"the tool lists a collection through {names}, and its input schema names "
                f"{'none' if not query else 'not all'} of the query parameters they read"
                f"{named}",
                "Declare the query parameters with @mcp_tool(input_schema=...) or expose(..., "
                "input_schema=...), or give the backend a get_schema_operation_parameters().",
            )
    unnamed = sorted(_reads(tool) - set(properties)) if tool is not None else []
    if unnamed:
        unread = True
        report.smell(
            "parameters",
            "unnamed-query-parameters",
            "warning",
            f"the view reads query parameters its input schema does not name: {', '.join(unnamed)}",
            "Declare them with @mcp_tool(input_schema=...) or expose(..., input_schema=...), "
            "each with a description.",
        )

    required = [name for name in schema.get("required", []) if name in properties]
    declared = _declared_required(tool) if tool is not None else []
    lacking = [name for name in declared if name not in required]
    if lacking:
        report.smell(
            "parameters",
            "lacks-required-parameters",
            "error",
            f"the view declares required query parameters its input schema does not require: "
            f"{', '.join(lacking)}",
            "Let the tool's schema be built from the view (drop input_schema=), or name them "
            "in its properties and required list.",
        )
    if ((required and undescribed) or unread) and not USAGE_WORDS.search(description):
        report.smell(
            "usage",
            "no-usage",
            "warning",
            "neither the description nor the arguments say how to call the tool",
            "Describe the required arguments, or say in the description what to pass.",
        )

    restricted = needs(tool.operation) if tool is not None else ""
    if restricted and not (LIMIT_WORDS.search(description) or _names_any(description, restricted)):
        report.smell(
            "limitations",
            "unstated-limitations",
            "warning",
            f"the view restricts its callers ({restricted}) and the description does not say so",
            "Let the description say who may call the tool and how often.",
        )

    if len(description) < MIN_DESCRIPTION_CHARS:
        report.smell(
            "length",
            "too-short",
            "warning",
            f"the description is {len(description)} characters long",
            "Say what the tool does, what it needs and what it returns in a sentence each.",
        )
    if "outputSchema" not in definition and not RETURN_WORDS.search(description):
        report.smell(
            "length",
            "no-return",
            "warning",
            "the description does not say what a call returns",
            "Name what the result holds, or advertise an output schema (include_output_schema).",
        )
    if chars > MAX_DEFINITION_CHARS:
        report.smell(
            "length",
            "too-long",
            "warning",
            f"the definition is {chars:,} characters (about {report.tokens:,} tokens), over "
            f"the budget of {MAX_DEFINITION_CHARS:,}",
            'Fold filter lookups (MCP_TOOLS["FILTER_LOOKUPS"] = "exact"), shorten the '
            "description, or leave long choice lists to a lookup tool.",
        )

    if properties and not (EXAMPLE_WORDS.search(description) or _has_examples(properties)):
        report.smell(
            "examples",
            "no-examples",
            "info",
            "no example of a call or of an argument",
            "Add an example call to the description, or examples= to an argument's schema.",
        )
    return report


def _declared_required(tool: Tool) -> list[str]:
    """Return the query parameters the tool's view declares required; none when they can't
    be read (the check of the tool's schema says why)."""
    try:
        return required_query(tool.operation)
    except Exception:
        return []


#: The keywords that say what a value may be: a schema with none of them takes anything.
TYPING_KEYWORDS = ("type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref")


def _typed(prop: Any) -> bool:
    return isinstance(prop, dict) and any(key in prop for key in TYPING_KEYWORDS)


def _described(prop: Any) -> bool:
    return isinstance(prop, dict) and bool(str(prop.get("description") or "").strip())


def _has_examples(properties: dict[str, Any]) -> bool:
    return any(isinstance(prop, dict) and "examples" in prop for prop in properties.values())


def _names_any(description: str, restricted: str) -> bool:
    names = re.findall(r"[A-Z]\w+", restricted)
    return any(name in description for name in names)


# What a model can't know: names repeated, query parameters read but not named ---------------


def _squeezed(text: str) -> str:
    """``Entries API view-set`` and ``entries_apiview_set`` alike: ``entriesapiviewset``."""
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _repeated_name(tool: Tool, description: str) -> str | None:
    """Return the name the description's first sentence repeats, else None.

    The name is the view class's (in any case, with or without its View/ViewSet ending,
    however spaced) or DRF's view name; or the sentence is the title naming builds for a
    non-standard action (``Page: listing view``). A name before a colon counts
    (``pages_api_view_set: ...``). A standard action's sentence (``List books.``) is the
    title too, and says what the tool does: it is no repetition.
    """
    first = re.split(r"(?<=[.!?])\s", description, maxsplit=1)[0].rstrip(".!? ")
    view_class = tool.operation.view_class
    class_name = view_class.__name__
    stem = re.sub(r"(API)?View(Set)?$", "", class_name) or class_name
    names = {_squeezed(class_name), _squeezed(stem)}
    with contextlib.suppress(Exception):  # a view that can't be made without arguments
        names.add(_squeezed(str(view_class().get_view_name())))
    names.discard("")
    action = tool.operation.action
    if action is not None:
        words = re.escape(action.replace("_", " "))
        if re.fullmatch(rf"[^:]{{1,80}}: {words}", first, re.I):
            return first
    head = first.split(":", 1)[0]
    if _squeezed(first) in names or _squeezed(head) in names:
        return head if _squeezed(head) in names else first
    return None


#: The filter backends and paginators whose parameters the package reads from their own
#: attributes: a list tool may rightly name none of them (a SearchFilter without fields).
READ_BACKENDS: tuple[type, ...] = (filters.SearchFilter, filters.OrderingFilter)
READ_PAGINATORS = (
    pagination.PageNumberPagination,
    pagination.LimitOffsetPagination,
    pagination.CursorPagination,
)
try:  # django-filter is optional
    from django_filters.rest_framework import DjangoFilterBackend

    READ_BACKENDS += (DjangoFilterBackend,)
except ImportError:  # pragma: no cover - exercised only without django-filter
    pass
#: Query parameters every DRF view takes and no tool needs: ``format`` (DRF's
#: URL_FORMAT_OVERRIDE) and ``_`` (jQuery's cache-busting).
IGNORED_PARAMETERS = frozenset({"format", "_"})
#: The view attributes that declare the query parameters a view accepts, by their name's
#: ending (Wagtail's ``known_query_parameters``), read where the handler uses them.
DECLARING_ATTRIBUTES = ("query_parameters", "query_params")
#: How many of the view's own methods a handler's source is followed into.
MAX_FOLLOWED = 8


def _says_its_parameters(cls: type, base: type) -> bool:
    """Whether a backend or paginator describes its parameters itself, as DRF asks."""
    own = getattr(cls, "get_schema_operation_parameters", None)
    return own is not None and own is not getattr(base, "get_schema_operation_parameters", None)


def _lister(tool: Tool) -> tuple[str, set[str]] | None:
    """Return, for a tool that lists a collection through filter backends or a paginator the
    package can't read, their names and the query parameters their source is seen to read."""
    view = tool.operation.view
    if not (tool.operation.is_list or _calls(tool.operation.handler, _LIST_CALLS)):
        return None
    opaque: list[tuple[type, str]] = [
        (backend, "filter_queryset")
        for backend in getattr(view, "filter_backends", ()) or ()
        if isinstance(backend, type)
        and not issubclass(backend, READ_BACKENDS)
        and not _says_its_parameters(backend, filters.BaseFilterBackend)
    ]
    paginator = getattr(view, "paginator", None)
    if (
        paginator is not None
        and not isinstance(paginator, READ_PAGINATORS)
        and not _says_its_parameters(type(paginator), pagination.BasePagination)
    ):
        opaque.append((type(paginator), "paginate_queryset"))
    if not opaque:
        return None
    read: set[str] = set()
    for cls, method in opaque:
        read |= _source_reads(getattr(cls, method, None))
    return ", ".join(cls.__name__ for cls, _ in opaque), read - IGNORED_PARAMETERS


_LIST_CALLS = frozenset({"filter_queryset", "paginate_queryset"})


def _reads(tool: Tool) -> set[str]:
    """Return the query parameters the handler's own source (and the view's methods it calls
    on ``self``) reads by name, or declares in a ``*_query_parameters`` attribute it uses."""
    view_class = tool.operation.view_class
    read: set[str] = set()
    seen: set[str] = set()
    todo = [tool.operation.handler]
    while todo and len(seen) < MAX_FOLLOWED:
        function = todo.pop()
        tree = _tree(function)
        if tree is None:
            continue
        read |= _query_reads(tree)
        for name in _self_attributes(tree) - seen:
            seen.add(name)
            value = getattr(view_class, name, None)
            declared = (
                _names(value) if name.endswith(("query_parameters", "query_params")) else None
            )
            if declared is not None:
                read |= declared
            elif callable(value) and not _drf_own(value):
                todo.append(value)
    return read - IGNORED_PARAMETERS


def _names(value: Any) -> set[str] | None:
    """Return a declared collection of parameter names as a set, else None."""
    if isinstance(value, set | frozenset | list | tuple) and all(
        isinstance(each, str) for each in value
    ):
        return set(value)
    return None


def _drf_own(function: Any) -> bool:
    return (getattr(function, "__module__", "") or "").startswith(("rest_framework", "django."))


def _tree(function: Any) -> ast.AST | None:
    """Return a function's parsed source, or None where it can't be read (a builtin, a
    lambda of a generated class, a module shipped without its source)."""
    function = inspect.unwrap(getattr(function, "__func__", function)) if function else None
    if function is None or _drf_own(function):
        return None
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None


def _source_reads(function: Any) -> set[str]:
    tree = _tree(function)
    return _query_reads(tree) if tree is not None else set()


def _calls(function: Any, names: Iterable[str]) -> bool:
    tree = _tree(function)
    return tree is not None and bool(_self_attributes(tree) & set(names))


def _is_query(node: ast.AST) -> bool:
    """``request.GET``, ``request.query_params``, ``self.request.GET``, ..."""
    return isinstance(node, ast.Attribute) and node.attr in ("GET", "query_params")


def _key(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _query_reads(tree: ast.AST) -> set[str]:
    """Return the names read from the query string with a literal key: ``.get("x")``,
    ``.getlist("x")``, ``["x"]`` and ``"x" in`` on ``request.GET`` or ``query_params``."""
    read: set[str] = set()
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("get", "getlist"):
                key = _key(node.args[0]) if _is_query(func.value) else None
        elif isinstance(node, ast.Subscript) and _is_query(node.value):
            key = _key(node.slice)
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], ast.In | ast.NotIn)
            and _is_query(node.comparators[0])
        ):
            key = _key(node.left)
        if key:
            read.add(key)
    return read


def _self_attributes(tree: ast.AST) -> set[str]:
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def at_or_above(smell: Smell, level: str) -> bool:
    """Return whether ``smell`` is at ``level`` or above it."""
    return LEVELS.index(smell.level) >= LEVELS.index(level)
