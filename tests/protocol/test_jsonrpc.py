"""JSON-RPC envelopes and the splice of already-encoded JSON."""

import enum
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_tools.protocol.jsonrpc import (
    JSONRPCError,
    RawJSON,
    encode,
    error_envelope,
    loads,
    parse_message,
    result_envelope,
)


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, {"b": RawJSON('{"c":[true,null]}')}], "d": 'é\n"q"'},
        [RawJSON("[1,2]"), RawJSON('"s"'), 3, None],
        {"only": "scalars", "n": 1.5, "t": True},
    ],
)
def test_encode_splices_raw_json_and_matches_json_dumps(value):
    def plain(v):
        if isinstance(v, RawJSON):
            return v.value
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v

    assert json.loads(encode(value)) == plain(value)


_SCALARS = st.none() | st.booleans() | st.integers() | st.text()
_JSON = st.recursive(
    _SCALARS | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_encode_writes_what_json_dumps_writes(value):
    assert encode(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _Kind(enum.IntEnum):
    A = 3


class _Text(str):
    pass


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", None: 3, 2.5: "f"},  # keys as json writes them
        [_Kind.A, _Text("s"), (1, 2)],  # subclasses and tuples
        {"n": {1: "nested"}, "t": (True,)},
    ],
)
def test_encode_writes_keys_and_subclasses_as_json_does(value):
    assert encode(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _Named(str, enum.Enum):  # noqa: UP042  (its str() is "_Named.A", not its value)
    A = "a"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        # A key that is no str: as the json module writes it where the object holds no
        # object or array, else with str(), as this encoder always has.
        ({True: (1,)}, '{"true":[1]}'),
        ({True: [1]}, '{"True":[1]}'),
        ({"x": ({True: [1]},)}, '{"x":[{"true":[1]}]}'),
        ({_Named.A: 1}, '{"a":1}'),
        ({_Named.A: [1]}, '{"_Named.A":[1]}'),
    ],
)
def test_encode_writes_other_keys_as_it_always_has(value, written):
    assert encode(value) == written


@pytest.mark.parametrize("value", [float("nan"), [float("inf")], {"x": object()}, {object(): 1}])
def test_encode_refuses_what_has_no_json_form(value):
    with pytest.raises((ValueError, TypeError)):
        encode(value)


@pytest.mark.parametrize("key", ["k", 1])
def test_encode_refuses_a_deep_value_without_encoding_anything_twice(monkeypatch, key):
    # A value with no JSON form deep in a definition is refused at once: tools/list leaves
    # that tool out (endpoint.handlers.written_definition), it must not take minutes.
    from mcp_tools.protocol import jsonrpc

    value: object = {key: object()}
    for _ in range(16):
        value = {key: [value]}
    calls = []
    original = jsonrpc.encode
    monkeypatch.setattr(jsonrpc, "encode", lambda v: calls.append(v) or original(v))
    with pytest.raises(TypeError):
        original(value)
    assert len(calls) <= 2 * 34


def test_envelopes():
    assert json.loads(result_envelope(4, {"x": RawJSON("[1]")})) == {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {"x": [1]},
    }
    error = JSONRPCError(-32602, "Unknown tool: x", data={"name": "x"})
    assert json.loads(error_envelope("a", error)) == {
        "jsonrpc": "2.0",
        "id": "a",
        "error": {"code": -32602, "message": "Unknown tool: x", "data": {"name": "x"}},
    }


def test_loads_bounds_nesting():
    assert loads(b"[[[1]]]", max_depth=3) == [[[1]]]
    with pytest.raises(JSONRPCError) as excinfo:
        loads(b"[[[[1]]]]", max_depth=3)
    assert (excinfo.value.code, excinfo.value.status) == (-32600, 400)


@pytest.mark.parametrize("body", [b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000])
def test_loads_survives_pathological_nesting(body):
    with pytest.raises(JSONRPCError) as excinfo:
        loads(body, max_depth=64)
    assert (excinfo.value.code, excinfo.value.status) == (-32600, 400)


@pytest.mark.parametrize(
    "body",
    [b'{"id":"\\ud800"}', b'{"\\udfff":1}', b'[["x\\uDBFFy"]]', b'"\xed\xa0\x80"'],
)
def test_loads_refuses_lone_surrogates_in_any_string_or_key(body):
    with pytest.raises(JSONRPCError) as excinfo:
        loads(body, max_depth=64)
    assert excinfo.value.status == 400


def test_loads_reads_surrogate_pairs_and_a_leading_bom():
    assert loads(b'{"s":"\\ud83d\\ude00","t":"\\\\ud800"}', max_depth=64) == {
        "s": "\U0001f600",
        "t": "\\ud800",  # an escaped backslash, not a surrogate
    }
    assert loads(b"\xef\xbb\xbf[1]", max_depth=64) == [1]


@pytest.mark.parametrize(
    ("token", "fault"),
    [
        ("t" * 257, "is longer than 256 characters"),
        (2**53, "must be an integer from -9007199254740991 to 9007199254740991"),
        (-(2**53), "must be an integer from -9007199254740991 to 9007199254740991"),
        (1.5, "must be a string or an integer"),
        (True, "must be a string or an integer"),
        ({"a": 1}, "must be a string or an integer"),
    ],
)
def test_a_progress_token_past_its_bounds_is_refused(token, fault):
    message = parse_message(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"_meta": {"progressToken": token}},
        }
    )
    with pytest.raises(JSONRPCError) as excinfo:
        message.check_progress_token()
    assert (excinfo.value.code, excinfo.value.message) == (
        -32602,
        f"Invalid params: _meta.progressToken {fault}",
    )
    assert message.progress_token is None


@pytest.mark.parametrize("token", ["t" * 256, "", 2**53 - 1, -(2**53 - 1), 0])
def test_a_progress_token_within_its_bounds_is_taken(token):
    message = parse_message(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"_meta": {"progressToken": token}},
        }
    )
    message.check_progress_token()
    assert message.progress_token == token


@pytest.mark.parametrize("meta", [{}, {"progressToken": None}])
def test_no_progress_token_or_null_is_none(meta):
    message = parse_message(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": meta}}
    )
    message.check_progress_token()
    assert message.progress_token is None


def test_encode_takes_two_frames_a_level_as_it_always_has():
    # A result built in Python (a code tool, a processor) nested 400 objects deep encoded
    # before; a third frame per level would make it a RecursionError.
    value: object = 1
    for _ in range(400):
        value = {"k": value}
    assert encode(value) == '{"k":' * 400 + "1" + "}" * 400


def test_encode_reads_a_proxy_of_a_dict_as_it_always_has():
    from django.utils.functional import SimpleLazyObject

    assert encode(SimpleLazyObject(lambda: {"b": [1]})) == '{"b":[1]}'
    with pytest.raises(TypeError):  # handed to the json module, which wants the real type
        encode(SimpleLazyObject(lambda: {"b": 1}))
