"""Output schemas: which schema a tool's results follow, and where it comes from.

A tool's schema is the decorator's ``output_schema`` (a dict, a Serializer class or
instance), else drf-spectacular's ``responses=``, else what a schema adapter says the view
answers (``schemas.adapters``), else the schema of what the view's serializer renders (a
list action's page or array as the view returns it). It is kept unwrapped; projection wraps
non-object schemas and values together for protocol versions that need objects.
Enforcement is elsewhere (``mcp_tools.pipeline.enforcement``).
"""

from __future__ import annotations

import logging
from typing import Any

from jsonschema import Draft202012Validator
from rest_framework import fields as drf_fields
from rest_framework import serializers
from rest_framework.settings import api_settings

from . import adapters, fields, spectacular
from .introspection import ViewMethod
from .spectacular import NOT_DECLARED

logger = logging.getLogger("mcp_tools")

Schema = dict[str, Any]

INPUT_ONLY = frozenset({"default", "pattern", "minLength", "maxLength", "minimum", "maximum"})


class OutputSchemaTypeError(TypeError):
    """``output_schema=`` is neither a JSON Schema dict nor a Serializer."""


def resolve_output_schema(declared: Any, operation: ViewMethod) -> Schema | None:
    """Return the output schema from the decorator or the view, or None if unknown.

    Raises ``OutputSchemaTypeError`` when ``declared`` is of no usable type.
    """
    if isinstance(declared, dict):
        return dict(declared)
    if isinstance(declared, type) and issubclass(declared, serializers.BaseSerializer):
        return serializer_output_schema(declared())
    if isinstance(declared, serializers.BaseSerializer):
        return serializer_output_schema(declared)
    if declared is not None:
        raise OutputSchemaTypeError(type(declared).__name__)
    responses = spectacular.operation(operation.view, operation.route, operation.method).responses
    if responses is not NOT_DECLARED:
        return declared_output_schema(responses, operation)
    taught = adapters.output(operation.view)
    if taught is not None:
        return taught
    return view_output_schema(operation)


def view_output_schema(operation: ViewMethod) -> Schema | None:
    """Return the schema of what the view's serializer renders for this tool, if known."""
    if operation.method == "DELETE":
        return None  # DRF's destroy answers 204 with no body
    view = operation.view
    get_serializer_class = getattr(view, "get_serializer_class", None)
    if get_serializer_class is None:
        return None
    try:
        serializer_class = get_serializer_class()
    except Exception:
        return None  # needs a real request; a system check reports such serializers
    if serializer_class is None:
        return None
    return _as_returned(serializer_output_schema(serializer_class()), operation)


def declared_output_schema(responses: Any, operation: ViewMethod) -> Any:
    """Return the schema drf-spectacular's ``responses=`` gives a successful result.

    From a dict by status code, the lowest 2xx (its JSON entry); a serializer is rendered as
    the view returns it (a list action's array or page), as spectacular reads it.
    """
    if isinstance(responses, dict):
        responses = _success(responses)
    value = spectacular.unwrap(responses)
    if value is None or value is NOT_DECLARED:
        return None  # no body, or no successful response described
    choices = spectacular.polymorphic_serializers(value)
    if choices is not None:
        return {"anyOf": [serializer_output_schema(_instance(each)) for each in choices]}
    if isinstance(value, type) and issubclass(value, serializers.BaseSerializer):
        value = value()
    if isinstance(value, serializers.ListSerializer):
        return serializer_output_schema(value)
    if isinstance(value, serializers.BaseSerializer):
        return _as_returned(serializer_output_schema(value), operation)
    schema = fields.declared_schema(value)
    return {k: v for k, v in schema.items() if k not in INPUT_ONLY} if schema else schema


def _success(responses: dict[Any, Any]) -> Any:
    """The entry of the lowest 2xx status (``200``, ``"201"``, ``(200, "application/json")``)."""
    found: list[tuple[int, bool, Any]] = []
    for key, value in responses.items():
        status, media = key if isinstance(key, tuple) else (key, "application/json")
        try:
            code = int(status)
        except (TypeError, ValueError):
            continue
        if 200 <= code < 300:
            found.append((code, "json" not in str(media), value))
    if not found:
        return NOT_DECLARED
    return min(found, key=lambda entry: entry[:2])[2]


def _instance(serializer: Any) -> Any:
    return serializer() if isinstance(serializer, type) else serializer


def _as_returned(item: Schema, operation: ViewMethod) -> Schema | None:
    """The schema of one item as the view returns it: a list view's array or page."""
    if not operation.is_list:
        return item
    array: Schema = {"type": "array", "items": item}
    paginator = getattr(operation.view, "paginator", None)
    if paginator is None:
        return array
    page_schema = getattr(paginator, "get_paginated_response_schema", None)
    if page_schema is None:
        return None  # a paginator that does not describe its page: shape unknown
    return fields.openapi_to_json_schema(page_schema(array))


def serializer_output_schema(
    serializer: serializers.BaseSerializer, _seen: tuple[type, ...] = ()
) -> Schema:
    """Return the schema of what ``serializer`` renders (its readable fields)."""
    if isinstance(serializer, serializers.ListSerializer):
        child = serializer.child
        items = _field_output_schema(child, _seen) if child is not None else {}
        return {"type": "array", "items": items}
    if not isinstance(serializer, serializers.Serializer) or type(serializer) in _seen:
        # A serializer without declared fields, or a recursion: any value from here down.
        return {}
    seen = (*_seen, type(serializer))
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for name, field in serializer.fields.items():
        if field.write_only:
            continue
        properties[name] = _field_output_schema(field, seen)
        # Read-only and required fields are always rendered; an optional one may be skipped
        # when its source attribute is missing.
        if field.read_only or field.required:
            required.append(name)
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _field_output_schema(field: drf_fields.Field, seen: tuple[type, ...]) -> Schema:
    override = spectacular.field_override(field)  # @extend_schema_field
    if isinstance(override, type) and issubclass(override, serializers.BaseSerializer):
        override = override()
    if isinstance(override, serializers.BaseSerializer):
        schema = serializer_output_schema(override, seen)
        return fields.nullable(schema) if field.allow_null and schema else schema
    if isinstance(field, serializers.BaseSerializer):
        schema = serializer_output_schema(field, seen)
        return fields.nullable(schema) if field.allow_null and schema else schema
    if isinstance(field, drf_fields.FileField):
        return {"type": ["string", "null"]}  # the file's URL or name, or null
    if isinstance(field, drf_fields.DecimalField):
        # Rendered as a string (COERCE_DECIMAL_TO_STRING) or a number, never both.
        as_string = getattr(field, "coerce_to_string", api_settings.COERCE_DECIMAL_TO_STRING)
        schema = {"type": "string" if as_string else "number"}
        return fields.nullable(schema) if field.allow_null else schema
    try:
        described = fields.field_schema(field)
    except Exception:
        # A field the input mapper can't describe still renders something: accept any value.
        logger.debug("No output schema for field %r", field, exc_info=True)
        return {}
    # The input mapper's schema, without what only input validation enforces: a rendered
    # value is not re-validated by DRF (a stored title may be longer than today's max_length).
    return {k: v for k, v in described.items() if k not in INPUT_ONLY}


def build_validator(schema: Schema) -> Draft202012Validator:
    """Compile a validator once; the schema is checked here, not on every call."""
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)
