"""JSON Schemas of tool arguments, mapped from URL converters and DRF serializer fields.

A small table-driven mapper rather than DRF's OpenAPI generator: that generator is deprecated
and speaks OpenAPI 3.0 (``nullable``), which JSON Schema validators do not understand.
The schemas are JSON Schema 2020-12 that also read correctly as draft-07.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import converters as url_converters
from rest_framework import fields, relations, serializers

Schema = dict[str, Any]

_CONVERTERS: list[tuple[type, Callable[[Any], Schema]]] = [
    (url_converters.IntConverter, lambda c: {"type": "integer", "minimum": 0}),
    (
        url_converters.UUIDConverter,
        lambda c: {"type": "string", "format": "uuid", "pattern": f"^{c.regex}$"},
    ),
    (url_converters.PathConverter, lambda c: {"type": "string", "minLength": 1}),
    (url_converters.StringConverter, lambda c: {"type": "string", "pattern": "^[^/]+$"}),
]


def converter_schema(converter: Any | None) -> Schema:
    """Return the schema of one path parameter, from its URL converter (None: a regex group)."""
    if converter is None:
        return {"type": "string", "minLength": 1}
    for converter_class, build in _CONVERTERS:
        # Exact types: SlugConverter subclasses StringConverter but has its own regex.
        if type(converter) is converter_class:
            return build(converter)
    return {"type": "string", "pattern": f"^(?:{converter.regex})$"}


def _string(field: Any, **extra: Any) -> Schema:
    schema: Schema = {"type": "string", **extra}
    if getattr(field, "max_length", None) is not None:
        schema["maxLength"] = field.max_length
    if getattr(field, "min_length", None) is not None:
        schema["minLength"] = field.min_length
    elif not getattr(field, "allow_blank", True):
        schema["minLength"] = 1
    return schema


def _number(field: Any, json_type: str) -> Schema:
    schema: Schema = {"type": json_type}
    if getattr(field, "min_value", None) is not None:
        schema["minimum"] = field.min_value
    if getattr(field, "max_value", None) is not None:
        schema["maximum"] = field.max_value
    return schema


def _decimal(field: fields.DecimalField) -> Schema:
    # DRF accepts a number or a numeric string; the pattern applies to strings only.
    schema: Schema = {"type": ["number", "string"], "pattern": r"^-?(\d+\.?\d*|\.\d+)$"}
    if field.min_value is not None:
        schema["minimum"] = float(field.min_value)
    if field.max_value is not None:
        schema["maximum"] = float(field.max_value)
    return schema


def _choices(field: fields.ChoiceField) -> Schema:
    return {"enum": list(field.choices)}


def _primary_key(field: relations.PrimaryKeyRelatedField) -> Schema:
    queryset = field.queryset
    if queryset is not None and queryset.model._meta.pk.get_internal_type() in INTEGER_FIELDS:
        return {"type": "integer"}
    return {"type": "string"}


INTEGER_FIELDS = {
    "AutoField",
    "BigAutoField",
    "SmallAutoField",
    "IntegerField",
    "BigIntegerField",
    "SmallIntegerField",
    "PositiveIntegerField",
    "PositiveBigIntegerField",
    "PositiveSmallIntegerField",
}

# Most specific classes first: the first isinstance match wins.
FIELD_SCHEMAS: list[tuple[type, Callable[[Any], Schema]]] = [
    (serializers.ListSerializer, lambda f: {"type": "array", "items": field_schema(f.child)}),
    (serializers.BaseSerializer, lambda f: serializer_schema(f)),
    (relations.ManyRelatedField, lambda f: {"type": "array", "items": field_schema(f.child_relation)}),
    (relations.PrimaryKeyRelatedField, _primary_key),
    (relations.HyperlinkedRelatedField, lambda f: {"type": "string", "format": "uri"}),
    (relations.RelatedField, lambda f: {"type": "string"}),
    (fields.BooleanField, lambda f: {"type": "boolean"}),
    (fields.MultipleChoiceField, lambda f: {"type": "array", "items": _choices(f), "uniqueItems": True}),
    (fields.ChoiceField, _choices),
    (fields.EmailField, lambda f: _string(f, format="email")),
    (fields.URLField, lambda f: _string(f, format="uri")),
    (fields.UUIDField, lambda f: {"type": "string", "format": "uuid"}),
    (fields.IPAddressField, lambda f: _string(f)),
    (fields.SlugField, lambda f: _string(f, pattern=r"^[-a-zA-Z0-9_]+$")),
    (fields.CharField, _string),
    (fields.IntegerField, lambda f: _number(f, "integer")),
    (fields.FloatField, lambda f: _number(f, "number")),
    (fields.DecimalField, _decimal),
    (fields.DateTimeField, lambda f: {"type": "string", "format": "date-time"}),
    (fields.DateField, lambda f: {"type": "string", "format": "date"}),
    (fields.TimeField, lambda f: {"type": "string", "format": "time"}),
    (fields.DurationField, lambda f: {"type": "string"}),
    (fields.DictField, lambda f: {"type": "object", "additionalProperties": field_schema(f.child)}),
    (fields.ListField, lambda f: {"type": "array", "items": field_schema(f.child)}),
    (fields.JSONField, lambda f: {}),
]

_JSON_DEFAULT_TYPES = (str, int, float, bool, type(None), list, dict)


def field_schema(field: fields.Field) -> Schema:
    """Return the JSON Schema of the values ``field`` accepts as input."""
    schema: Schema = {}
    for field_class, build in FIELD_SCHEMAS:
        if isinstance(field, field_class):
            schema = build(field)
            break
    if getattr(field, "allow_null", False) and schema:
        schema = _nullable(schema)
    if field.help_text:
        schema["description"] = str(field.help_text)
    default = field.default
    if default is not fields.empty and not callable(default):
        if isinstance(default, _JSON_DEFAULT_TYPES):
            schema["default"] = default
    return schema


def _nullable(schema: Schema) -> Schema:
    if "enum" in schema:
        return {**schema, "enum": [*schema["enum"], None]}
    json_type = schema.get("type")
    if isinstance(json_type, str):
        return {**schema, "type": [json_type, "null"]}
    if isinstance(json_type, list):
        return {**schema, "type": [*json_type, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def serializer_schema(serializer: serializers.BaseSerializer, *, partial: bool = False) -> Schema:
    """Return the object schema of the writable fields of ``serializer``."""
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for name, field in serializer.fields.items():
        if field.read_only or isinstance(field, fields.HiddenField):
            continue
        properties[name] = field_schema(field)
        if field.required and not partial:
            required.append(name)
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema
