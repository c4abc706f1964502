"""Property-based fuzzing of the whole endpoint through Django's test client.

hypothesis draws what a hostile or broken client sends: JSON-RPC messages of every method in
both eras, single and in batches, with wrong types, missing fields, huge and deep values,
odd unicode (lone surrogates, NUL, right-to-left marks, combining marks), duplicate keys,
NaN literals, huge numbers, long strings and many arguments, under hostile headers; and
tool calls of the real tools with arguments drawn from their own input schemas. Every
request must get:

- never a 5xx, never a traceback, never a fault of the endpoint itself in its log;
- 202 with no body for notifications and responses, else JSON-RPC answers (an array for a
  batch, an SSE stream for a streamed call) that validate against the official schema of
  the version the request speaks, each with the request's id or null;
- nothing written to the database by a refused request (an HTTP error, or JSON-RPC error
  answers only), and no view run for a tool call refused before it ran.

The budget is ``MCP_FUZZ_EXAMPLES`` examples (2,000 in ``make test``: about a minute here);
docs/reliability.md has the command for a long campaign (100,000).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from typing import Any

import pytest

# Hypothesis keeps a cache folder; keep it out of the work tree (examples are not stored).
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "mcp-tools-hypothesis")
)
from django.apps import apps
from django.test import Client
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from mcp_tools import get_tool_call, invocation
from mcp_tools.arguments import declared_types
from mcp_tools.models import ToolCall
from mcp_tools.protocol import versions
from mcp_tools.protocol.jsonrpc import MISSING_CAPABILITY
from mcp_tools.registry import registry
from tests.helpers import MODERN, unrolled
from tests.wire import RESULT_DEFINITIONS, _defs, sse_messages, validate_server_request, validator

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("MCP_FUZZ_EXAMPLES", "2000"))
HANDSHAKE = list(versions.HANDSHAKE_VERSIONS)
ALL_VERSIONS = [*HANDSHAKE, MODERN]
METHODS = [
    "initialize",
    "ping",
    "logging/setLevel",
    "tools/list",
    "tools/call",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "resources/list",
    "",
    "x" * 300,
]
#: Tools that wait on purpose (SSE probes, progress steps): they would only eat the budget.
SLOW_TOOLS = {
    "probe_gate",
    "probe_loop",
    "probe_flood",
    "probe_workers",
    "test_tool_with_progress",
    "test_tool_with_logging",
    "session_counter",
}


# -- JSON text a strict serializer would never write ---------------------------------------


@dataclass(frozen=True)
class Raw:
    """JSON text placed as it is: NaN, huge numbers, deep nesting, broken fragments."""

    text: str


@dataclass(frozen=True)
class Pairs:
    """An object as a list of pairs, so a key can appear twice."""

    pairs: tuple[tuple[str, Any], ...]

    def value(self) -> dict[str, Any]:
        return dict(self.pairs)


def dump(value: Any, ascii_only: bool) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Pairs | dict):
        pairs = value.pairs if isinstance(value, Pairs) else tuple(value.items())
        return (
            "{"
            + ",".join(
                f"{json.dumps(key, ensure_ascii=ascii_only)}:{dump(item, ascii_only)}"
                for key, item in pairs
            )
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(dump(item, ascii_only) for item in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


# -- Strategies ------------------------------------------------------------------------------

ODD_CHARACTERS = [
    "\u0000",
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
    "\u202e",
    "\u200f",
    "\u0301",
    "e\u0301",
    "\ufeff",
    "\u2028",
    "\n",
    '"',
    "\\",
    "é",
    "١",
    "%2F",
    "../",
    "'",
]

odd_text = st.one_of(
    st.text(max_size=20),
    st.text(st.characters(codec=None, categories=["Cs", "Mn", "Cf", "Cc", "Zs"]), max_size=8),
    st.lists(st.sampled_from(ODD_CHARACTERS), max_size=6).map("".join),
    st.builds(
        lambda piece, count: piece * count,
        st.sampled_from(["x", "é", "0", " ", "a,", "\u0000", "9.", "[", "\ud800"]),
        st.sampled_from([100, 1001, 5000, 70_000]),
    ),
)
raw_fragments = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-0", "1E400", "0.1e-400"]),
    st.sampled_from([20, 4300, 4301, 6000]).map(lambda digits: "9" * digits),
    st.sampled_from([2, 64, 65, 3000]).map(lambda depth: "[" * depth + "]" * depth),
    st.sampled_from([2, 64, 65]).map(lambda depth: '{"a":' * depth + "1" + "}" * depth),
    st.sampled_from(['"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\u0000"']),
).map(Raw)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    odd_text,
)


def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.one_of(scalars, raw_fragments),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(odd_text, children, max_size=4),
            st.lists(st.tuples(st.sampled_from(["a", "name", "id"]), children), max_size=4).map(
                lambda pairs: Pairs(tuple(pairs))
            ),
        ),
        max_leaves=max_leaves,
    )


#: Strings that hold JSON, as lenient clients send typed arguments (deep ones too).
json_in_strings = st.one_of(
    st.sampled_from([200_000, 1_001, 65, 64, 2]).map(lambda depth: "[" * depth + "]" * depth),
    st.sampled_from([200_000, 1_001, 2]).map(lambda depth: "[" * depth),
    st.deferred(lambda: json_values(4)).map(lambda value: dump(value, ascii_only=True)),
)

ids = st.one_of(
    st.integers(-(2**63), 2**63),
    odd_text,
    odd_text,
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.just([1]),
    raw_fragments,
)


def fuzzable_tools() -> list[Any]:
    return sorted(
        (tool for tool in registry.tools("tests.urls") if tool.name not in SLOW_TOOLS),
        key=lambda tool: tool.name,
    )


_ARGUMENTS: dict[str, st.SearchStrategy[Any]] = {}


def schema_arguments(tool: Any) -> st.SearchStrategy[Any]:
    """Arguments drawn from the tool's own inputSchema (recursion unrolled twice)."""
    if tool.name not in _ARGUMENTS:
        schema = tool.input_schema
        _ARGUMENTS[tool.name] = from_schema(unrolled(schema, schema.get("$defs", {})))
    return _ARGUMENTS[tool.name]


@st.composite
def tool_call_params(draw: st.DrawFn, hostile: bool) -> Any:
    tools = fuzzable_tools()
    tool = draw(st.sampled_from(tools))
    kinds = (
        ["valid", "odd", "odd", "random", "many", "none"] if hostile else ["valid"] * 4 + ["none"]
    )
    kind = draw(st.sampled_from(kinds))
    if kind in ("valid", "odd"):
        arguments: Any = draw(schema_arguments(tool))
        if kind == "odd":  # one argument, declared or not, made odd
            declared = tool.input_schema.get("properties", {})
            # Above all an argument of a type other than string: its strings are decoded.
            typed = [k for k, v in declared.items() if "string" not in declared_types(v)]
            key = draw(
                st.sampled_from(typed or [*declared, "x"])
                | st.sampled_from([*declared, *arguments, "x"])
            )
            odd = st.one_of(json_in_strings, odd_text, raw_fragments, scalars)
            arguments = {**arguments, key: draw(odd)}
    elif kind == "random":
        arguments = draw(st.one_of(json_values(), st.dictionaries(odd_text, json_values(4))))
    elif kind == "many":
        count = draw(st.sampled_from([5, 999, 1001, 5000, 70_000]))
        value = draw(st.sampled_from([0, "x", [1, 2]]))
        arguments = {str(index): value for index in range(count)}
    else:
        arguments = None
    name: Any = tool.name
    if hostile and draw(st.booleans()):
        name = draw(st.one_of(odd_text, st.integers()))
    params: dict[str, Any] = {"name": name}
    if arguments is not None or draw(st.booleans()):
        params["arguments"] = arguments
    if draw(st.integers(0, 3)) == 0:
        params["_meta"] = {"progressToken": draw(ids)}
    return params


@st.composite
def params_for(draw: st.DrawFn, method: str, hostile: bool) -> Any:
    if method == "tools/call":
        return draw(tool_call_params(hostile))
    if method == "initialize":
        return {
            "protocolVersion": draw(st.sampled_from([*ALL_VERSIONS, "1999-01-01"]) | odd_text),
            "capabilities": draw(st.one_of(st.just({}), json_values(3))),
            "clientInfo": {"name": draw(odd_text), "version": "1"},
        }
    if method == "logging/setLevel":
        return {"level": draw(st.sampled_from([*versions.LOG_LEVELS, "loud"]) | odd_text)}
    if method == "tools/list":
        return draw(st.one_of(st.just({}), st.fixed_dictionaries({"cursor": st.one_of(ids)})))
    return draw(st.one_of(st.just({}), json_values(4))) if hostile else {}


WELL_FORMED_METHODS = ["tools/call"] * 6 + ["tools/list", "initialize", "ping", "logging/setLevel"]
#: What a hostile message has wrong (one or two of these, on a well-formed message).
MESSAGE_FAULTS = [
    "id",
    "id",
    "method",
    "params",
    "drop",
    "duplicate",
    "jsonrpc",
    "response",
    "notification",
    "anything",
    "meta",
]
#: What a hostile HTTP request has wrong (none, one or two of these).
REQUEST_FAULTS = ["encoding", "truncated", "accept", "version", "origin", "anonymous", "headers"]


@st.composite
def messages(draw: st.DrawFn, modern: bool, hostile: bool) -> Any:
    """One message, well formed for its era; a hostile one has odd values, and faults."""
    methods = [m for m in WELL_FORMED_METHODS if not modern or m not in ("ping", "initialize")]
    method: Any = draw(st.sampled_from([*methods, "server/discover"] if modern else methods))
    params = draw(params_for(method, hostile))
    # None at all half the time: the odd values of a hostile call are enough on their own.
    faults = draw(st.lists(st.sampled_from(MESSAGE_FAULTS), max_size=2)) if hostile else []
    if "anything" in faults:
        return draw(json_values())
    if modern and "meta" not in faults and isinstance(params, dict):
        meta = params.setdefault("_meta", {})
        meta[versions.PROTOCOL_VERSION_META_KEY] = MODERN
        meta[versions.CLIENT_CAPABILITIES_META_KEY] = draw(st.sampled_from([{}, {"x": 1}]))
    elif "meta" in faults and isinstance(params, dict):
        params["_meta"] = draw(json_values(4))
    request_id = draw(ids) if "id" in faults else draw(st.integers(0, 2**31) | st.text(max_size=8))
    if "method" in faults:
        method = draw(st.sampled_from(METHODS) | odd_text | json_values(2))
    if "params" in faults:
        params = draw(json_values(4))
    pairs: list[tuple[str, Any]] = [
        ("jsonrpc", draw(json_values(1)) if "jsonrpc" in faults else "2.0"),
        ("id", request_id),
        ("method", method),
        ("params", params),
    ]
    if "response" in faults:
        pairs = [("jsonrpc", "2.0"), ("id", request_id), ("result", draw(json_values(2)))]
    if "notification" in faults:
        pairs = [pair for pair in pairs if pair[0] != "id"]
    if "drop" in faults:
        dropped = draw(st.sampled_from([key for key, _ in pairs]))
        pairs = [pair for pair in pairs if pair[0] != dropped]
    if "duplicate" in faults and pairs:  # a key twice: the first and the last disagree
        key = draw(st.sampled_from([key for key, _ in pairs]))
        pairs.append((key, draw(json_values(2))))
    return Pairs(tuple(draw(st.permutations(pairs))))


@dataclass
class Exchange:
    """One HTTP request of the fuzz: its body, headers and the text it was made from."""

    body: bytes
    headers: dict[str, str]
    text: str
    version_header: str | None = None


ACCEPTS = [
    "application/json, text/event-stream",
    "application/json",
    "*/*",
    "text/event-stream",
    "application/json;q=0, text/event-stream",
    "text/event-stream;q=0, application/json",
    "",
]


@st.composite
def exchanges(draw: st.DrawFn) -> Exchange:
    modern = draw(st.booleans())
    hostile = draw(st.integers(0, 9)) < 5
    faults = draw(st.lists(st.sampled_from(REQUEST_FAULTS), max_size=2)) if hostile else []
    batch = not modern and draw(st.integers(0, 5)) == 0
    if batch:
        value: Any = draw(st.lists(messages(modern, hostile), min_size=0, max_size=24))
    else:
        value = draw(messages(modern, hostile))
    text = dump(value, ascii_only=draw(st.booleans()))
    encoding = "utf-8"
    if "encoding" in faults:
        encoding = draw(st.sampled_from(["utf-16", "utf-32", "bom", "utf-16-le"]))
    if encoding == "bom":
        body = b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass")
    else:
        body = text.encode(encoding, "surrogatepass")
    if "truncated" in faults:
        body = body[: draw(st.integers(1, max(len(body), 1)))] + draw(st.binary(max_size=4))
    headers = {"Accept": draw(st.sampled_from(ACCEPTS if "accept" in faults else ACCEPTS[:3]))}
    if modern:
        version_header: str | None = MODERN
    elif batch:
        version_header = draw(st.sampled_from(["2025-03-26", None]))
    else:
        version_header = draw(st.sampled_from([*HANDSHAKE, None]))
    if "version" in faults:
        version_header = draw(st.sampled_from([*ALL_VERSIONS, None, "2099-01-01"]) | odd_text)
    if version_header is not None:
        headers["MCP-Protocol-Version"] = version_header
    if modern and isinstance(value, Pairs):
        method = value.value().get("method")
        params = value.value().get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if isinstance(method, str):
            headers["Mcp-Method"] = mcp_name(method)
        if isinstance(name, str):
            headers["Mcp-Name"] = mcp_name(name)
    if "headers" in faults:
        headers[draw(st.sampled_from(["Mcp-Method", "Mcp-Name"]))] = draw(
            st.sampled_from(["tools/list", "=?base64?!!?=", "x", "=?base64?4pyTIMOgIGxhIG1vZGU=?="])
        )
    if "origin" in faults:
        headers["Origin"] = draw(
            st.sampled_from(["http://testserver", "https://testserver", "http://evil.example"])
        )
    if "anonymous" not in faults:
        headers["Authorization"] = "AUTH"  # alice's token, filled in by the test
    return Exchange(body, headers, text, version_header)


def mcp_name(value: str) -> str:
    """Encode an Mcp-Name value as the 2026-07-28 transport does (base64 past printable ASCII)."""
    if value.isascii() and value.isprintable():
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode() + "?="


# -- Checks ----------------------------------------------------------------------------------


def as_read(text: str) -> Any:
    """Return what a lenient reader makes of the text (the last duplicate wins), or None."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def version_of(request: Any, header: str | None) -> str:
    """Return the protocol version an answer to ``request`` speaks."""
    if isinstance(request, dict):
        params = request.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if request.get("method") == "server/discover" or (
            isinstance(meta, dict) and versions.PROTOCOL_VERSION_META_KEY in meta
        ):
            return MODERN
    if header in HANDSHAKE:
        return header
    return versions.DEFAULT_NEGOTIATED_VERSION


def validate_answer(answer: Any, request: Any, header: str | None) -> None:
    """Check one JSON-RPC answer against the schema of the version its request speaks."""
    assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0", answer
    request_id = request.get("id") if isinstance(request, dict) else None
    assert answer.get("id") in (request_id, None), (answer.get("id"), request_id)
    version = version_of(request, header)
    method = request.get("method") if isinstance(request, dict) else None
    if "result" in answer and method == "initialize":
        version = answer["result"]["protocolVersion"]
    defs = _defs(version)
    if "error" in answer:
        name = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in defs else "JSONRPCError"
        # JSON-RPC 2.0 answers null where the request's id could not be read; the MCP
        # schemas type the id as a RequestId only, so a placeholder stands in for null.
        checked = {**answer, "id": 0} if answer.get("id") is None else answer
        validator(version, name).validate(checked)
        return
    name = "JSONRPCResultResponse" if "JSONRPCResultResponse" in defs else "JSONRPCResponse"
    validator(version, name).validate(answer)
    validator(version, RESULT_DEFINITIONS[method]).validate(answer["result"])


def validate_for_one(answer: Any, requests: list[Any], header: str | None) -> None:
    """Check ``answer`` as the answer of one of ``requests`` (the first failure if none)."""
    failures = []
    for request in requests:
        try:
            validate_answer(answer, request, header)
            return
        except Exception as exc:
            failures.append(exc)
    raise failures[0]


def answers_of(response: Any) -> list[Any]:
    """Return the JSON-RPC messages a response carries (an SSE stream's events in order)."""
    if response.streaming:
        body = b"".join(response.streaming_content)
        assert b"Traceback" not in body
        return sse_messages(body)
    body = response.content
    assert b"Traceback" not in body and b'File "/' not in body, body[:500]
    if response.status_code == 202:
        assert body == b""
        return []
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    return [json.loads(body)]


class Faults(logging.Handler):
    """Collect the endpoint's own faults (a -32603): each one is a bug the fuzz found."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("The MCP endpoint failed"):
            self.records.append(record)


def row_counts() -> dict[str, int]:
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


# -- The property ----------------------------------------------------------------------------


@pytest.fixture
def fuzz_state(alice, monkeypatch, settings):
    """alice's token, a record of every view the endpoint runs, and a fault collector."""
    # A handshake-era question nobody answers (a confirmed tool's, on its stream) ends at once.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "INPUT_TIMEOUT": 0.05}
    ran: list[str] = []
    call_view = invocation.call_view

    def recording(request):
        ran.append(get_tool_call(request)["name"])
        return call_view(request)

    monkeypatch.setattr(invocation, "call_view", recording)
    faults = Faults()
    logger = logging.getLogger("mcp_tools")
    logger.addHandler(faults)
    try:
        yield alice.token, ran, faults
    finally:
        logger.removeHandler(faults)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(exchange=exchanges())
def test_the_endpoint_answers_anything_with_a_valid_answer_and_no_fault(fuzz_state, exchange):
    token, ran, faults = fuzz_state
    ran.clear()
    faults.records.clear()
    headers = {
        name: f"Token {token}" if value == "AUTH" else value
        for name, value in exchange.headers.items()
    }
    client = Client(raise_request_exception=False)
    before = row_counts()
    response = client.post(
        "/mcp", data=exchange.body, content_type="application/json", headers=headers
    )
    assert response.status_code < 500, response.content[:500]
    event(f"HTTP {response.status_code}{' SSE' if response.streaming else ''}")
    answers = answers_of(response)
    assert faults.records == [], [record.getMessage() for record in faults.records]

    read = as_read(exchange.text)
    # A batch is any JSON array the endpoint reads, drawn as a batch or not.
    batch = exchange.text.lstrip().startswith("[")
    requests = read if batch and isinstance(read, list) else [read]
    if response.status_code >= 400:
        # Refused whole: one error, nothing run, nothing written.
        [answer] = answers
        assert "error" in answer, answer
        validate_answer(answer, None if batch else read, exchange.version_header)
        if answer["error"]["code"] != MISSING_CAPABILITY:  # that one comes from a view run
            assert ran == []
            assert row_counts() == before
        return

    version = version_of(requests[0] if requests else None, exchange.version_header)
    if response.streaming:
        *notifications, answer = answers
        for notification in notifications:
            if "id" in notification:  # a question of the handshake era (docs/input.md)
                validate_server_request(version, notification)
            else:
                validator(version, "ServerNotification").validate(notification)
        answers = [answer]
    replies = answers[0] if batch and answers else answers
    if batch:
        assert isinstance(replies, list)
        assert len(replies) <= len(requests)
    for reply in replies:
        # The request an answer names by its id; in a batch, ids may repeat: any of them.
        candidates = [r for r in requests if isinstance(r, dict) and r.get("id") == reply.get("id")]
        validate_for_one(reply, candidates or [None], exchange.version_header)
        event("error" if "error" in reply else "result")

    event(f"views run: {min(len(ran), 3)}")
    # Refused calls ran no view; without a view run, only the call log may grow.
    results = [reply["result"] for reply in replies if "result" in reply]
    refused = [
        result
        for result in results
        if result.get("isError")
        and str(result.get("content", [{}])[0].get("text", "")).startswith("Invalid arguments:")
    ]
    # -32021 is the one error a view run gives: the view asked for input (elicit) that the
    # 2026-07-28 client declared no capability for (docs/input.md).
    asked = [r for r in replies if r.get("error", {}).get("code") == MISSING_CAPABILITY]
    if not results and not asked:
        assert ran == []
    if not ran:
        after = row_counts()
        grown = after.pop(ToolCall._meta.label) - before.pop(ToolCall._meta.label)
        assert after == before
        assert 0 <= grown <= len(results) + len(asked)
    assert len(ran) <= len(results) - len(refused) + len(asked)
