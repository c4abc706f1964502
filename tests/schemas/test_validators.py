"""Validation messages write values as JSON, as the client sent them, for every keyword."""

import pytest
from jsonschema import Draft202012Validator

from mcp_tools.schemas.validators import argument_validator, error_message

#: (schema, instance, the one message): a value of each JSON kind wherever a message names one.
CASES = [
    ({"type": "integer"}, None, "null is not of type 'integer'"),
    ({"type": ["integer", "null"]}, True, "true is not of type 'integer', 'null'"),
    ({"type": "string"}, {"a": None}, "{\"a\": null} is not of type 'string'"),
    ({"enum": ["a", None, False]}, True, 'true is not one of ["a", null, false]'),
    ({"const": None}, 0, "null was expected"),
    ({"minimum": 2}, 1, "1 is less than the minimum of 2"),
    ({"maximum": 2.5}, 3, "3 is greater than the maximum of 2.5"),
    ({"exclusiveMinimum": 0}, 0, "0 is less than or equal to the minimum of 0"),
    ({"exclusiveMaximum": 1}, 1, "1 is greater than or equal to the maximum of 1"),
    ({"multipleOf": 0.01}, 0.291, "0.291 is not a multiple of 0.01"),
    ({"minLength": 1}, "", '"" should be non-empty'),
    ({"minLength": 3}, "it's", None),  # long enough: no message
    ({"minLength": 3}, "'x'", None),
    ({"minLength": 4}, "'x'", "\"'x'\" is too short"),
    ({"maxLength": 0}, "x", '"x" is expected to be empty'),
    ({"maxLength": 1}, "xy", '"xy" is too long'),
    ({"minItems": 1}, [], "[] should be non-empty"),
    ({"minItems": 2}, [None], "[null] is too short"),
    ({"maxItems": 0}, [True], "[true] is expected to be empty"),
    ({"maxItems": 1}, [1, 2], "[1, 2] is too long"),
    ({"minProperties": 1}, {}, "{} should be non-empty"),
    ({"minProperties": 2}, {"a": True}, '{"a": true} does not have enough properties'),
    ({"maxProperties": 0}, {"a": 1}, '{"a": 1} is expected to be empty'),
    ({"maxProperties": 1}, {"a": 1, "b": 2}, '{"a": 1, "b": 2} has too many properties'),
    ({"uniqueItems": True}, [None, None], "[null, null] has non-unique elements"),
    ({"pattern": "^a$"}, "b\u00e9", '"bé" does not match "^a$"'),
    ({"pattern": r"^\d$"}, "x", '"x" does not match "^\\\\d$"'),
    ({"format": "date"}, "2024-02-30", "\"2024-02-30\" is not a 'date'"),
    ({"required": ["a", "b"]}, {"a": 1}, '"b" is a required property'),
    ({"dependentRequired": {"a": ["b"]}}, {"a": 1}, '"b" is a dependency of "a"'),
    (
        {"properties": {"a": {}}, "additionalProperties": False},
        {"a": 1, "z": None, "y": 2},
        'Additional properties are not allowed ("y", "z" were unexpected)',
    ),
    (
        {"additionalProperties": False},
        {"it's": 1},
        'Additional properties are not allowed ("it\'s" was unexpected)',
    ),
    (
        {"patternProperties": {"^x": {}}, "additionalProperties": False},
        {"y": 1},
        '"y" does not match any of the regexes: "^x"',
    ),
    (
        {"properties": {"a": {}}, "unevaluatedProperties": False},
        {"a": 1, "b": None},
        'Unevaluated properties are not allowed ("b" was unexpected)',
    ),
    (
        {"prefixItems": [{}], "unevaluatedItems": False},
        [1, None],
        "Unevaluated items are not allowed (null was unexpected)",
    ),
    (
        {"prefixItems": [{}], "items": False},
        [1, True],
        "Expected at most 1 item but found 1 extra: true",
    ),
    (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        None,
        "null is not valid under any of the given schemas",
    ),
    ({"oneOf": [{"type": "string"}]}, False, "false is not valid under any of the given schemas"),
    (
        {"oneOf": [{}, {"type": "null"}]},
        None,
        "null is valid under more than one of the given schemas",
    ),
    ({"not": {"type": "null"}}, None, 'null should not be valid under {"type": "null"}'),
    (
        {"contains": {"type": "string"}},
        [None],
        "[null] does not contain items matching the given schema",
    ),
    (False, True, "false schema does not allow true"),
    ({"properties": {"a": False}}, {"a": None}, "false schema does not allow null"),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), CASES)
def test_every_message_writes_its_values_as_json(schema, instance, expected):
    errors = list(argument_validator(schema).iter_errors(instance))
    assert [error_message(error) for error in errors] == ([expected] if expected else [])


def test_every_keyword_that_names_a_value_is_covered():
    # A keyword jsonschema reports with a value and no entry here would speak Python again.
    from mcp_tools.schemas.validators import MESSAGES

    reported = {"items", "prefixItems", "contains", "oneOf"} | set(MESSAGES)
    python_keywords = {
        keyword
        for keyword in Draft202012Validator.VALIDATORS
        if keyword
        not in {
            # Keywords that only descend into subschemas: their errors are the subschemas'.
            "$ref",
            "$dynamicRef",
            "allOf",
            "dependentSchemas",
            "if",
            "properties",
            "patternProperties",
            "propertyNames",
            "minContains",
            "maxContains",
        }
    }
    assert python_keywords - reported == set()
