"""A tool's inputSchema: path parameters, query parameters and body fields, as one flat object.

Path parameters are typed from their URL converters (a router's regex lookup from the model
field) and always required; query parameters come from the filter backends and paginator
of list views; body fields from the request serializer (PATCH and partial actions require
none). A name used by two of them is a start-up error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Model
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError
from rest_framework import serializers
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from ..core.routes import BODY_METHODS, Route
from . import adapters, fields, spectacular
from .introspection import (
    IntrospectionError,
    ViewMethod,
    database_unready,
    lookup_model_field,
    serializer_of,
)
from .queries import Lookup, query_parameters
from .spectacular import NOT_DECLARED

Schema = dict[str, Any]

PARTIAL_ACTIONS = frozenset({"partial_update"})


class ArgumentClash(ValueError):
    """One argument name is used by two of path, query and body."""


@dataclass
class InputSchema:
    """The schema of a tool's arguments, and where each argument goes."""

    schema: Schema
    path_params: tuple[str, ...] = ()
    query_params: tuple[str, ...] = ()
    #: What introspection could not read (a message each), reported by system checks.
    serializer_error: str | None = None
    query_error: str | None = None
    #: What the database answered when the view's code read it (no tables before
    #: ``migrate``): reported once for every tool, not as each tool's fault.
    database_error: str | None = None
    #: The view's annotations declare its body: none (drf-spectacular's ``request=None``), or
    #: an object of any properties. A body of no listed field is then what the view says.
    body_declared: bool = False
    unsupported_fields: list[str] = field(default_factory=list)
    #: Body arguments that name rows of another model.
    related: list[fields.Relation] = field(default_factory=list)
    #: A FilterSet's lookup variants left out of ``schema`` (``FILTER_LOOKUPS``): the schema
    #: of each, which still types a call's arguments, and what each is.
    folded: dict[str, Schema] = field(default_factory=dict)
    lookups: tuple[Lookup, ...] = ()

    def fault(self, exc: Exception, kind: str) -> None:
        """Record what raised while the schema was read, as ``kind`` or as the database's."""
        text = str(exc) if isinstance(exc, IntrospectionError) else f"{type(exc).__name__}: {exc}"
        setattr(self, "database_error" if database_unready(exc) else kind, text)


def path_parameters(route: Route) -> tuple[str, ...]:
    """Return the URL kwargs a caller supplies (not those fixed by the pattern's kwargs)."""
    return tuple(p for p in route.parameters if p not in route.default_kwargs)


def path_parameter_schema(
    route: Route, view_class: type[APIView], param: str, model: type[Model] | None = None
) -> Schema:
    """Return one path parameter's schema: from its converter, or a router lookup's model;
    the view's lookup is described by its model field (``"The page's id."``)."""
    converter = route.converters.get(param)
    field = lookup_of(view_class, param, model)
    schema = fields.converter_schema(converter, route.group_patterns.get(param))
    if converter is None and field is not None and issubclass(view_class, ViewSetMixin):
        # Routers use a regex group for the lookup; the model field knows its type.
        typed = fields.model_field_schema(field)
        if typed.get("type") != "string":
            schema = typed
    if field is not None:
        owner = field.model._meta.verbose_name
        schema = {**schema, "description": f"The {owner}'s {field.name}."}
    return schema


def lookup_of(view_class: type[APIView], param: str, model: type[Model] | None) -> Any:
    """Return the model field a view looks its object up by, when ``param`` carries it."""
    if model is None or not hasattr(view_class, "lookup_field"):
        return None
    lookup = getattr(view_class, "lookup_field", "pk")
    lookup_kwarg = getattr(view_class, "lookup_url_kwarg", None) or lookup
    return lookup_model_field(model, lookup) if param == lookup_kwarg else None


def build_input_schema(operation: ViewMethod, declared: Schema | None = None) -> InputSchema:
    """Build the tool's input schema; raise ``ArgumentClash`` on a name used twice.

    The view's model (``ViewMethod.model``) types a router's lookup.
    """
    route, view_class = operation.route, operation.view_class
    method, action = operation.method, operation.action
    params = path_parameters(route)
    result = InputSchema(schema={}, path_params=params)
    view = operation.view
    declared_path: dict[str, Schema] = {}
    if declared is not None:
        schema = dict(declared)
        schema.setdefault("type", "object")
        properties = dict(schema.get("properties", {}))
        required = list(schema.get("required", []))
        query: dict[str, Schema] = {}
    else:
        annotated = spectacular.operation(view, route, method)
        schema, properties, required, query = {"type": "object"}, {}, [], {}
        if method in BODY_METHODS:
            body = _body_schema(view, method, action, result, annotated.request)
            if body is not None:
                properties, required = dict(body["properties"]), list(body.get("required", []))
                if "$defs" in body:
                    schema["$defs"] = body["$defs"]
                if "additionalProperties" in body:  # a serializer's False, or as declared
                    schema["additionalProperties"] = body["additionalProperties"]
        listing = operation.is_list
        if listing or adapters.adapter_for(operation.view_class) is not None:
            try:
                found = query_parameters(view, listing=listing)
            except Exception as exc:
                result.fault(exc, "query_error")
            else:
                query = found.properties
                required = [*found.required, *required]
                result.related = [*found.related, *result.related]
                result.folded, result.lookups = found.folded, tuple(found.lookups)
        declared_path = _declared_parameters(annotated.parameters, query, required)
        _unfold_declared(result, query)
        _check_clashes(params, query, properties)
    model = operation.model if params else None
    path_properties = {p: path_parameter_schema(route, view_class, p, model) for p in params}
    for param in params:
        field = lookup_of(view_class, param, model)
        if field is not None and param not in declared_path:
            result.related.append(fields.Relation(param, field.model, field.name, path=True))
    path_properties.update((p, declared_path[p]) for p in params if p in declared_path)
    schema["properties"] = {**path_properties, **query, **properties}
    if schema.get("additionalProperties") is False and not properties:
        del schema["additionalProperties"]
    required = [*params, *(name for name in required if name not in params)]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    result.schema = _ordered(schema)
    result.query_params = tuple(query)
    return result


def required_query(operation: ViewMethod) -> list[str]:
    """Return the query parameters the view declares required, whatever its tool's schema
    says: its filter backends' and paginator's (a list), an adapter's, and drf-spectacular's
    ``parameters=``. The same reading as ``build_input_schema``'s, for ``mcp_lint`` to hold a
    hand-written schema to."""
    query: dict[str, Schema] = {}
    required: list[str] = []
    listing = operation.is_list
    if listing or adapters.adapter_for(operation.view_class) is not None:
        found = query_parameters(operation.view, listing=listing)
        query, required = found.properties, list(found.required)
    annotated = spectacular.operation(operation.view, operation.route, operation.method)
    _declared_parameters(annotated.parameters, query, required)
    return required


def _body_schema(
    view: Any, method: str, action: str | None, result: InputSchema, annotated: Any
) -> Schema | None:
    partial = method == "PATCH" or action in PARTIAL_ACTIONS
    declared = _media_value(spectacular.unwrap(annotated))
    if declared is not NOT_DECLARED:
        return _declared_body(declared, partial, result)
    try:
        serializer = serializer_of(view)
    except IntrospectionError as exc:
        result.fault(exc, "serializer_error")
        return None
    return _serializer_body(serializer, partial, result)


def _media_value(value: object) -> Any:
    """The JSON entry of a ``{media type: request}`` dict; anything else as is."""
    if isinstance(value, dict) and value and all(isinstance(k, str) and "/" in k for k in value):
        json_types = [key for key in value if "json" in key]
        return spectacular.unwrap(value[json_types[0] if json_types else next(iter(value))])
    return value


def _declared_body(declared: Any, partial: bool, result: InputSchema) -> Schema | None:
    """The body fields of drf-spectacular's ``request=``: a serializer, or a schema of an object."""
    if declared is None:
        result.body_declared = True  # request=None: the view reads no body
        return None
    if spectacular.polymorphic_serializers(declared) is not None:
        return None  # one of several shapes: no flat list of arguments can say it
    if isinstance(declared, type) and issubclass(declared, serializers.BaseSerializer):
        declared = declared()
    if isinstance(declared, serializers.BaseSerializer):
        return _serializer_body(declared, partial, result)
    schema = fields.declared_schema(declared) or {}
    if schema.get("type") != "object":
        return None  # a body that is not an object can't be arguments
    result.body_declared = True
    body: Schema = {"properties": dict(schema.get("properties") or {})}
    if schema.get("required") and not partial:
        body["required"] = list(schema["required"])
    if "additionalProperties" in schema:
        body["additionalProperties"] = schema["additionalProperties"]
    return body


def _serializer_body(
    serializer: serializers.BaseSerializer | None, partial: bool, result: InputSchema
) -> Schema | None:
    if serializer is None or isinstance(serializer, serializers.ListSerializer):
        return None  # no serializer, or a body that is an array: no arguments to list
    context = fields.SchemaContext(partial=partial, files_unsupported=True, explain=True)
    try:
        body = fields.serializer_schema(serializer, context=context)
    except Exception as exc:
        # A field whose own code fails when its sub-fields are read: report, don't crash.
        result.fault(exc, "serializer_error")
        return None
    result.unsupported_fields = list(context.unsupported)
    result.related = list(context.related)
    return body


def _declared_parameters(
    parameters: tuple[Any, ...], query: dict[str, Schema], required: list[str]
) -> dict[str, Schema]:
    """Apply drf-spectacular's ``parameters=`` to the query arguments (in place); return the
    schemas it declares for path parameters.

    Header and cookie parameters are left out: a tool call carries neither.
    """
    path: dict[str, Schema] = {}
    for parameter in parameters:
        if not spectacular.is_parameter(parameter):
            # A serializer: each of its fields is a query parameter, as spectacular reads it.
            serializer = parameter() if isinstance(parameter, type) else parameter
            for name, field in fields.writable_fields(serializer).items():
                query[name] = fields.field_schema(field)
                if field.required and name not in required:
                    required.append(name)
            continue
        if parameter.response or parameter.location not in ("query", "path"):
            continue
        if parameter.location == "path":
            if not parameter.exclude:
                path[parameter.name] = _parameter_schema(parameter)
            continue
        if parameter.name in required:
            required.remove(parameter.name)
        if parameter.exclude:
            query.pop(parameter.name, None)
            continue
        query[parameter.name] = _parameter_schema(parameter)
        if parameter.required:
            required.append(parameter.name)
    return path


def _unfold_declared(result: InputSchema, query: dict[str, Schema]) -> None:
    """Keep folded only the variants the annotations left alone, of a base still listed."""
    result.folded = {name: schema for name, schema in result.folded.items() if name not in query}
    result.lookups = tuple(
        lookup
        for lookup in result.lookups
        if lookup.base in query and f"{lookup.base}__{lookup.suffix}" in result.folded
    )


def _parameter_schema(parameter: Any) -> Schema:
    """The schema of one ``OpenApiParameter``: its type, ``many``, enum, pattern, default."""
    schema = fields.declared_schema(parameter.type) or {}
    if parameter.many:
        schema = {"type": "array", "items": schema}
    values = schema["items"] if parameter.many else schema
    if parameter.enum:
        values["enum"] = list(parameter.enum)
    if parameter.pattern:
        values["pattern"] = parameter.pattern
    if parameter.default is not None and fields.is_json(parameter.default):
        schema["default"] = parameter.default
    if parameter.description:
        schema["description"] = str(parameter.description)
    return schema


def _check_clashes(path: tuple[str, ...], query: Schema, body: Schema) -> None:
    places = {"the URL path": set(path), "the query string": set(query), "the body": set(body)}
    seen: dict[str, str] = {}
    for place, names in places.items():
        for name in sorted(names):
            if name in seen:
                raise ArgumentClash(f"argument {name!r} is used by both {seen[name]} and {place}")
            seen[name] = place


def _ordered(schema: Schema) -> Schema:
    # type, properties, required first: the order a reader (and a model) expects.
    keys = ["type", "properties", "required", "additionalProperties"]
    ordered = {key: schema[key] for key in keys if key in schema}
    ordered.update((key, value) for key, value in schema.items() if key not in ordered)
    return ordered


def schema_problem(schema: Schema) -> str | None:
    """Return why ``schema`` is not a valid JSON Schema (2020-12 and draft-07), or None."""
    for validator_class in (Draft202012Validator, Draft7Validator):
        try:
            validator_class.check_schema(schema)
        except SchemaError as exc:
            where = "/".join(str(part) for part in exc.absolute_path) or "(root)"
            return f"{exc.message} (at {where}, {validator_class.__name__})"
    if schema.get("type") != "object":
        return "the root must be an object schema (type: object)"
    return None
