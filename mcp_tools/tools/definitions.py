"""One tool built from a routed view: its name, texts, annotations and schemas.

The registry finds the candidates (which method or action of which routed view a
declaration makes a tool); ``build_tool`` turns one into a ``Tool``, or raises
``ToolDefinitionError`` with the problem the system checks report.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Container, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from rest_framework.views import APIView

from ..conf import mcp_settings
from ..core.routes import BODY_METHODS
from ..protocol import headers as argument_headers
from ..protocol.headers import ANNOTATION, ArgumentHeader, InvalidHeader
from ..schemas import input_schema, spectacular
from ..schemas.introspection import ViewMethod
from ..schemas.output_schema import OutputSchemaTypeError, build_validator, resolve_output_schema
from ..schemas.queries import Lookup
from ..schemas.validators import argument_validator
from . import naming
from .annotations import tool_annotations
from .tool import NAME_RE, Tool, ToolOptions, ToolProblem, with_folded

logger = logging.getLogger("mcp_tools")

#: A tool's view queried a database that could not answer (no tables before ``migrate``):
#: the checks say it once, for every such tool.
UNREADY_DATABASE = "mcp_tools.W010"

#: The start-up error of each argument-header declaration the specification forbids.
HEADER_ERRORS = {
    argument_headers.BAD_NAME: "mcp_tools.E080",
    argument_headers.BAD_TYPE: "mcp_tools.E081",
    argument_headers.DUPLICATE: "mcp_tools.E082",
    argument_headers.UNREACHABLE: "mcp_tools.E083",
}


@dataclass(frozen=True)
class Candidate:
    """A method (or action) of a routed view that a declaration makes a tool."""

    operation: ViewMethod
    options: ToolOptions
    declared_by: object


class ToolDefinitionError(ValueError):
    """A declared tool cannot be built; carries the problem for the system checks."""

    def __init__(self, problem: ToolProblem) -> None:
        super().__init__(problem.id)
        self.problem = problem


@dataclass(frozen=True)
class OutputSide:
    """What a tool promises about its results (docs/results.md, output schemas)."""

    include_structured_content: bool
    schema: dict[str, Any] | None = None
    validator: Validator | None = None
    error: str | None = None


def build_tool(cand: Candidate, several: bool) -> Tool:
    """Resolve one candidate into a Tool; raise ``ToolDefinitionError`` if it can't be built."""
    options, obj, operation = cand.options, cand.declared_by, cand.operation
    route, view_class, method = operation.route, operation.view_class, operation.method
    where = naming.where(operation)
    name = options.name or naming.default_name(operation, several)
    if not NAME_RE.match(name):
        raise ToolDefinitionError(
            ToolProblem("mcp_tools.E002", obj, {"name": name, "where": where})
        )
    if options.input_schema is not None:
        invalid = input_schema.schema_problem(options.input_schema)
        if invalid:
            raise ToolDefinitionError(
                ToolProblem("mcp_tools.E005", obj, {"name": name, "problem": invalid})
            )
    model = operation.model
    annotated = spectacular.operation(operation.view, route, method)
    if annotated.tags:
        tags = (*options.tags, *(tag for tag in annotated.tags if tag not in options.tags))
        options = dataclasses.replace(options, tags=tags)
    try:
        arguments = input_schema.build_input_schema(operation, options.input_schema)
    except input_schema.ArgumentClash as exc:
        raise ToolDefinitionError(
            ToolProblem("mcp_tools.E004", obj, {"name": name, "where": where, "clash": str(exc)})
        ) from exc
    title = options.title or annotated.summary or naming.default_title(operation, several, model)
    problems = list(_input_problems(name, where, arguments, obj))
    schema, headers = header_side(name, arguments.schema, options, obj, problems)
    if annotated.error:
        fault = {
            "name": name,
            "error": annotated.error,
            "raised_in": annotated.raised_in,
            "unread": annotated.unread,
        }
        problems.append(ToolProblem("mcp_tools.W006", obj, fault))
    if method in BODY_METHODS and options.input_schema is None:
        problems.extend(_empty_body(name, where, arguments, view_class, obj))
    output = output_side(
        OutputSubject(name, operation, options, obj),
        structured=_switch(
            options.include_structured_content, mcp_settings.INCLUDE_STRUCTURED_CONTENT
        ),
        advertised=_switch(options.include_output_schema, mcp_settings.INCLUDE_OUTPUT_SCHEMA),
        problems=problems,
    )
    description = options.description
    if not description:
        purpose = annotated.description
        if purpose and naming.about_the_list(operation, str(purpose)):
            purpose = None  # a collection's words on a single-object action (NetBox's)
        purpose = purpose or naming.default_description(operation, title, model)
        description = described(purpose, operation, options, model, arguments.lookups)
    return Tool(
        name=name,
        title=title,
        description=description,
        operation=operation,
        options=options,
        input_schema=schema,
        validator=argument_validator(with_folded(schema, arguments.folded)),
        path_params=arguments.path_params,
        query_params=arguments.query_params,
        headers=headers,
        annotations=tool_annotations(method, title, options.annotations),
        include_structured_content=output.include_structured_content,
        output_schema=output.schema,
        output_validator=output.validator,
        output_schema_error=output.error,
        declared_by=obj,
        problems=tuple(problems),
        relations=tuple(arguments.related),
        former_name=None if options.name else naming.former_name(operation, several),
        folded=arguments.folded,
    )


def described(
    purpose: str,
    operation: ViewMethod,
    options: ToolOptions,
    model: Any,
    lookups: tuple[Lookup, ...] = (),
) -> str:
    """Return the purpose followed by what a call needs, what it returns and the lookups its
    filters take (a lazy string when the purpose is one): the description a tool gets unless
    it is declared."""
    try:
        schema = resolve_output_schema(options.output_schema, operation)
    except Exception:  # E020 reports an unusable output_schema=; the words just leave it out
        schema = None

    def extra() -> str:
        # Put into words when read, in the language active then, as the purpose is.
        texts = (
            naming.needs(operation),
            naming.returns(operation, schema, model),
            naming.lookup_rule(lookups),
        )
        return " ".join(text for text in texts if text)

    if not extra():
        return purpose
    return naming.later(lambda: f"{purpose} {extra()}")


def relate(tools: list[Tool]) -> list[Tool]:
    """Describe the arguments that name rows of another model, with the tool that lists it.

    Run once every tool of a URLconf is built: ``"author": "The id of an author; author_list
    lists them."``
    """
    listing: dict[Any, str] = {}
    for tool in tools:
        model = tool.operation.model if tool.operation.is_list else None
        if model is not None and tool.method == "GET":
            listing.setdefault(model, tool.name)
    related = []
    for tool in tools:
        if not tool.relations:
            related.append(tool)
            continue
        properties = dict(tool.input_schema.get("properties", {}))
        listings = []
        for relation in tool.relations:
            prop = properties.get(relation.argument)
            if not isinstance(prop, dict):
                continue
            text = prop.get("description")
            lister = listing.get(relation.model)
            if relation.path:  # the view's lookup: described already, the lister named
                if lister is not None and text:
                    described = f"{str(text).rstrip('.')}, as {lister} returns it."
                    properties[relation.argument] = {**prop, "description": described}
                    listings.append((relation.argument, lister, text))
                continue
            words = naming.relation_words(relation, lister)
            properties[relation.argument] = {
                **prop,
                "description": f"{text} {words}" if text else words,
            }
            if lister is not None:
                plain = naming.relation_words(relation, None)
                listings.append((relation.argument, lister, f"{text} {plain}" if text else plain))
        schema = {**tool.input_schema, "properties": properties}
        related.append(dataclasses.replace(tool, input_schema=schema, listings=tuple(listings)))
    return related


def hide_listings(definition: dict[str, Any], tool: Tool, seen: Container[str]) -> dict[str, Any]:
    """Return ``definition`` naming no listing tool the caller can't see (``seen`` are the
    names it sees): a hidden tool's existence is not told to those it is hidden from."""
    hidden = [(argument, plain) for argument, lister, plain in tool.listings if lister not in seen]
    if not hidden:
        return definition
    schema = definition["inputSchema"]
    properties = dict(schema["properties"])
    for argument, plain in hidden:
        properties[argument] = {**properties[argument], "description": plain}
    return {**definition, "inputSchema": {**schema, "properties": properties}}


def header_side(
    name: str,
    schema: dict[str, Any],
    options: ToolOptions,
    obj: object,
    problems: list[ToolProblem],
) -> tuple[dict[str, Any], tuple[ArgumentHeader, ...]]:
    """Return the input schema with ``headers=`` written in, and the argument headers it
    declares; raise ``ToolDefinitionError`` for a declaration the specification forbids.

    An argument of ``headers=`` this tool does not take is left to the registry, which
    refuses one no tool of the declaration takes (``mcp_tools.E084``).
    """
    if options.headers:
        properties = schema.get("properties", {})
        written = {}
        for argument, header in options.headers.items():
            prop = properties.get(argument)
            if not isinstance(prop, dict):
                continue
            known = prop.get(ANNOTATION)
            if known is not None and known != header:
                params = {"name": name, "argument": argument, "header": header, "known": known}
                raise ToolDefinitionError(ToolProblem("mcp_tools.E085", obj, params))
            written[argument] = {**_typed(prop), ANNOTATION: header}
        if written:
            schema = {**schema, "properties": {**properties, **written}}
    try:
        headers = argument_headers.declared(schema)
    except InvalidHeader as exc:
        params = {"name": name, **exc.params}
        if exc.kind == argument_headers.BAD_NAME:
            header = params["header"]
            params["header"] = repr(header) if isinstance(header, str) else type(header).__name__
        if "type" in params:
            params["type"] = "none" if params["type"] is None else _json(params["type"])
        raise ToolDefinitionError(ToolProblem(HEADER_ERRORS[exc.kind], obj, params)) from exc
    problems.extend(
        ToolProblem(
            "mcp_tools.W080",
            obj,
            {"name": name, "header": header.name, "hyphens": header.name.replace("_", "-")},
        )
        for header in headers
        if "_" in header.name
    )
    return schema, headers


def _typed(prop: dict[str, Any]) -> dict[str, Any]:
    """Return a property with no ``type`` but an ``enum`` of one type (a choice field) typed."""
    values = prop.get("enum")
    if "type" in prop or not isinstance(values, list) or not values:
        return prop
    if all(isinstance(value, str) for value in values):
        return {"type": "string", **prop}
    if all(isinstance(value, int) and not isinstance(value, bool) for value in values):
        return {"type": "integer", **prop}
    return prop


def _json(value: Any) -> str:
    try:
        return json.dumps(value)[:80]
    except (TypeError, ValueError):
        return type(value).__name__


def excluded(cand: Candidate) -> bool:
    """Return whether drf-spectacular's ``exclude=True`` leaves this candidate out.

    A declaration that names the operation itself (``@mcp_tool`` on the handler, or in its
    ``actions=``/``methods=``) wins over the exclusion from the API schema.
    """
    options, operation = cand.options, cand.operation
    if cand.declared_by is operation.handler:
        return False
    if operation.action is not None and options.actions is not None:
        return False
    if operation.action is None and options.methods is not None:
        return False
    return spectacular.operation(operation.view, operation.route, operation.method).excluded


def _switch(declared: bool | None, setting: Any) -> bool:
    return bool(setting if declared is None else declared)


@dataclass(frozen=True)
class OutputSubject:
    """What deciding a tool's output side needs to know of the tool."""

    name: str
    operation: ViewMethod
    options: ToolOptions
    declared_by: object


def output_side(
    tool: OutputSubject, *, structured: bool, advertised: bool, problems: list[ToolProblem]
) -> OutputSide:
    """Return what the tool promises about its results, given its two output switches."""
    name, obj = tool.name, tool.declared_by
    if not advertised:
        return OutputSide(include_structured_content=structured)
    if not structured:
        # An advertised schema without structured content is a promise every result breaks.
        problems.append(ToolProblem("mcp_tools.W020", obj, {"name": name}))
        logger.warning("Tool %s: include_output_schema forces include_structured_content on", name)
    try:
        schema = resolve_output_schema(tool.options.output_schema, tool.operation)
    except OutputSchemaTypeError as exc:
        # Advertise nothing rather than fail tools/list for every tool.
        problems.append(ToolProblem("mcp_tools.E020", obj, {"name": name, "type": str(exc)}))
        return OutputSide(include_structured_content=True)
    if schema is None:
        if tool.operation.method != "DELETE" or tool.options.output_schema is not None:
            # A DELETE answers with no body (docs/results.md): there is nothing to advertise.
            problems.append(ToolProblem("mcp_tools.W021", obj, {"name": name}))
        return OutputSide(include_structured_content=True)
    try:
        validator = build_validator(schema)
    except SchemaError as exc:
        error = f"the schema is invalid: {exc.message}"
        problems.append(ToolProblem("mcp_tools.E021", obj, {"name": name, "error": exc.message}))
        return OutputSide(include_structured_content=True, schema=schema, error=error)
    return OutputSide(include_structured_content=True, schema=schema, validator=validator)


def _input_problems(
    name: str, where: str, arguments: input_schema.InputSchema, obj: object
) -> Iterator[ToolProblem]:
    params = {"name": name, "where": where}
    if arguments.serializer_error:
        yield ToolProblem("mcp_tools.W002", obj, {**params, "error": arguments.serializer_error})
    if arguments.query_error:
        yield ToolProblem("mcp_tools.W003", obj, {**params, "error": arguments.query_error})
    if arguments.database_error:
        # Worded alone (the tool's page) or with the others (``check``: one message).
        unready = {"error": arguments.database_error, "count": 1, "names": name}
        yield ToolProblem(UNREADY_DATABASE, obj, {**params, **unready})
    if arguments.unsupported_fields:
        fields = ", ".join(arguments.unsupported_fields)
        yield ToolProblem("mcp_tools.W004", obj, {**params, "fields": fields})


def _empty_body(
    name: str,
    where: str,
    arguments: input_schema.InputSchema,
    view_class: type[APIView],
    obj: object,
) -> Iterator[ToolProblem]:
    """A body method whose schema names no body field: say where the fields could be declared."""
    if arguments.serializer_error or arguments.body_declared:
        return  # W002 says why, or the view says it takes no body
    outside = {*arguments.path_params, *arguments.query_params}
    if any(key not in outside for key in arguments.schema.get("properties", {})):
        return
    kind = "function" if naming.is_function_view(view_class) else "class"
    params = {"name": name, "where": where, "view": naming.view_label(view_class), "kind": kind}
    yield ToolProblem("mcp_tools.I001", obj, params)


def with_overrides(
    tool: Tool,
    *,
    title: str = "",
    description: str = "",
    annotations: dict[str, Any] | None = None,
    include_structured_content: bool | None = None,
    include_output_schema: bool | None = None,
) -> Tool:
    """Return ``tool`` as an admin configured it: each value given wins over the code's.

    Blank texts, empty annotations and None switches leave the code's value (precedence:
    admin > decorator > ``MCP_TOOLS`` > built-in default).
    """
    changes: dict[str, Any] = {}
    if title:
        changes["title"] = title
    if description:
        changes["description"] = description
    if title or annotations:
        merged = {**tool.annotations, **({"title": title} if title else {})}
        changes["annotations"] = {**merged, **(annotations or {})}
    if include_structured_content is not None or include_output_schema is not None:
        options = tool.options
        structured = _switch(
            options.include_structured_content, mcp_settings.INCLUDE_STRUCTURED_CONTENT
        )
        advertised = _switch(options.include_output_schema, mcp_settings.INCLUDE_OUTPUT_SCHEMA)
        subject = OutputSubject(tool.name, tool.operation, options, tool.declared_by)
        output = output_side(
            subject,
            structured=structured
            if include_structured_content is None
            else include_structured_content,
            advertised=advertised if include_output_schema is None else include_output_schema,
            problems=[],  # the admin form validated the switches; the code's problems stay
        )
        changes.update(
            include_structured_content=output.include_structured_content,
            output_schema=output.schema,
            output_validator=output.validator,
            output_schema_error=output.error,
        )
    return dataclasses.replace(tool, **changes) if changes else tool
