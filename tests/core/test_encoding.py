"""JSON of values built in Python (docs/results.md): DRF's encoding, JSON_NAN, clear errors."""

import datetime
import decimal
import json
import os
import uuid

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from mcp_tools.core.encoding import (
    ResultEncodingError,
    encode_value,
    parse_json,
    without_whitespace,
)

ENCODED = [
    ("object", {"a": 1, "b": "é"}, '{"a":1,"b":"é"}'),
    ("tuple is an array", (1, 2), "[1,2]"),
    ("json-looking string stays a string", '{"a": 1}', '"{\\"a\\": 1}"'),
    ("null", None, "null"),
    ("datetime as DRF renders it", datetime.datetime(2026, 1, 2, 3, 4, 5), '"2026-01-02T03:04:05"'),
    ("date", datetime.date(2026, 1, 2), '"2026-01-02"'),
    ("decimal as DRF's encoder renders it", decimal.Decimal("1.50"), "1.5"),
    ("uuid", uuid.UUID(int=1), '"00000000-0000-0000-0000-000000000001"'),
    ("lazy string", gettext_lazy("Hello"), '"Hello"'),
    ("generator", (i for i in range(2)), "[0,1]"),
]


@pytest.mark.parametrize(("case", "value", "expected"), ENCODED, ids=[c[0] for c in ENCODED])
def test_values_encode_as_drf_renders_them(case, value, expected):
    assert encode_value(value).text == expected


NAN_CASES = [
    ("null", {"x": [float("nan"), float("inf"), float("-inf")]}, '{"x":[null,null,null]}'),
    (
        "string",
        {"x": [float("nan"), float("inf"), float("-inf")]},
        '{"x":["NaN","Infinity","-Infinity"]}',
    ),
]


@pytest.mark.parametrize(("mode", "value", "expected"), NAN_CASES, ids=[c[0] for c in NAN_CASES])
def test_json_nan_null_and_string(mode, value, expected):
    assert encode_value(value, nan=mode).text == expected


@pytest.mark.parametrize("value", [float("nan"), {"a": [float("inf")]}, (float("-inf"),)])
def test_json_nan_error_is_the_default(value):
    with pytest.raises(ResultEncodingError, match=r"^Result is not valid JSON: NaN or infinity$"):
        encode_value(value)


BAD = [
    ("set", {1}, "set"),
    ("frozenset", frozenset(), "frozenset"),
    ("bytes", b"x", "bytes"),
    ("bytearray", bytearray(b"x"), "bytearray"),
    ("int key", {1: "a"}, "int key"),
    ("tuple key", {(1,): "a"}, "tuple key"),
    ("object", object(), "object"),
    ("nested set", {"a": [{"b": {2}}]}, "set"),
]


@pytest.mark.parametrize(("case", "value", "type_name"), BAD, ids=[c[0] for c in BAD])
def test_values_without_a_json_form_are_an_error_naming_the_type(case, value, type_name):
    with pytest.raises(ResultEncodingError) as excinfo:
        encode_value(value)
    assert str(excinfo.value).startswith("Result is not valid JSON: ")
    assert type_name in str(excinfo.value)


def test_a_cycle_is_an_error_not_a_crash():
    value: list = []
    value.append(value)
    with pytest.raises(ResultEncodingError, match="cycle"):
        encode_value(value)


def test_an_unknown_nan_mode_is_refused():
    with pytest.raises(ValueError, match="JSON_NAN"):
        encode_value(1, nan="zero")


def test_encoded_values_decode_lazily_to_the_json_value():
    encoded = encode_value({"when": datetime.date(2026, 1, 2)})
    assert encoded.value == {"when": "2026-01-02"}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("null", {"x": None, "y": [None]}), ("string", {"x": "NaN", "y": ["-Infinity"]})],
)
def test_parsed_bodies_follow_json_nan(mode, expected):
    assert parse_json('{"x": NaN, "y": [-Infinity]}', nan=mode) == expected


def test_parsed_bodies_with_nan_are_an_error_by_default():
    with pytest.raises(ResultEncodingError, match="NaN or infinity"):
        parse_json('{"x": NaN}')


# -- JSON_TEXT: an indented body without its whitespace -----------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(
    value=JSON_VALUES,
    indent=st.sampled_from([1, 2, 4, "\t", " \r\n"]),
    ascii_only=st.booleans(),
)
@hypothesis_settings(max_examples=int(os.environ.get("MCP_FUZZ_EXAMPLES", "200")), deadline=None)
def test_without_whitespace_is_the_body_compact_every_token_kept(value, indent, ascii_only):
    body = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    compact = json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only)
    assert without_whitespace(body) == compact


def test_without_whitespace_keeps_numbers_and_escapes_as_written():
    body = '{\n  "n": 1.50,\n  "s": "a \\" b",\n  "e": "\\u00e9\\/"\n}'
    assert without_whitespace(body) == '{"n":1.50,"s":"a \\" b","e":"\\u00e9\\/"}'
