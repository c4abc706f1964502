"""Property-based fuzzing of the whole endpoint through Django's test client.

hypothesis draws what a hostile or broken client sends: JSON-RPC messages of every method in
both eras (2024-11-05 to 2025-11-25, and 2026-07-28), notifications, single and in batches,
with wrong types, missing fields, huge and deep values, odd unicode (lone surrogates, NUL,
right-to-left marks, combining marks), duplicate keys, NaN literals, huge numbers, long
strings and many arguments, under hostile headers, and bodies that are no JSON at all; tool
calls of the real tools with arguments drawn from their own input schemas; and the retries
of a 2026-07-28 call answered input-required: the signed ``requestState`` and answers to
what was asked, as a client sends them, or tampered, replayed, forged or wrong. Every
request must get:

- never a 5xx, never a traceback, never a fault of the endpoint itself in its log;
- 202 with no body for notifications and responses, else JSON-RPC answers (an array for a
  batch, an SSE stream for a streamed call) that validate against the official schema of
  the version the request speaks, each with the request's id or null;
- nothing written to the database by a refused request (an HTTP error, or JSON-RPC error
  answers only), and no view run for a tool call refused before it ran.

The budget is ``MCP_FUZZ_EXAMPLES`` examples (2,000 in ``make test``: about a minute and a
half here), within ``MCP_FUZZ_SECONDS`` of wall clock if set. ``make fuzz-long`` is the long
campaign (100,000, docs/reliability.md). The run's figures (examples, answers by status, 5xx,
faults logged, time) are printed at its end and written to ``MCP_FUZZ_FIGURES``.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import logging
import os
import re
import socket
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
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

from mcp_tools import get_tool_call
from mcp_tools.inputs.asks import CONFIRM_KEY, confirmation
from mcp_tools.models import ToolCall, ToolCallDay, ToolCallLatency
from mcp_tools.pipeline import invocation
from mcp_tools.pipeline.arguments import declared_types
from mcp_tools.protocol import versions
from mcp_tools.protocol.jsonrpc import INTERNAL_ERROR, MISSING_CAPABILITY
from mcp_tools.tools.registry import registry
from tests.helpers import MODERN, unrolled
from tests.wire import RESULT_DEFINITIONS, _defs, sse_messages, validate_server_request, validator

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("MCP_FUZZ_EXAMPLES", "2000"))
#: A wall-clock bound in seconds (none when 0): past it, the run's other examples are skipped.
SECONDS = float(os.environ.get("MCP_FUZZ_SECONDS", "0"))
#: Where the run's figures are written, as JSON (they are printed at the end of the run too).
FIGURES_PATH = os.environ.get(
    "MCP_FUZZ_FIGURES", os.path.join(tempfile.gettempdir(), "mcp-tools-fuzz-figures.json")
)
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


#: Tools whose views ask for input (``elicit``, ``request_input``), beside the confirmed ones.
ASKING_TOOLS = {"ask_word", "ask_confirmed", "ask_then_act", "test_missing_capability"}


def asks(tool: Any) -> bool:
    """Return whether a 2026-07-28 call of ``tool`` can end input-required (docs/input.md)."""
    return (
        tool.name in ASKING_TOOLS
        or tool.name.startswith("test_input_required_result_")
        or confirmation(tool) is not None
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
    # A call in four to a tool that asks for input, so that its retries are drawn too.
    asking = [tool for tool in tools if asks(tool)]
    tool = draw(st.one_of(*[st.sampled_from(tools)] * 3, st.sampled_from(asking)))
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
    if hostile and draw(st.integers(0, 9)) == 0:  # a retry that no round asked for
        params["inputResponses"] = draw(unsolicited_responses)
    if hostile and draw(st.integers(0, 9)) == 0:
        params["requestState"] = draw(forged_states)
    return params


# -- Input-required rounds (2026-07-28, docs/input.md) --------------------------------------

#: Client capabilities of the 2026-07-28 envelope: each way of declaring what an input
#: request needs, none, and unknown ones (the first is the one hypothesis draws most).
CAPABILITIES: list[dict[str, Any]] = [
    {"elicitation": {}},
    {},
    {"x": 1},
    {"elicitation": {"form": {}}},
    {"elicitation": {"url": {}}},
    {"elicitation": {}, "sampling": {}, "roots": {}},
    {"sampling": {"tools": {}}, "roots": {"listChanged": True}},
]
#: The keys the test project's views ask under (``elicit``, ``confirm``).
INPUT_KEYS = ["name", "color", CONFIRM_KEY, "summary", "roots"]

elicit_results = st.one_of(
    st.fixed_dictionaries({"action": st.sampled_from(["accept", "decline", "cancel"])}),
    st.fixed_dictionaries(
        {
            "action": st.just("accept"),
            "content": st.dictionaries(
                st.sampled_from(["name", "color", "size"]) | odd_text,
                st.one_of(odd_text, st.sampled_from(["red", "blue"]), scalars),
                max_size=3,
            ),
        }
    ),
)
sampling_results = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["assistant", "user", "system"]),
        "model": odd_text,
        "content": st.one_of(
            st.fixed_dictionaries({"type": st.just("text"), "text": odd_text}),
            st.lists(
                st.fixed_dictionaries({"type": st.just("text"), "text": odd_text}), max_size=2
            ),
        ),
    }
)
roots_results = st.fixed_dictionaries(
    {"roots": st.lists(st.fixed_dictionaries({"uri": odd_text}), max_size=3)}
)
#: What a client may put in ``inputResponses``: results of each kind, and anything at all.
input_results = st.one_of(
    elicit_results, elicit_results, sampling_results, roots_results, json_values(3)
)
unsolicited_responses = st.one_of(
    st.dictionaries(st.sampled_from(INPUT_KEYS) | odd_text, input_results, max_size=4),
    st.just({CONFIRM_KEY: {"action": "accept"}}),
    json_values(3),
)
forged_states = st.one_of(
    odd_text,
    json_values(2),
    # Django signing's shape: value, then timestamp and signature after colons.
    st.builds(lambda *parts: ":".join(parts), odd_text, odd_text, odd_text),
    st.sampled_from(["", ".eJyrVkrLz1eyUkpKLFKqBQAoBgUW:1u:abc", "x" * 70_000]),
)

# What hypothesis draws may never depend on the server's answers (a state's length, which
# keys a round asks): replayed, the same choices would meet other answers, and hypothesis
# would refuse the test as flaky. So a retry is drawn before the call, as a plan, and
# applied to whatever the server asked.


@dataclass(frozen=True)
class Answer:
    """How the client answers one input request, whatever it turns out to ask."""

    #: ``accept`` (content filled in from the form), ``decline``, ``cancel``, or ``other``
    #: (``other`` sent as it is, whatever was asked).
    action: str
    text: str
    number: int
    flag: bool
    other: Any = None


#: The text of an answer: a few draws each, as most examples never use their plans.
ANSWER_TEXTS = ["Ada", "", "red", "é", "x" * 300, "\u0000", "\u202e", "\ud800", "../", "1"]


@st.composite
def answer_plans(draw: st.DrawFn) -> Answer:
    action = draw(st.sampled_from(["accept"] * 4 + ["decline", "cancel", "other"]))
    other = draw(input_results) if action == "other" else None
    number = draw(st.sampled_from([1, 0, -1, 12, 13, 10**6]))
    return Answer(action, draw(st.sampled_from(ANSWER_TEXTS)), number, number % 2 == 0, other)


@dataclass(frozen=True)
class Retry:
    """How the client retries a call answered input-required: mostly as asked (the state
    it was given, an answer to each request), else with one thing wrong."""

    kind: str
    #: The answers to the round's requests, in the order of their keys.
    answers: tuple[Answer, ...]
    fault: str = ""
    position: int = 0
    piece: Any = None
    request_id: int = 0
    ascii_only: bool = True


@st.composite
def retry_plans(draw: st.DrawFn) -> Retry:
    kind = draw(st.sampled_from(["as asked"] * 6 + ["state", "answers", "call", "capabilities"]))
    answers = tuple(draw(st.lists(answer_plans(), min_size=3, max_size=3)))
    fault, position, piece = "", 0, None
    if kind == "state":
        fault = draw(st.sampled_from(["cut", "tail", "edit", "forged", "missing", "replayed"]))
        position = draw(st.integers(0, 2**16))
        if fault == "tail":
            piece = draw(odd_text)
        elif fault == "edit":
            piece = draw(st.sampled_from("A0_-:.~"))
        elif fault == "forged":
            piece = draw(forged_states)
    elif kind == "answers":
        fault = draw(st.sampled_from(["drop", "unsolicited", "anything"]))
        position = draw(st.integers(0, 2**16))
        if fault == "unsolicited":
            piece = draw(st.dictionaries(st.sampled_from(INPUT_KEYS), input_results, min_size=1))
        elif fault == "anything":
            piece = draw(json_values(3))
    elif kind == "call":  # the state belongs to another tool, or to other arguments
        fault = draw(st.sampled_from(["tool", "arguments"]))
        if fault == "tool":
            piece = draw(st.sampled_from([tool.name for tool in fuzzable_tools()]))
        else:
            piece = draw(st.dictionaries(odd_text, json_values(2), max_size=3))
    elif kind == "capabilities":
        piece = draw(st.sampled_from(CAPABILITIES))
    return Retry(
        kind, answers, fault, position, piece, draw(st.integers(0, 2**31)), draw(st.booleans())
    )


def answer(request: Any, plan: Answer) -> Any:
    """Return the client's answer to one of ``inputRequests``, as ``plan`` says."""
    if plan.action == "other":
        return plan.other
    method = request.get("method") if isinstance(request, dict) else None
    params = request.get("params") if isinstance(request, dict) else None
    if plan.action != "accept":
        return {"action": plan.action}
    if method == "sampling/createMessage":
        content = {"type": "text", "text": plan.text}
        return {"role": "assistant", "model": "fuzz", "content": content}
    if method == "roots/list":
        return {"roots": [{"uri": "file:///" + plan.text}]}
    schema = params.get("requestedSchema") if isinstance(params, dict) else None
    return {"action": "accept", "content": filled(schema, plan)}


def filled(schema: Any, plan: Answer) -> dict[str, Any]:
    """Fill in a flat form (an elicitation's ``requestedSchema``) from ``plan``: valid as
    far as its types, enums and bounds go, so that most answers are taken."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    content: dict[str, Any] = {}
    for name, field_schema in (properties or {}).items():
        field_schema = field_schema if isinstance(field_schema, dict) else {}
        kind = field_schema.get("type")
        choices = field_schema.get("enum") or [
            option.get("const") for option in field_schema.get("oneOf", []) if "const" in option
        ]
        if choices:
            content[name] = choices[plan.number % len(choices)]
        elif kind == "boolean":
            content[name] = plan.flag
        elif kind in ("integer", "number"):
            low = field_schema.get("minimum", -(10**6))
            high = field_schema.get("maximum", 10**6)
            content[name] = min(max(plan.number, low), high)
        elif kind == "array":
            items = field_schema.get("items") or {}
            options = items.get("enum") or [o.get("const") for o in items.get("anyOf", [])]
            content[name] = options[:1]
        else:
            text = plan.text.ljust(field_schema.get("minLength", 0), "x")
            content[name] = text[: field_schema.get("maxLength", len(text))]
    return content


def retry(previous: Exchange, result: dict[str, Any], plan: Retry) -> Exchange:
    """Return the client's next round of a call that ``result`` answered input-required."""
    message = json.loads(previous.text)
    params = dict(message["params"])
    requests = result.get("inputRequests") or {}
    keys = sorted(requests)
    responses: Any = {
        key: answer(requests[key], plan.answers[index % len(plan.answers)])
        for index, key in enumerate(keys)
    }
    if plan.fault == "drop" and keys:
        del responses[keys[plan.position % len(keys)]]
    elif plan.fault == "unsolicited":
        responses.update(plan.piece)
    elif plan.fault == "anything":
        responses = plan.piece
    params["inputResponses"] = responses
    state = result.get("requestState")
    params["requestState"] = state
    if isinstance(state, str) and state:
        at = plan.position % len(state)
        if plan.fault == "cut":
            params["requestState"] = state[:at]
        elif plan.fault == "tail":
            params["requestState"] = state + plan.piece
        elif plan.fault == "edit":
            params["requestState"] = state[:at] + plan.piece + state[at + 1 :]
    if plan.fault == "forged":
        params["requestState"] = plan.piece
    elif plan.fault == "missing":
        del params["requestState"]
    elif plan.fault == "replayed" and "requestState" in message["params"]:
        params["requestState"] = message["params"]["requestState"]  # the round before's
    elif plan.fault == "tool":
        params["name"] = plan.piece
    elif plan.fault == "arguments":
        params["arguments"] = plan.piece
    if plan.kind == "capabilities":
        meta = dict(params.get("_meta") or {})
        meta[versions.CLIENT_CAPABILITIES_META_KEY] = plan.piece
        params["_meta"] = meta
    value = {**message, "id": plan.request_id, "params": params}
    text = dump(value, ascii_only=plan.ascii_only)
    headers = dict(previous.headers)
    if isinstance(params.get("name"), str):
        headers["Mcp-Name"] = mcp_name(params["name"])
    return Exchange(text.encode("utf-8", "surrogatepass"), headers, text, previous.version_header)


#: Notifications a client sends (no id: answered 202), with their params.
NOTIFICATIONS: dict[str, dict[str, Any]] = {
    "notifications/initialized": {},
    "notifications/cancelled": {"requestId": 1, "reason": "user"},
    "notifications/progress": {"progressToken": "t", "progress": 0.5, "total": 1},
    "notifications/roots/list_changed": {},
}


@st.composite
def params_for(draw: st.DrawFn, method: str, hostile: bool) -> Any:
    if method == "tools/call":
        return draw(tool_call_params(hostile))
    if method in NOTIFICATIONS:
        return dict(NOTIFICATIONS[method])
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
REQUEST_FAULTS = [
    "encoding",
    "truncated",
    "garbage",
    "accept",
    "version",
    "origin",
    "anonymous",
    "headers",
]
#: Bodies that are no JSON-RPC at all (``garbage``), besides random bytes.
GARBAGE = [b"", b"null", b"[", b"[[]]", b"{}{}", b"\x00" * 16, b"\xff\xfe{", b'{"jsonrpc":"2.0"}x']


@st.composite
def messages(draw: st.DrawFn, modern: bool, hostile: bool) -> Any:
    """One message, well formed for its era; a hostile one has odd values, and faults."""
    # The handshake's own methods are unknown to 2026-07-28: asked there, they are refused.
    method: Any = draw(
        st.sampled_from(
            [*WELL_FORMED_METHODS, "server/discover"] if modern else WELL_FORMED_METHODS
        )
    )
    notification = draw(st.integers(0, 11)) == 0
    if notification:
        method = draw(st.sampled_from(sorted(NOTIFICATIONS)))
    params = draw(params_for(method, hostile))
    # None at all half the time: the odd values of a hostile call are enough on their own.
    faults = draw(st.lists(st.sampled_from(MESSAGE_FAULTS), max_size=2)) if hostile else []
    if "anything" in faults:
        return draw(json_values())
    if modern and "meta" not in faults and isinstance(params, dict):
        meta = params.setdefault("_meta", {})
        meta[versions.PROTOCOL_VERSION_META_KEY] = MODERN
        meta[versions.CLIENT_CAPABILITIES_META_KEY] = draw(st.sampled_from(CAPABILITIES))
        if draw(st.integers(0, 3)) == 0:
            meta[versions.LOG_LEVEL_META_KEY] = draw(st.sampled_from(versions.LOG_LEVELS))
        if draw(st.integers(0, 3)) == 0:
            meta[versions.CLIENT_INFO_META_KEY] = {"name": draw(odd_text), "version": "1"}
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
    if notification or "notification" in faults:
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
    # Only 2025-03-26 has batches: a 2026-07-28 message in one is refused, item by item.
    batch = (not modern or hostile) and draw(st.integers(0, 5)) == 0
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
    if "garbage" in faults:
        body = draw(st.sampled_from(GARBAGE) | st.binary(max_size=64))
        text = body.decode("utf-8", "replace")
    headers = {"Accept": draw(st.sampled_from(ACCEPTS if "accept" in faults else ACCEPTS[:3]))}
    if batch:
        version_header: str | None = draw(st.sampled_from(["2025-03-26", None]))
    elif modern:
        version_header = MODERN
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
    definition = RESULT_DEFINITIONS[method]
    if input_required(answer):
        assert version == MODERN and method == "tools/call", (version, method)
        definition = "InputRequiredResult"
    validator(version, definition).validate(answer["result"])


def input_required(answer: Any) -> bool:
    """Return whether ``answer`` is a 2026-07-28 input-required result (docs/input.md)."""
    result = answer.get("result") if isinstance(answer, dict) else None
    return isinstance(result, dict) and result.get("resultType") == "input_required"


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
    """Collect the error records of the ``mcp_tools`` logger: the endpoint's own faults (a
    -32603: each one is a bug the fuzz found) apart from the views' failures (the test
    project's tools that fail on purpose, such as ``boom``)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("The MCP endpoint failed"):
            self.records.append(record)
            FIGURES.faults += 1
        else:
            FIGURES.failures[REFERENCE.sub("", message)] += 1


REFERENCE = re.compile(r" \(error reference [0-9a-f]+\)")


@dataclass
class Figures:
    """What a run of the fuzz did, printed at the end of the run and written as JSON."""

    examples: int = 0
    requests: int = 0
    retries: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    #: 5xx answers, and -32603 answers (a batch's items too): both mean a fault.
    server_errors: int = 0
    internal_errors: int = 0
    #: Records ``The MCP endpoint failed`` of the ``mcp_tools`` logger.
    faults: int = 0
    #: The other error records (a view's failure, its 5xx), by message.
    failures: Counter[str] = field(default_factory=Counter)
    started: float = 0.0
    seconds: float = 0.0
    #: Set when an example failed: the wall-clock bound never cuts its shrinking short.
    failed: bool = False
    bound_reached: bool = False

    def start(self) -> None:
        if not self.started:
            self.started = time.monotonic()

    def check_bound(self) -> None:
        """Skip the rest of the run once past the wall-clock bound (never while shrinking)."""
        self.seconds = time.monotonic() - self.started
        if SECONDS and self.seconds > SECONDS and not self.failed:
            self.bound_reached = True
            pytest.skip(f"the wall-clock bound of {SECONDS:g} s: {self.examples} examples run")

    def answered(self, status: int) -> None:
        self.requests += 1
        self.statuses[status] += 1
        self.server_errors += status >= 500

    def carried(self, answers: list[Any]) -> None:
        """Count the -32603 answers among ``answers`` (each a message, or a batch's array)."""
        for answer in answers:
            for reply in answer if isinstance(answer, list) else [answer]:
                error = reply.get("error") if isinstance(reply, dict) else None
                self.internal_errors += (
                    isinstance(error, dict) and error.get("code") == INTERNAL_ERROR
                )

    def write(self) -> None:
        """Write the figures so far to ``MCP_FUZZ_FIGURES``: at the end of the run, and
        every 1,000 examples, for whoever follows a long one."""
        self.seconds = time.monotonic() - self.started
        with open(FIGURES_PATH, "w") as file:
            json.dump(self.as_json(), file, indent=2)

    def as_json(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "max_examples": EXAMPLES,
            "wall_clock_bound_seconds": SECONDS or None,
            "bound_reached": self.bound_reached,
            "failed": self.failed,
            "requests": self.requests,
            "input_required_retries": self.retries,
            "statuses": {str(code): count for code, count in sorted(self.statuses.items())},
            "5xx": self.server_errors,
            "internal_error_answers": self.internal_errors,
            "endpoint_faults_logged": self.faults,
            "view_failures_logged": dict(self.failures.most_common()),
            "seconds": round(self.seconds, 1),
        }

    def lines(self) -> list[str]:
        statuses = ", ".join(f"{code}: {count:,}" for code, count in sorted(self.statuses.items()))
        failures = ", ".join(
            f"{message!r}: {count:,}" for message, count in self.failures.most_common()
        )
        stopped = (
            "the wall-clock bound"
            if self.bound_reached
            else "a failing example, then its shrinking"
            if self.failed
            else "max_examples"
        )
        return [
            f"examples: {self.examples:,} of {EXAMPLES:,} (stopped by {stopped}), "
            f"{self.seconds:,.0f} s",
            f"requests: {self.requests:,} ({self.retries:,} input-required retries); {statuses}",
            f"5xx answers: {self.server_errors}, -32603 answers: {self.internal_errors}, "
            f"endpoint faults logged: {self.faults}",
            f"views' failures logged: {failures or 'none'}",
        ]


FIGURES = Figures()


class FiguresReport:
    """Print the figures at the end of the run: a pytest plugin the fixture registers."""

    def __init__(self, path: str) -> None:
        self.path = path

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.write_sep("-", "fuzz figures")
        for line in FIGURES.lines():
            terminalreporter.write_line(line)
        terminalreporter.write_line(f"written to {self.path}")


def loopback_only(connect: Any) -> Any:
    """Wrap ``socket.connect``: refuse any address but the loopback interface's (a Unix
    socket's path is local too)."""

    def guarded(sock: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and not is_loopback(address[0]):
            raise AssertionError(f"the fuzz may only reach 127.0.0.1, not {address!r}")
        return connect(sock, address)

    return guarded


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


#: The call log's daily summary, kept with its rows (docs/admin.md): it grows as the log does.
LOG_SUMMARY = {ToolCallDay._meta.label, ToolCallLatency._meta.label}


def row_counts() -> dict[str, int]:
    """Return the rows of every model, less the call log's summary (it grows with the log)."""
    return {
        model._meta.label: model.objects.count()
        for model in apps.get_models()
        if model._meta.label not in LOG_SUMMARY
    }


# -- The property ----------------------------------------------------------------------------


@pytest.fixture
def fuzz_state(alice, monkeypatch, settings, request):
    """alice's token, a record of every view the endpoint runs, and a fault collector; the
    run's figures, written to ``MCP_FUZZ_FIGURES`` when it ends."""
    # A handshake-era question nobody answers (a confirmed tool's, on its stream) ends at once.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "INPUT_TIMEOUT": 0.05}
    ran: list[str] = []
    call_view = invocation.call_view

    def recording(request):
        ran.append(get_tool_call(request)["name"])
        return call_view(request)

    monkeypatch.setattr(invocation, "call_view", recording)
    # Nothing the fuzz sends leaves this machine: the test client calls the endpoint in
    # process, and a socket opened on the way may only reach the loopback interface.
    monkeypatch.setattr(socket.socket, "connect", loopback_only(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", loopback_only(socket.socket.connect_ex))
    faults = Faults()
    logger = logging.getLogger("mcp_tools")
    logger.addHandler(faults)
    plugins = request.config.pluginmanager
    if not plugins.has_plugin("mcp-fuzz-figures"):
        plugins.register(FiguresReport(FIGURES_PATH), "mcp-fuzz-figures")
    FIGURES.start()
    try:
        yield alice.token, ran, faults
    finally:
        logger.removeHandler(faults)
        FIGURES.write()


#: Retries of a call answered input-required, at most, after its first request.
MAX_RETRIES = 3


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(exchange=exchanges(), plans=st.lists(retry_plans(), max_size=MAX_RETRIES))
def test_the_endpoint_answers_anything_with_a_valid_answer_and_no_fault(
    fuzz_state, exchange, plans
):
    token, ran, faults = fuzz_state
    FIGURES.check_bound()
    try:
        asked = check_exchange(exchange, token, ran, faults)
        # Retried as the plans say, while the call is answered input-required.
        for plan in plans:
            if asked is None:
                break
            exchange = retry(exchange, asked, plan)
            FIGURES.retries += 1
            asked = check_exchange(exchange, token, ran, faults)
    except Exception:
        FIGURES.failed = True
        FIGURES.examples += 1
        raise
    FIGURES.examples += 1
    if FIGURES.examples % 1000 == 0:
        FIGURES.write()


def check_exchange(exchange: Exchange, token: str, ran: list[str], faults: Faults) -> Any:
    """Send one request and check its answer; return the input-required result of a
    2026-07-28 tool call (a retry can follow), else None."""
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
    FIGURES.answered(response.status_code)
    assert response.status_code < 500, response.content[:500]
    event(f"HTTP {response.status_code}{' SSE' if response.streaming else ''}")
    answers = answers_of(response)
    FIGURES.carried(answers)
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
            # Nothing written but the call log's row of a known tool's refused call (a
            # 2026-07-28 header mismatch, say: docs/calllog.md).
            after = row_counts()
            grown = after.pop(ToolCall._meta.label) - before[ToolCall._meta.label]
            assert after == {k: v for k, v in before.items() if k != ToolCall._meta.label}
            assert 0 <= grown <= (0 if batch else 1)
        return None

    version = version_of(requests[0] if requests else None, exchange.version_header)
    # A handshake-era call not streamed from the start runs its view once more when it asks:
    # the first run ends at the ask, and the call starts again on a stream (docs/input.md).
    restarted = 0
    if response.streaming:
        *notifications, answer = answers
        restarted = int(any("id" in notification for notification in notifications))
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
        event(
            "error" if "error" in reply else "input required" if input_required(reply) else "result"
        )

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
        # A known tool's call refused with a JSON-RPC error is logged too (refused).
        errors = [reply for reply in replies if "error" in reply]
        assert 0 <= grown <= len(results) + len(errors)
    assert len(ran) <= len(results) - len(refused) + len(asked) + restarted
    if not batch and len(replies) == 1 and input_required(replies[0]):
        return replies[0]["result"]
    return None
