"""Argument headers: their declarations, the value encoding, and the check against the body."""

from __future__ import annotations

import pytest
from mcp.shared import inbound

from mcp_tools.protocol import headers
from mcp_tools.protocol.headers import ArgumentHeader, InvalidHeader
from mcp_tools.protocol.jsonrpc import HEADER_MISMATCH, JSONRPCError

REGION = ArgumentHeader(("region",), "Region", "string")
SHARD = ArgumentHeader(("shard",), "Shard", "integer")
VERBOSE = ArgumentHeader(("verbose",), "Verbose", "boolean")
NESTED = ArgumentHeader(("target", "zone"), "Zone", "string")


def schema(**properties):
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize(
    "value, sent",
    [
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ("tab\tinside", "=?base64?dGFiCWluc2lkZQ==?="),
        ("", ""),
    ],
)
def test_values_are_encoded_as_the_specification_shows_and_as_the_sdk_does(value, sent):
    assert headers.encode_value(value) == sent == inbound.encode_header_value(value)
    assert headers.decode_value(sent) == value


@pytest.mark.parametrize(
    "sent",
    [
        "=?base64?SGVsbG8?=",  # no padding
        "=?base64?SGVs!!!bG8=?=",  # outside the alphabet
        "=?base64?SGVsbG9=?=",  # non-zero padding bits: not the canonical form of "Hello"
        "=?base64?SGVs bG8=?=",  # a space inside
        "=?base64?/w==?=",  # not UTF-8
        "=?base64?SGVsbG8-?=",  # the URL-safe alphabet
    ],
)
def test_a_base64_value_must_be_strict(sent):
    assert headers.decode_value(sent) is None
    assert inbound.decode_header_value(sent) is None


@pytest.mark.parametrize(
    "sent", ["SGVsbG8=", "=?base64?SGVsbG8=", "SGVsbG8=?=", "=?BASE64?SGVsbG8=?="]
)
def test_a_value_without_the_exact_wrapper_is_literal(sent):
    assert headers.decode_value(sent) == sent


def test_declared_headers_are_found_on_properties_in_schema_order():
    declared = schema(
        region={"type": "string", "x-mcp-header": "Region"},
        query={"type": "string"},
        target={
            "type": "object",
            "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}},
        },
        shard={"type": "integer", "x-mcp-header": "Shard"},
    )
    assert headers.declared(declared) == (REGION, NESTED, SHARD)
    assert inbound.find_invalid_x_mcp_header(declared) is None
    assert headers.declared(schema(query={"type": "string"})) == ()
    # Instance data is not a schema: a default or an enum that holds the word declares nothing.
    assert headers.declared(schema(q={"type": "object", "default": {"x-mcp-header": "X"}})) == ()


@pytest.mark.parametrize(
    "declared, kind, params",
    [
        (
            schema(r={"type": "string", "x-mcp-header": "Re gion"}),
            headers.BAD_NAME,
            {"argument": "r", "header": "Re gion"},
        ),
        (schema(r={"type": "string", "x-mcp-header": ""}), headers.BAD_NAME, None),
        (schema(r={"type": "string", "x-mcp-header": "A:B"}), headers.BAD_NAME, None),
        (schema(r={"type": "string", "x-mcp-header": "A\r\nB"}), headers.BAD_NAME, None),
        (schema(r={"type": "string", "x-mcp-header": "Région"}), headers.BAD_NAME, None),
        (schema(r={"type": "string", "x-mcp-header": 7}), headers.BAD_NAME, None),
        (
            schema(n={"type": "number", "x-mcp-header": "N"}),
            headers.BAD_TYPE,
            {"argument": "n", "header": "N", "type": "number"},
        ),
        (schema(n={"type": ["string", "null"], "x-mcp-header": "N"}), headers.BAD_TYPE, None),
        (schema(n={"x-mcp-header": "N"}), headers.BAD_TYPE, None),
        (schema(n={"type": "object", "x-mcp-header": "N"}), headers.BAD_TYPE, None),
        (schema(n={"type": "array", "x-mcp-header": "N"}), headers.BAD_TYPE, None),
        (
            schema(
                a={"type": "string", "x-mcp-header": "Region"},
                b={"type": "string", "x-mcp-header": "REGION"},
            ),
            headers.DUPLICATE,
            {"argument": "b", "other": "a", "header": "REGION"},
        ),
        (
            schema(a={"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}),
            headers.UNREACHABLE,
            {"pointer": "/properties/a/items"},
        ),
        (
            {**schema(), "anyOf": [schema(a={"type": "string", "x-mcp-header": "A"})]},
            headers.UNREACHABLE,
            {"pointer": "/anyOf/0/properties/a"},
        ),
        (
            {**schema(), "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}},
            headers.UNREACHABLE,
            {"pointer": "/$defs/d"},
        ),
        (
            schema(a={"$ref": "#/$defs/a", "x-mcp-header": "A"}),
            headers.BAD_TYPE,
            None,
        ),
        ({**schema(), "x-mcp-header": "Root"}, headers.UNREACHABLE, {"pointer": "/"}),
    ],
)
def test_each_form_the_specification_forbids_is_refused_as_the_sdk_refuses_it(
    declared, kind, params
):
    with pytest.raises(InvalidHeader) as raised:
        headers.declared(declared)
    assert raised.value.kind == kind
    if params is not None:
        assert raised.value.params == params
    # The official SDK drops the tool: a client would never call it.
    assert inbound.find_invalid_x_mcp_header(declared) is not None


@pytest.mark.parametrize(
    "declared, pointer",
    [
        (
            schema(a={"type": "array", "items": [{"type": "string", "x-mcp-header": "A"}]}),
            "/properties/a/items/0",
        ),
        (
            {**schema(), "dependencies": {"a": {"properties": {"b": {"x-mcp-header": "B"}}}}},
            "/dependencies/a/properties/b",
        ),
    ],
)
def test_draft_07_forms_of_those_keywords_are_refused_too(declared, pointer):
    # The SDK walks only their 2020-12 forms (prefixItems, dependentSchemas), so it would
    # keep the tool and never mirror the header: refused at start-up all the same.
    with pytest.raises(InvalidHeader) as raised:
        headers.declared(declared)
    assert (raised.value.kind, raised.value.params) == (headers.UNREACHABLE, {"pointer": pointer})


def test_older_eras_get_the_schema_without_its_annotations():
    declared = schema(
        region={"type": "string", "x-mcp-header": "Region"},
        target={"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Z"}}},
        query={"type": "string"},
    )
    stripped = headers.without_annotations(declared)
    assert stripped == schema(
        region={"type": "string"},
        target={"type": "object", "properties": {"zone": {"type": "string"}}},
        query={"type": "string"},
    )
    assert stripped["properties"]["query"] is declared["properties"]["query"]
    assert declared["properties"]["region"]["x-mcp-header"] == "Region"  # not changed
    plain = schema(query={"type": "string"})
    assert headers.without_annotations(plain) is plain


def meta(**sent):
    return {f"HTTP_MCP_PARAM_{name.upper()}": value for name, value in sent.items()}


@pytest.mark.parametrize(
    "arguments, sent",
    [
        ({"region": "us-west1"}, {"Region": "us-west1"}),
        ({"region": "Hello"}, {"Region": "=?base64?SGVsbG8=?="}),
        ({"region": "SGVsbG8="}, {"Region": "SGVsbG8="}),
        ({"region": "=?base64?SGVsbG8="}, {"Region": "=?base64?SGVsbG8="}),
        ({"region": "Hello, 世界"}, {"Region": "=?base64?SGVsbG8sIOS4lueVjA==?="}),
        ({"region": "us"}, {"Region": "  us \t"}),  # whitespace around a value is no part of it
        ({}, {}),
        ({"region": None}, {}),
        ({"shard": 42}, {"Shard": "42"}),
        ({"shard": 42}, {"Shard": "42.0"}),
        ({"shard": 42}, {"Shard": "042"}),
        ({"shard": 42.0}, {"Shard": "42"}),
        ({"shard": -7}, {"Shard": "-7"}),
        ({"shard": 2**60}, {"Shard": str(2**60)}),
        ({"shard": "42"}, {"Shard": "42"}),  # a string the lenient conversion reads later
        ({"verbose": True}, {"Verbose": "true"}),
        ({"verbose": False}, {"Verbose": "false"}),
        ({"target": {"zone": "a"}}, {"Zone": "a"}),
        ({"target": "flat"}, {}),
    ],
)
def test_a_header_that_agrees_with_its_argument_passes(arguments, sent):
    declared = (REGION, SHARD, VERBOSE, NESTED)
    headers.check(declared, arguments, meta(**sent))
    lowered = {f"mcp-param-{name.lower()}": value for name, value in sent.items()}
    schema_of = schema(
        region={"type": "string", "x-mcp-header": "Region"},
        shard={"type": "integer", "x-mcp-header": "Shard"},
        verbose={"type": "boolean", "x-mcp-header": "Verbose"},
        target={
            "type": "object",
            "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}},
        },
    )
    if "  us \t" not in sent.values():  # ASGI strips it before the SDK reads it
        assert inbound.validate_mcp_param_headers(schema_of, arguments, lowered) is None


@pytest.mark.parametrize(
    "arguments, sent, message",
    [
        (
            {"region": "us"},
            {},
            "Mcp-Param-Region header is missing, but the argument 'region' is in the body",
        ),
        (
            {},
            {"Region": "us"},
            "Mcp-Param-Region header is sent, but the argument 'region' is not in the body",
        ),
        (
            {"region": None},
            {"Region": "null"},
            "Mcp-Param-Region header is sent, but the argument 'region' is not in the body",
        ),
        (
            {"region": "us"},
            {"Region": "eu"},
            "Mcp-Param-Region header does not match the argument 'region'",
        ),
        (
            {"region": "Us"},
            {"Region": "us"},
            "Mcp-Param-Region header does not match the argument 'region'",
        ),
        (
            {"region": "Hello"},
            {"Region": "=?base64?SGVsbG8?="},
            "Mcp-Param-Region header is not valid =?base64?...?= (padded Base64 of UTF-8)",
        ),
        (
            {"region": "Hello"},
            {"Region": "=?base64?SGVs!!!bG8=?="},
            "Mcp-Param-Region header is not valid =?base64?...?= (padded Base64 of UTF-8)",
        ),
        (
            {"region": "Région"},
            {"Region": "R\xc3\xa9gion"},  # raw UTF-8 bytes, as WSGI hands them over (Latin-1)
            "Mcp-Param-Region header holds characters a header value can't carry; send them as "
            "=?base64?...?=",
        ),
        (
            {"shard": 42},
            {"Shard": "42.5"},
            "Mcp-Param-Shard header does not match the argument 'shard'",
        ),
        (
            {"shard": 42},
            {"Shard": "4.2e1"},
            "Mcp-Param-Shard header does not match the argument 'shard'",
        ),
        (
            {"shard": True},
            {"Shard": "1"},
            "Mcp-Param-Shard header does not match the argument 'shard'",
        ),
        (
            {"verbose": True},
            {"Verbose": "True"},
            "Mcp-Param-Verbose header does not match the argument 'verbose'",
        ),
        (
            {"region": {"an": "object"}},
            {"Region": "x"},
            "Mcp-Param-Region header does not match the argument 'region'",
        ),
        (
            {"target": {"zone": "a"}},
            {},
            "Mcp-Param-Zone header is missing, but the argument 'target.zone' is in the body",
        ),
    ],
)
def test_each_disagreement_is_refused_with_400_and_32020(arguments, sent, message):
    with pytest.raises(JSONRPCError) as raised:
        headers.check((REGION, SHARD, VERBOSE, NESTED), arguments, meta(**sent))
    assert (raised.value.code, raised.value.status) == (HEADER_MISMATCH, 400)
    assert raised.value.message == f"Header mismatch: {message}"


def test_a_client_mirrors_what_the_server_checks():
    arguments = {"region": "Hello, 世界", "shard": 3, "verbose": False, "target": {"zone": "z"}}
    sent = headers.mirror((REGION, SHARD, VERBOSE, NESTED), arguments)
    assert sent == {
        "Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "Mcp-Param-Shard": "3",
        "Mcp-Param-Verbose": "false",
        "Mcp-Param-Zone": "z",
    }
    wsgi = {"HTTP_" + name.upper().replace("-", "_"): value for name, value in sent.items()}
    headers.check((REGION, SHARD, VERBOSE, NESTED), arguments, wsgi)
    assert headers.mirror((REGION,), {"region": None}) == {}
