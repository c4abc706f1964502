"""JSON Schemas of tool arguments, mapped from URL converters and DRF serializer fields.

A small table-driven mapper rather than DRF's OpenAPI generator: that generator is deprecated
and speaks OpenAPI 3.0 (``nullable``), which JSON Schema validators do not understand.
The schemas are JSON Schema 2020-12 that also read correctly as draft-07: ``type`` lists for
null, JSON defaults only, ``$defs``/``$ref`` for recursion (draft-07 reads ``$defs`` as an
ordinary keyword and resolves the JSON pointer all the same).

Each schema accepts only values the field accepts wherever JSON Schema can say so: a
generated-arguments test holds the two to that.
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.core.validators import RegexValidator, URLValidator
from django.db import connection
from django.db.models import Model
from django.urls import converters as url_converters
from django.utils.dateparse import iso8601_duration_re
from rest_framework import fields, relations, serializers

from . import spectacular
from .spectacular import NOT_DECLARED

Schema = dict[str, Any]

#: What DRF's CharField refuses besides its own rules: NUL characters.
NO_NUL = r"^[^\u0000]*$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
#: What Django's parse_datetime, parse_time and URLValidator read, as patterns: jsonschema
#: asserts the date-time, time and uri formats only with optional packages installed.
DATETIME_PATTERN = (
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$"
)
TIME_PATTERN = r"^\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})?$"
# Every pattern here runs in linear time on Python's backtracking engine: no two adjacent
# quantified parts can match the same character (a hostile argument is up to 1 MiB long).
EMAIL_PATTERN = r"^[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+$"
#: Django's EmailValidator refuses longer addresses (RFC 3696); URLValidator has its own
#: ``max_length``.
EMAIL_MAX_LENGTH = 320
URL_PATTERN = r"^(?:[hH][tT][tT][pP][sS]?|[fF][tT][pP][sS]?)://[^\s/?#][^\s]*$"
#: The ISO 8601 durations Django's ``parse_duration`` reads (no months or years; weeks from
#: Django 6.0 on, so the pattern follows the installed Django's own expression).
_WEEKS = r"(\d{1,6}W)?" if "weeks" in iso8601_duration_re.pattern else ""
DURATION_PATTERN = (
    rf"^-?P{_WEEKS}(\d{{1,6}}D)?(T(\d{{1,6}}H)?(\d{{1,6}}M)?(\d{{1,6}}(\.\d{{1,6}})?S)?)?$"
)

#: Keys the database counts up from 1: their lookups and foreign keys take no other value.
AUTO_FIELDS = frozenset({"AutoField", "BigAutoField", "SmallAutoField"})
#: Choices listed with their labels (``oneOf`` of ``const`` and ``title``) up to this many;
#: a longer list (Pygments' 500 lexers) is an ``enum``, which costs a model fewer tokens.
MAX_LABELLED_CHOICES = 20

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


class UnsupportedField(Exception):
    """A field whose values can't be sent as JSON arguments (files, images)."""


@dataclass(frozen=True)
class Relation:
    """A top-level argument whose values name rows of another model (a foreign key)."""

    argument: str
    model: type[Model]
    #: What a value is: the model field's name (``id``, ``slug``), or ``URL``.
    key: str
    many: bool = False
    #: A URL parameter: the view's own lookup (``"The page's id, as page_list returns it."``).
    path: bool = False


@dataclass
class SchemaContext:
    """State of one mapping: ``$defs`` of recursive serializers and the partial flag."""

    partial: bool = False
    #: Input direction: file fields are reported as unsupported and left out.
    files_unsupported: bool = False
    defs: dict[str, Schema] = field(default_factory=dict)
    #: Dotted paths of fields left out because JSON can't carry them.
    unsupported: list[str] = field(default_factory=list)
    #: Give the top-level properties the model's defaults, and a description where the field
    #: has none (a tool's arguments).
    explain: bool = False
    #: Top-level arguments that name rows of another model, described once every tool is
    #: built (the tool that lists the model is named then).
    related: list[Relation] = field(default_factory=list)
    _stack: list[type] = field(default_factory=list)
    _names: dict[type, str] = field(default_factory=dict)
    _path: list[str] = field(default_factory=list)

    def def_name(self, serializer_class: type) -> str:
        name = self._names.get(serializer_class)
        if name is None:
            name = serializer_class.__name__
            taken = set(self._names.values())
            suffix = 2
            while name in taken:
                name = f"{serializer_class.__name__}{suffix}"
                suffix += 1
            self._names[serializer_class] = name
        return name


# Path parameters ------------------------------------------------------------------------

_CONVERTERS: list[tuple[type, Callable[[Any], Schema]]] = [
    (url_converters.IntConverter, lambda c: {"type": "integer", "minimum": 0}),
    (url_converters.UUIDConverter, lambda c: {"type": "string", "pattern": f"^{c.regex}$"}),
    (url_converters.PathConverter, lambda c: {"type": "string", "pattern": r"^.+$"}),
    (url_converters.StringConverter, lambda c: {"type": "string", "pattern": "^[^/]+$"}),
]


def converter_schema(converter: Any | None, regex: str | None = None) -> Schema:
    """Return the schema of one path parameter, from its URL converter or its regex group."""
    if converter is None:
        return {"type": "string", "pattern": f"^(?:{regex or '.+'})$"}
    for converter_class, build in _CONVERTERS:
        # Exact types: SlugConverter subclasses StringConverter but has its own regex.
        if type(converter) is converter_class:
            return build(converter)
    return {"type": "string", "pattern": f"^(?:{converter.regex})$"}


# Serializer fields ----------------------------------------------------------------------


def json_number(value: object) -> int | float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    as_decimal = decimal.Decimal(str(value))
    return int(as_decimal) if as_decimal == as_decimal.to_integral_value() else float(as_decimal)


def _patterns(schema: Schema, patterns: list[str]) -> Schema:
    if len(patterns) == 1:
        schema["pattern"] = patterns[0]
    elif patterns:
        schema["allOf"] = [{"pattern": pattern} for pattern in patterns]
    return schema


TRIMMED_PREFIX = r"^\s*[^\s\u0000]"


def _trimmed_length_pattern(min_length: int) -> str:
    # DRF trims before checking blankness and length: ask for min_length characters between
    # the first and the last non-space one, and no NUL anywhere.
    # Leading spaces, then a visible character: the two parts can't match the same character.
    visible = r"[^\s\u0000]"
    if min_length <= 1:
        return rf"{TRIMMED_PREFIX}[^\u0000]*$"
    return rf"{TRIMMED_PREFIX}[^\u0000]{{{min_length - 2},}}{visible}\s*$"


def _ecma(pattern: str) -> str:
    # Python's \A and \Z anchors are unknown to ECMA-262 regular expressions.
    return pattern.replace("\\A", "^").replace("\\Z", "$")


def _regex_patterns(field: fields.Field) -> list[str]:
    patterns = []
    for validator in field.validators:
        if type(validator) is not RegexValidator or validator.inverse_match:
            continue
        regex = re.compile(validator.regex) if isinstance(validator.regex, str) else validator.regex
        if not regex.flags & ~re.UNICODE:  # JSON Schema patterns carry no flags
            patterns.append(_ecma(regex.pattern))
    return patterns


def _string(
    field: fields.CharField, context: SchemaContext, *, text: bool = True, **extra: object
) -> Schema:
    """Map a CharField (or subclass); ``text`` adds the NUL and trimmed-length patterns."""
    schema: Schema = {"type": "string", **extra}
    if field.max_length is not None:
        schema["maxLength"] = field.max_length
    min_length = field.min_length or 0
    if not field.allow_blank:
        min_length = max(min_length, 1)
    if min_length:
        schema["minLength"] = min_length
    patterns: list[str] = []
    if text:
        if min_length and field.trim_whitespace:
            patterns.append(_trimmed_length_pattern(min_length))
        else:
            patterns.append(NO_NUL)
    return _patterns(schema, patterns + _regex_patterns(field))


def _regex(field: fields.RegexField, context: SchemaContext) -> Schema:
    return _string(field, context)  # the RegexValidator adds its pattern


def _slug(field: fields.SlugField, context: SchemaContext) -> Schema:
    # SlugField's own RegexValidator carries the slug pattern.
    return _string(field, context, text=False)


def _at_most(schema: Schema, length: int) -> Schema:
    """Bound a string schema's length by ``length`` too (the lower of the two bounds)."""
    schema["maxLength"] = min(schema.get("maxLength", length), length)
    return schema


def _email(field: fields.EmailField, context: SchemaContext) -> Schema:
    schema = _string(field, context, text=False, format="email")
    return _patterns(_at_most(schema, EMAIL_MAX_LENGTH), [EMAIL_PATTERN])


def _url(field: fields.URLField, context: SchemaContext) -> Schema:
    schema = _string(field, context, text=False, format="uri")
    return _patterns(_at_most(schema, URLValidator.max_length), [URL_PATTERN])


def _ip_address(field: fields.IPAddressField, context: SchemaContext) -> Schema:
    protocol = field.protocol.lower()
    if protocol in ("ipv4", "ipv6"):
        return {"type": "string", "format": protocol}
    return {"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}


def _bounds(schema: Schema, field: Any) -> Schema:
    if getattr(field, "min_value", None) is not None:
        schema["minimum"] = json_number(field.min_value)
    if getattr(field, "max_value", None) is not None:
        schema["maximum"] = json_number(field.max_value)
    return schema


def _integer(field: fields.IntegerField, context: SchemaContext) -> Schema:
    return _bounds({"type": "integer"}, field)


def _float(field: fields.FloatField, context: SchemaContext) -> Schema:
    return _bounds({"type": "number"}, field)


def decimal_pattern(field: fields.DecimalField) -> str:
    """Return the pattern of the decimal strings ``field`` accepts, digits counted as DRF does.

    Leading zeros do not count; trailing zeros after the point do. The parts never compete
    for a character (the leading zeros, then a significant digit and the other whole digits,
    then the point and the places), so a hostile string is read once, whatever its length.
    """
    whole_digits, places = field.max_whole_digits, field.decimal_places
    sign = "" if field.min_value is not None and field.min_value >= 0 else "-?"
    some_places = "\\d+" if places is None else f"\\d{{1,{places}}}"
    if whole_digits == 0:
        if places == 0:
            return "[^\\s\\S]"  # max_digits=0: DRF accepts no value at all
        # Zeros alone before the point: "0" itself counts as a whole digit.
        return f"^{sign}0*\\.{some_places}$"
    significant = "[1-9]\\d*" if whole_digits is None else f"[1-9]\\d{{0,{whole_digits - 1}}}"
    whole = f"(?:0+(?:{significant})?|{significant})"
    if places == 0:
        return f"^{sign}{whole}\\.?$"  # "5." has no decimal places
    any_places = "\\d*" if places is None else f"\\d{{0,{places}}}"
    return f"^{sign}(?:{whole}(?:\\.{any_places})?|\\.{some_places})$"


def decimal_words(whole_digits: int | None, places: int | None) -> str:
    """Say which decimals a field takes: "a decimal number with at most 4 digits before the
    point and 2 after"."""
    if places == 0:
        if whole_digits is None:
            return "a whole number"
        return f"a whole number of at most {whole_digits} digits"
    if whole_digits is None and places is None:
        return "a decimal number"
    if whole_digits is None:
        return f"a decimal number with at most {places} digits after the point"
    if places is None:
        return f"a decimal number with at most {whole_digits} digits before the point"
    return (
        f"a decimal number with at most {whole_digits} digits before the point and {places} after"
    )


def _decimal(field: fields.DecimalField, context: SchemaContext) -> Schema:
    # DRF reads a JSON number through its text (str(1.25) == "1.25"), so both forms count the
    # same digits. multipleOf says the decimal places of numbers; mcp_tools checks it in
    # decimal arithmetic (see validators.ArgumentValidator), not in binary floats.
    words = decimal_words(field.max_whole_digits, field.decimal_places)
    schema: Schema = {
        "type": ["number", "string"],
        "description": f"{words[:1].upper()}{words[1:]}, as a number or a string.",
        # DRF refuses a longer string before reading it (MAX_STRING_LENGTH, 1,000).
        "maxLength": field.MAX_STRING_LENGTH,
        "pattern": decimal_pattern(field),
    }
    if field.decimal_places is not None:
        schema["multipleOf"] = json_number(decimal.Decimal(1).scaleb(-field.decimal_places))
    if field.max_whole_digits is not None:
        limit = 10**field.max_whole_digits
        schema["exclusiveMaximum"] = limit
        schema["exclusiveMinimum"] = -limit
        if field.max_whole_digits == 0:
            # DRF counts the "0" of a JSON 0 as a whole digit: no integer passes.
            schema["not"] = {"type": "integer"}
    _bounds(schema, field)
    return schema


def _duration(field: fields.DurationField, context: SchemaContext) -> Schema:
    schema: Schema = {"type": "string", "pattern": DURATION_PATTERN}
    if field.min_value is not None and field.min_value >= timedelta(0):
        schema["pattern"] = DURATION_PATTERN.replace("^-?", "^")
    return schema


def _choice_values(field: fields.ChoiceField) -> list[str | int | float | None]:
    values = [
        key if isinstance(key, str | int | float | bool) or key is None else str(key)
        for key in field.choices
    ]
    if getattr(field, "allow_blank", False) and "" not in values:
        values.append("")
    return values


def _json_type(values: Sequence[object]) -> str | list[str] | None:
    """The JSON type of the choice values: one name, or a list of them; None for none."""
    names: list[str] = []
    for value in values:
        if value is None:
            name = "null"
        elif isinstance(value, bool):
            name = "boolean"
        elif isinstance(value, int):
            name = "integer"
        elif isinstance(value, float):
            name = "number"
        else:
            name = "string"
        if name not in names:
            names.append(name)
    if "integer" in names and "number" in names:
        names.remove("integer")
    if not names:
        return None
    return names[0] if len(names) == 1 else names


def choices_schema(
    values: Sequence[object], labels: Mapping[object, object] | None = None
) -> Schema:
    """Return the schema of a choice: typed, and labelled (``oneOf`` of ``const`` and
    ``title``) when a label says more than its value and the list is short."""
    schema: Schema = {}
    json_type = _json_type(values)
    if json_type is not None:
        schema["type"] = json_type
    labels = labels or {}
    titles = [str(labels.get(value, "")) for value in values]
    labelled = any(
        title and title != str(value) for value, title in zip(values, titles, strict=True)
    )
    if labelled and len(values) <= MAX_LABELLED_CHOICES:
        schema["oneOf"] = [
            {"const": value, "title": title or str(value)}
            for value, title in zip(values, titles, strict=True)
        ]
    else:
        schema["enum"] = values
    return schema


def _choice(field: fields.ChoiceField, context: SchemaContext) -> Schema:
    return choices_schema(_choice_values(field), dict(field.choices))


def _sized(schema: Schema, field: Any, min_key: str, max_key: str) -> Schema:
    min_length = getattr(field, "min_length", None) or 0
    if not getattr(field, "allow_empty", True):
        min_length = max(min_length, 1)
    if min_length:
        schema[min_key] = min_length
    if getattr(field, "max_length", None) is not None:
        schema[max_key] = field.max_length
    return schema


def _multiple_choice(field: fields.MultipleChoiceField, context: SchemaContext) -> Schema:
    items = choices_schema(_choice_values(field), dict(field.choices))
    return _sized({"type": "array", "items": items}, field, "minItems", "maxItems")


def _list(field: Any, context: SchemaContext) -> Schema:
    child = getattr(field, "child", None) or getattr(field, "child_relation", None)
    items = field_schema(child, context, name="[]") if child is not None else {}
    return _sized({"type": "array", "items": items}, field, "minItems", "maxItems")


def _dict(field: fields.DictField, context: SchemaContext) -> Schema:
    schema: Schema = {"type": "object"}
    schema["additionalProperties"] = field_schema(field.child, context, name="{}")
    return _sized(schema, field, "minProperties", "maxProperties")


def _json(field: fields.JSONField, context: SchemaContext) -> Schema:
    return {"type": ["object", "array", "string", "number", "boolean"]}  # null: allow_null


def model_field_schema(model_field: Any) -> Schema:
    """Return the schema of a model field's values as a lookup reads them (pk, slug)."""
    internal_type = model_field.get_internal_type()
    if internal_type in ("ForeignKey", "OneToOneField"):
        return model_field_schema(model_field.target_field)  # a key that is itself a relation
    if internal_type in AUTO_FIELDS:
        return {"type": "integer", "minimum": 1}  # the database's bounds are noise here
    if internal_type in INTEGER_FIELDS:
        low, high = connection.ops.integer_field_range(internal_type)
        schema: Schema = {"type": "integer"}
        if low is not None:
            schema["minimum"] = low
        if high is not None:
            schema["maximum"] = high
        return schema
    if internal_type == "UUIDField":
        return {"type": "string", "pattern": UUID_PATTERN}
    return {"type": "string", "minLength": 1, "pattern": NO_NUL}


def related_model(field: object) -> type[Model] | None:
    """Return the model a related field's values name, or None."""
    model: type[Model] | None = getattr(getattr(field, "queryset", None), "model", None)
    return model


def _relation(schema: Schema, field: object, context: SchemaContext, key: str) -> Schema:
    model = related_model(field)
    if model is not None and len(context._stack) == 1 and context._path:
        many = len(context._path) > 1  # the child of a ManyRelatedField
        context.related.append(Relation(context._path[0], model, key, many))
    return schema


def _primary_key(field: relations.PrimaryKeyRelatedField, context: SchemaContext) -> Schema:
    if field.pk_field is not None:
        return field_schema(field.pk_field, context)
    model = related_model(field)
    if model is None:
        return {"type": ["integer", "string"]}
    return _relation(model_field_schema(model._meta.pk), field, context, model._meta.pk.name)


def _slug_related(field: relations.SlugRelatedField, context: SchemaContext) -> Schema:
    model = related_model(field)
    if model is None:
        return {"type": "string"}
    schema = model_field_schema(model._meta.get_field(field.slug_field))
    return _relation(schema, field, context, field.slug_field)


def _hyperlinked(field: relations.HyperlinkedRelatedField, context: SchemaContext) -> Schema:
    return _relation({"type": "string", "format": "uri"}, field, context, "URL")


def _file(field: fields.FileField, context: SchemaContext) -> Schema:
    if context.files_unsupported:
        raise UnsupportedField(type(field).__name__)
    return {"type": "string"}  # what DRF renders: the file's URL or name


def _nested(serializer: serializers.BaseSerializer, context: SchemaContext) -> Schema:
    return serializer_object(serializer, context)


def _nested_list(field: serializers.ListSerializer, context: SchemaContext) -> Schema:
    items = field_schema(field.child, context, name="[]") if field.child is not None else {}
    return _sized({"type": "array", "items": items}, field, "minItems", "maxItems")


Builder = Callable[[Any, SchemaContext], Schema]

# Most specific classes first: the first isinstance match wins.
FIELD_SCHEMAS: list[tuple[type, Builder]] = [
    (serializers.ListSerializer, _nested_list),
    (serializers.BaseSerializer, _nested),
    (relations.ManyRelatedField, _list),
    (relations.PrimaryKeyRelatedField, _primary_key),
    (relations.SlugRelatedField, _slug_related),
    (relations.HyperlinkedRelatedField, _hyperlinked),
    (relations.RelatedField, lambda f, c: {"type": "string"}),
    (fields.FileField, _file),  # ImageField too
    (fields.BooleanField, lambda f, c: {"type": "boolean"}),
    (fields.MultipleChoiceField, _multiple_choice),
    (fields.ChoiceField, _choice),
    (fields.EmailField, _email),
    (fields.URLField, _url),
    (fields.UUIDField, lambda f, c: {"type": "string", "pattern": UUID_PATTERN}),
    (fields.IPAddressField, _ip_address),
    (fields.SlugField, _slug),
    (fields.RegexField, _regex),
    (fields.CharField, _string),
    (fields.IntegerField, _integer),
    (fields.FloatField, _float),
    (fields.DecimalField, _decimal),
    (
        fields.DateTimeField,
        lambda f, c: {"type": "string", "format": "date-time", "pattern": DATETIME_PATTERN},
    ),
    (fields.DateField, lambda f, c: {"type": "string", "format": "date"}),
    (fields.TimeField, lambda f, c: {"type": "string", "format": "time", "pattern": TIME_PATTERN}),
    (fields.DurationField, _duration),
    (fields.DictField, _dict),  # HStoreField too
    (fields.ListField, _list),
    (fields.JSONField, _json),
]

_JSON_DEFAULT_TYPES = (str, int, float, bool, type(None), list, dict)


def field_schema(
    field: fields.Field, context: SchemaContext | None = None, *, name: str | None = None
) -> Schema:
    """Return the JSON Schema of the values ``field`` accepts as input.

    Raises ``UnsupportedField`` for fields JSON can't carry (files).
    """
    context = context or SchemaContext()
    if name is not None:
        context._path.append(name)
    try:
        schema: Schema = {}
        override = spectacular.field_override(field)
        if override is not NOT_DECLARED and override is not type(field) and override is not field:
            schema = declared_schema(override, context) or {}  # @extend_schema_field
        else:
            for field_class, build in FIELD_SCHEMAS:
                if isinstance(field, field_class):
                    schema = build(field, context)
                    break
    finally:
        if name is not None:
            context._path.pop()
    if getattr(field, "allow_null", False) and schema:
        schema = nullable(schema)
    if "$ref" in schema:
        # Draft-07 ignores the siblings of $ref: keep the reference alone in an allOf.
        schema = {"allOf": [schema]}
    if isinstance(field, relations.ManyRelatedField) and isinstance(schema.get("items"), dict):
        schema["items"].pop("description", None)  # the child's help text: said once, here
    if field.help_text:
        words = schema.get("description")
        help_text = str(field.help_text)
        schema["description"] = f"{help_text} {words}" if words else help_text
    default = field.default
    if default is not fields.empty and not callable(default) and is_json(default):
        schema["default"] = default
    return schema


def is_json(value: object) -> bool:
    if isinstance(value, list):
        return all(is_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_json(v) for k, v in value.items())
    return isinstance(value, _JSON_DEFAULT_TYPES)


def nullable(schema: Schema) -> Schema:
    json_type = schema.get("type")
    typed = (
        {"type": [*_types(json_type), "null"]}
        if json_type and "null" not in _types(json_type)
        else {}
    )
    if "enum" in schema:
        return {**schema, **typed, "enum": [*schema["enum"], None]}
    if "oneOf" in schema and all("const" in each for each in schema["oneOf"]):
        return {**schema, **typed, "oneOf": [*schema["oneOf"], {"const": None, "title": "None"}]}
    if isinstance(json_type, str):
        return {**schema, "type": [json_type, "null"]}
    if isinstance(json_type, list):
        return schema if "null" in json_type else {**schema, "type": [*json_type, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _types(json_type: object) -> list[object]:
    return list(json_type) if isinstance(json_type, list) else [json_type]


def writable_fields(serializer: serializers.BaseSerializer) -> dict[str, fields.Field]:
    """Return the fields a client writes: not read-only, not hidden."""
    declared = getattr(serializer, "fields", {})  # a BaseSerializer may declare none
    return {
        name: field
        for name, field in declared.items()
        if not field.read_only and not isinstance(field, fields.HiddenField)
    }


def model_default(model: Any, field: fields.Field) -> object:
    """Return the default the model gives a serializer field's source, or ``fields.empty``.

    DRF's ModelSerializer leaves such a field optional and lets the model fill it in.
    """
    source = getattr(field, "source", None)
    if model is None or not source or "." in source or source == "*":
        return fields.empty
    try:
        model_field = model._meta.get_field(source)
    except Exception:  # a property, or an annotation: no model default
        return fields.empty
    if not getattr(model_field, "concrete", False):  # a reverse relation has no default
        return fields.empty
    default = getattr(model_field, "default", None)
    if not model_field.has_default() or callable(default) or not is_json(default):
        return fields.empty
    return default


def _explained(
    schema: Schema,
    field: fields.Field,
    name: str,
    model: type[Model] | None,
    *,
    labelled: bool = True,
) -> Schema:
    """Give a property the default its model has, and a description if it has none (a
    related one gets its words once every tool is built)."""
    if "default" not in schema and not field.required:
        default = model_default(model, field)
        if default is not fields.empty:
            schema["default"] = default
    if "description" not in schema and schema and labelled:
        label = str(field.label) if field.label else name.replace("_", " ").capitalize()
        schema["description"] = label if label.endswith(".") else f"{label}."
    return schema


def serializer_object(serializer: serializers.BaseSerializer, context: SchemaContext) -> Schema:
    """Return the object schema of a serializer's writable fields; a recursion is a ``$ref``."""
    serializer_class = type(serializer)
    if serializer_class in context._stack:
        return {"$ref": f"#/$defs/{context.def_name(serializer_class)}"}
    context._stack.append(serializer_class)
    try:
        properties: dict[str, Schema] = {}
        required: list[str] = []
        model = getattr(getattr(serializer, "Meta", None), "model", None)
        for name, field in writable_fields(serializer).items():
            try:
                prop = field_schema(field, context, name=name)
            except UnsupportedField:
                context.unsupported.append(".".join([*context._path, name]))
                continue
            top = context.explain and len(context._stack) == 1  # a tool's own argument
            if top:
                related = any(each.argument == name for each in context.related)
                prop = _explained(prop, field, name, model, labelled=not related)
            properties[name] = prop
            if field.required and not context.partial:
                required.append(name)
    finally:
        context._stack.pop()
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    if serializer_class in context._names:
        context.defs[context._names[serializer_class]] = dict(schema)
    return schema


def serializer_schema(
    serializer: serializers.BaseSerializer,
    *,
    partial: bool = False,
    context: SchemaContext | None = None,
) -> Schema:
    """Return the object schema of the writable fields of ``serializer`` (with ``$defs``)."""
    context = context or SchemaContext(partial=partial, files_unsupported=True)
    schema = serializer_object(serializer, context)
    if context.defs:
        schema["$defs"] = dict(context.defs)
    return schema


#: OpenAPI's formats that JSON Schema does not define: a validator would not know them.
OPENAPI_ONLY_FORMATS = frozenset(
    {"int32", "int64", "uint16", "uint32", "uint64", "float", "double", "byte", "binary"}
    | {"password", "decimal"}
)


def openapi_to_json_schema(schema: object) -> Any:
    """Turn OpenAPI-only keywords (``nullable``, ``example``, formats such as ``int64``) into
    plain JSON Schema."""
    if isinstance(schema, list):
        return [openapi_to_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {
        key: openapi_to_json_schema(value)
        for key, value in schema.items()
        if key not in ("nullable", "example", "examples")
        and not (key == "format" and value in OPENAPI_ONLY_FORMATS)
    }
    if schema.get("nullable"):
        converted = nullable(converted)
    return converted


def declared_schema(value: object, context: SchemaContext | None = None) -> Schema | None:
    """Return the input schema of what an annotation names (drf-spectacular's ``request=``,
    ``@extend_schema_field``, a parameter's ``type``).

    A serializer or a field (class or instance) is mapped as any other; a basic type
    (``OpenApiTypes.INT``, ``int``, ``date``) and an OpenAPI schema dict are converted. None
    for ``OpenApiTypes.NONE``; ``{}`` (any value) for what is none of these.
    """
    if isinstance(value, type) and issubclass(value, fields.Field):
        value = value()
    if isinstance(value, serializers.BaseSerializer):
        return serializer_object(value, context or SchemaContext())
    if isinstance(value, fields.Field):
        return field_schema(value, context)
    if isinstance(value, dict):
        return openapi_to_json_schema(value)
    basic = spectacular.basic_type_schema(value)
    if basic is NOT_DECLARED:
        return {}
    return openapi_to_json_schema(basic) if basic is not None else None
