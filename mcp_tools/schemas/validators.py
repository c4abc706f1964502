"""Validators of tool arguments, compiled once per tool from its input schema.

Decimal places are checked in decimal arithmetic, as DRF reads a number. Messages write
values as JSON (``null``, ``true``, ``"x"``), the way the client sent them, and explain the
patterns the field mapper writes in words.
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable, Iterator
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.protocols import Validator

from ..protocol.jsonrpc import json_text
from .fields import NO_NUL, TRIMMED_PREFIX, decimal_words

Schema = dict[str, Any]


def _plural(words: list[str], one: str, many: str) -> str:
    return f"{', '.join(words)} {one if len(words) == 1 else many}"


def _required(error: ValidationError) -> str | None:
    # jsonschema names the missing property only in its message: find which one it is.
    for name in error.validator_value:
        if error.message == f"{name!r} is a required property":
            return f"{json_text(name)} is a required property"
    return None


def _dependent_required(error: ValidationError) -> str | None:
    for name, dependencies in error.validator_value.items():
        for each in dependencies:
            if error.message == f"{each!r} is a dependency of {name!r}":
                return f"{json_text(each)} is a dependency of {json_text(name)}"
    return None


def _unexpected(error: ValidationError, what: str) -> str | None:
    # The extras (keys of an object, items of an array) appear only as reprs in the message.
    match = re.fullmatch(rf"{what} are not allowed \((.*) (?:was|were) unexpected\)", error.message)
    instance = error.instance
    if match is None or not isinstance(instance, dict | list):
        return None
    listed = match.group(1)
    candidates = list(instance) if isinstance(instance, dict) else instance
    extras = sorted(
        (each for each in candidates if repr(each) in listed), key=lambda e: listed.find(repr(e))
    )
    names = [json_text(each) for each in extras]
    return f"{what} are not allowed ({_plural(names, 'was', 'were')} unexpected)"


def _additional(error: ValidationError) -> str | None:
    patterns = error.schema.get("patternProperties") if isinstance(error.schema, dict) else None
    if not patterns:
        return _unexpected(error, "Additional properties")
    if not isinstance(error.instance, dict):
        return None
    properties = error.schema.get("properties", {})
    extras = sorted(
        key
        for key in error.instance
        if key not in properties and not any(re.search(p, key) for p in patterns)
    )
    regexes = ", ".join(json_text(pattern) for pattern in sorted(patterns))
    names = [json_text(key) for key in extras]
    return f"{_plural(names, 'does', 'do')} not match any of the regexes: {regexes}"


def _too_short(empty: str, short: str) -> Callable[[ValidationError], str]:
    return lambda e: f"{json_text(e.instance)} {empty if e.validator_value == 1 else short}"


def _too_long(empty: str, long: str) -> Callable[[ValidationError], str]:
    return lambda e: f"{json_text(e.instance)} {empty if e.validator_value == 0 else long}"


def _bound(words: str) -> Callable[[ValidationError], str]:
    return lambda e: f"{json_text(e.instance)} is {words} {json_text(e.validator_value)}"


def _types(error: ValidationError) -> str:
    declared = error.validator_value
    names = ", ".join(
        repr(name) for name in ([declared] if isinstance(declared, str) else declared)
    )
    return f"{json_text(error.instance)} is not of type {names}"


def _items(error: ValidationError) -> str | None:
    if error.validator_value is not False or not isinstance(error.instance, list):
        return None
    prefix = len(error.schema.get("prefixItems", [])) if isinstance(error.schema, dict) else 0
    extra = len(error.instance) - prefix
    rest = error.instance[prefix:] if extra != 1 else error.instance[prefix]
    item = "items" if prefix != 1 else "item"
    return f"Expected at most {prefix} {item} but found {extra} extra: {json_text(rest)}"


#: keyword → the message of its error, every value in it written as JSON. jsonschema's own
#: wording, where it writes values as Python does (None, True, 'x').
MESSAGES: dict[str, Callable[[ValidationError], str | None]] = {
    "type": _types,
    "enum": lambda e: f"{json_text(e.instance)} is not one of {json_text(e.validator_value)}",
    "const": lambda e: f"{json_text(e.validator_value)} was expected",
    "minimum": _bound("less than the minimum of"),
    "maximum": _bound("greater than the maximum of"),
    "exclusiveMinimum": _bound("less than or equal to the minimum of"),
    "exclusiveMaximum": _bound("greater than or equal to the maximum of"),
    "multipleOf": _bound("not a multiple of"),
    "minLength": _too_short("should be non-empty", "is too short"),
    "minItems": _too_short("should be non-empty", "is too short"),
    "minProperties": _too_short("should be non-empty", "does not have enough properties"),
    "maxLength": _too_long("is expected to be empty", "is too long"),
    "maxItems": _too_long("is expected to be empty", "is too long"),
    "maxProperties": _too_long("is expected to be empty", "has too many properties"),
    "uniqueItems": lambda e: f"{json_text(e.instance)} has non-unique elements",
    "pattern": lambda e: f"{json_text(e.instance)} does not match {json_text(e.validator_value)}",
    "format": lambda e: f"{json_text(e.instance)} is not a {e.validator_value!r}",
    "required": _required,
    "dependentRequired": _dependent_required,
    "additionalProperties": _additional,
    "unevaluatedProperties": lambda e: _unexpected(e, "Unevaluated properties"),
    "unevaluatedItems": lambda e: _unexpected(e, "Unevaluated items"),
    "items": _items,
    "anyOf": lambda e: f"{json_text(e.instance)} is not valid under any of the given schemas",
    "not": lambda e: (
        f"{json_text(e.instance)} should not be valid under {json_text(e.validator_value)}"
    ),
}


def _one_of(error: ValidationError) -> str:
    branches = error.validator_value
    if (
        isinstance(branches, list)
        and branches
        and all(isinstance(each, dict) and "const" in each for each in branches)
    ):
        # A labelled choice: say which values it takes, as an enum's refusal does.
        values = [each["const"] for each in branches]
        return f"{json_text(error.instance)} is not one of {json_text(values)}"
    if error.message.endswith("is not valid under any of the given schemas"):
        return f"{json_text(error.instance)} is not valid under any of the given schemas"
    return f"{json_text(error.instance)} is valid under more than one of the given schemas"


def _contains(error: ValidationError) -> str:
    if error.message.endswith("does not contain items matching the given schema"):
        return f"{json_text(error.instance)} does not contain items matching the given schema"
    return error.message  # "Too few items match ...": no value named


MESSAGES.update(oneOf=_one_of, contains=_contains)


#: What a decimal's schema says about its digits (the rest, bounds included, reads as usual).
DECIMAL_KEYWORDS = frozenset(
    {"pattern", "multipleOf", "exclusiveMaximum", "exclusiveMinimum", "not", "maxLength"}
)


def _decimal_refusal(error: ValidationError) -> str | None:
    """Say in words which decimals a field takes, rather than quote its pattern."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    json_type = schema.get("type")
    types = set(json_type) if isinstance(json_type, list) else {json_type}
    if error.validator not in DECIMAL_KEYWORDS or not {"number", "string"} <= types:
        return None
    if "pattern" not in schema or isinstance(error.instance, bool):
        return None
    maximum, multiple = schema.get("exclusiveMaximum"), schema.get("multipleOf")
    whole = len(str(maximum)) - 1 if isinstance(maximum, int) else None
    places = None
    if multiple is not None:
        exponent = decimal.Decimal(str(multiple)).as_tuple().exponent
        places = -exponent if isinstance(exponent, int) else None
    return f"{json_text(error.instance)} is not {decimal_words(whole, places)}"


def error_message(error: ValidationError) -> str:
    """Return a validation error's message with every value in it written as JSON.

    jsonschema writes values as Python does (``None is not of type 'integer'``); a client
    sent JSON, so it reads ``null is not of type 'integer'``. The patterns the field mapper
    writes are explained in words.
    """
    if error.validator == "pattern" and isinstance(error.instance, str):
        if error.validator_value == NO_NUL:
            return f"{json_text(error.instance)} contains a NUL character"
        if error.validator_value.startswith(TRIMMED_PREFIX):
            if "\u0000" in error.instance:
                return f"{json_text(error.instance)} contains a NUL character"
            return f"{json_text(error.instance)} is too short once surrounding spaces are trimmed"
    words = _decimal_refusal(error)
    if words is not None:
        return words
    if error.validator is None:  # the schema ``false``
        return f"false schema does not allow {json_text(error.instance)}"
    build = MESSAGES.get(str(error.validator))
    message = build(error) if build is not None else None
    if message is not None:
        return message
    # A keyword this table does not know (a validator's own): its instance, if it leads.
    if error.message.startswith(repr(error.instance)):
        return json_text(error.instance) + error.message[len(repr(error.instance)) :]
    return error.message


def _multiple_of(
    validator: Validator, multiple: object, instance: object, schema: Schema
) -> Iterator[ValidationError]:
    # In decimal arithmetic on the number's text, as DRF reads it: 0.29 is a multiple of
    # 0.01 here, where binary floats (and jsonschema's default) say it is not.
    if not validator.is_type(instance, "number"):
        return
    try:
        remainder = decimal.Decimal(str(instance)) % decimal.Decimal(str(multiple))
    except decimal.InvalidOperation:
        remainder = decimal.Decimal(1)
    if remainder != 0:
        yield ValidationError(f"{json_text(instance)} is not a multiple of {json_text(multiple)}")


ArgumentValidator = validators.extend(
    Draft202012Validator, {"multipleOf": _multiple_of}, version="mcp-tools-arguments"
)


def argument_validator(schema: Schema) -> Validator:
    """Return a validator of tool arguments for ``schema``, compiled once.

    Formats are asserted where jsonschema can check them (date, email, ipv4, ipv6, ...).
    """
    return ArgumentValidator(schema, format_checker=ArgumentValidator.FORMAT_CHECKER)
