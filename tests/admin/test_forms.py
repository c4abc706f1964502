"""Try it's form built from an input schema: a widget per JSON type (docs/admin.md#try-it)."""

import pytest
from django import forms

from mcp_tools.admin.forms import TryItForm, field_for

LEFT_OUT = "Leave out (the view's default)"


def options(field):
    return [(str(value), str(label)) for value, label in field.widget.choices]


@pytest.mark.parametrize(
    ("schema", "required", "widget", "choices"),
    [
        # Choices: enum values are their own labels; oneOf/anyOf of const branches have titles.
        (
            {"enum": ["EUR", "USD"]},
            False,
            forms.Select,
            [("", LEFT_OUT), ('"EUR"', "EUR"), ('"USD"', "USD")],
        ),
        (
            {
                "type": "string",
                "oneOf": [
                    {"const": "EUR", "title": "Euro"},
                    {"const": "USD", "title": "US dollar"},
                ],
            },
            True,
            forms.Select,
            [("", "Choose one"), ('"EUR"', "Euro"), ('"USD"', "US dollar")],
        ),
        (  # labels win over a bare enum; a null branch is the empty choice's
            {
                "enum": ["EUR", "USD", None],
                "oneOf": [
                    {"const": "EUR", "title": "Euro"},
                    {"const": "USD", "title": "US dollar"},
                    {"type": "null"},
                ],
            },
            False,
            forms.Select,
            [("", LEFT_OUT), ('"EUR"', "Euro"), ('"USD"', "US dollar")],
        ),
        (
            {"anyOf": [{"const": 1, "title": "Low"}, {"const": 2}]},
            False,
            forms.Select,
            [("", LEFT_OUT), ("1", "Low"), ("2", "2")],
        ),
        (
            {"enum": ["red", "blue"], "default": "red"},
            False,
            forms.Select,
            [("", "Leave out (default: red)"), ('"red"', "red"), ('"blue"', "blue")],
        ),
        # Yes/no: "leave out" only where the call may leave it out.
        (
            {"type": "boolean"},
            False,
            forms.NullBooleanSelect,
            [("unknown", LEFT_OUT), ("true", "Yes"), ("false", "No")],
        ),
        (
            {"type": "boolean", "default": True},
            False,
            forms.NullBooleanSelect,
            [("unknown", "Leave out (default: Yes)"), ("true", "Yes"), ("false", "No")],
        ),
        (
            {"type": "boolean"},
            True,
            forms.Select,
            [("", "Choose one"), ("true", "Yes"), ("false", "No")],
        ),
        # Numbers in number boxes; a foreign key is an integer (its description says of what).
        (
            {"type": "integer", "description": "The maker: a Maker's id."},
            False,
            forms.NumberInput,
            None,
        ),
        ({"type": ["integer", "null"]}, False, forms.NumberInput, None),
        ({"type": "number"}, False, forms.NumberInput, None),
        # Text on one line: short strings, formats, decimals (as a string or number|string).
        ({"type": "string", "maxLength": 40}, False, forms.TextInput, None),
        ({"type": "string"}, False, forms.TextInput, None),
        ({"type": "string", "format": "date"}, False, forms.TextInput, None),
        (
            {
                "type": "string",
                "pattern": r"^-?\d{0,6}(?:\.\d{0,2})?$",
                "description": "A decimal.",
            },
            False,
            forms.TextInput,
            None,
        ),
        (
            {"type": ["number", "string"], "pattern": r"^-?\d+(\.\d+)?$"},
            False,
            forms.TextInput,
            None,
        ),
        # A box only for text said to be long, and the JSON of what has no widget.
        ({"type": "string", "maxLength": 500}, False, forms.Textarea, None),
        ({"type": "object"}, False, forms.Textarea, None),
        ({"type": "array", "items": {"type": "integer"}}, False, forms.Textarea, None),
    ],
)
def test_a_widget_per_json_type(schema, required, widget, choices):
    field = field_for("x", schema, required)
    assert isinstance(field.widget, widget)
    if choices is not None:
        assert options(field) == choices


def test_a_required_argument_says_so_in_its_label():
    assert field_for("pk", {"type": "integer"}, True).label == "pk (required)"
    assert field_for("q", {"type": "string"}, False).label == "q"


def test_a_date_box_shows_what_to_type():
    assert field_for("day", {"type": "string", "format": "date"}, False).widget.attrs == {
        "placeholder": "2026-12-31"
    }


SCHEMA = {
    "type": "object",
    "properties": {
        "currency": {
            "oneOf": [{"const": "EUR", "title": "Euro"}, {"const": "USD", "title": "US dollar"}]
        },
        "amount": {"type": "string", "pattern": r"^\d+(\.\d{2})?$"},
        "express": {"type": "boolean"},
        "gift": {"type": "boolean"},
        "count": {"type": "integer"},
    },
    "required": ["express"],
}


@pytest.mark.parametrize(
    ("data", "arguments"),
    [
        (
            {
                "argument_currency": '"USD"',
                "argument_amount": "12.50",
                "argument_express": "false",
                "argument_gift": "unknown",
            },
            {"currency": "USD", "amount": "12.50", "express": False},
        ),
        ({"argument_gift": "true", "argument_count": "0"}, {"gift": True, "count": 0}),
        ({}, {}),  # nothing filled in: nothing sent, the tool says what is missing
    ],
)
def test_the_form_sends_what_the_widgets_hold_and_leaves_out_the_rest(data, arguments):
    form = TryItForm(SCHEMA, data)
    assert form.is_valid(), form.errors
    assert form.arguments() == arguments
    assert form.protocol_version() == "2025-11-25"


def test_the_client_protocol_is_any_version_the_endpoint_serves():
    form = TryItForm(SCHEMA, {"protocol_version": "2026-07-28"})
    assert form.is_valid() and form.protocol_version() == "2026-07-28"
    assert not TryItForm(SCHEMA, {"protocol_version": "2099-01-01"}).is_valid()
