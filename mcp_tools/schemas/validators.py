"""Validators of tool arguments, compiled once per tool from its input schema.

Decimal places are checked in decimal arithmetic, as DRF reads a number, and the patterns
the field mapper writes are explained in words when an argument breaks them.
"""

from __future__ import annotations

import decimal
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators

from .fields import NO_NUL, TRIMMED_PREFIX

Schema = dict[str, Any]


def error_message(error: ValidationError) -> str:
    """Return a validation error's message, in words for the patterns the mapper writes."""
    if error.validator == "pattern" and isinstance(error.instance, str):
        if error.validator_value == NO_NUL:
            return f"{error.instance!r} contains a NUL character"
        if error.validator_value.startswith(TRIMMED_PREFIX):
            if "\u0000" in error.instance:
                return f"{error.instance!r} contains a NUL character"
            return f"{error.instance!r} is too short once surrounding spaces are trimmed"
    return error.message


def _multiple_of(validator: Any, multiple: Any, instance: Any, schema: Schema) -> Any:
    # In decimal arithmetic on the number's text, as DRF reads it: 0.29 is a multiple of
    # 0.01 here, where binary floats (and jsonschema's default) say it is not.
    if not validator.is_type(instance, "number"):
        return
    try:
        remainder = decimal.Decimal(str(instance)) % decimal.Decimal(str(multiple))
    except decimal.InvalidOperation:
        remainder = decimal.Decimal(1)
    if remainder != 0:
        yield ValidationError(f"{instance!r} is not a multiple of {multiple}")


ArgumentValidator = validators.extend(
    Draft202012Validator, {"multipleOf": _multiple_of}, version="mcp-tools-arguments"
)


def argument_validator(schema: Schema) -> Any:
    """Return a validator of tool arguments for ``schema``, compiled once.

    Formats are asserted where jsonschema can check them (date, email, ipv4, ipv6, ...).
    """
    return ArgumentValidator(schema, format_checker=ArgumentValidator.FORMAT_CHECKER)
