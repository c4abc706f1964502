"""Eras and versions (docs/protocol.md, eras): which one a request speaks, and its faults.

Over HTTP, the era rules are in tests/endpoint/test_server.py and each era's methods in
tests/endpoint/test_handlers.py.
"""

from __future__ import annotations

import pytest

from mcp_tools.protocol import versions as protocol
from mcp_tools.protocol.jsonrpc import JSONRPCError, parse_message

MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


def message(method, params=None):
    return parse_message({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})


def modern_headers(method, name=None, version=MODERN):
    headers = {"HTTP_MCP_PROTOCOL_VERSION": version, "HTTP_MCP_METHOD": method}
    if name is not None:
        headers["HTTP_MCP_NAME"] = name
    return headers


@pytest.mark.parametrize(
    ("method", "params", "headers", "era"),
    [
        ("initialize", {"protocolVersion": "2024-11-05"}, {}, ("2024-11-05", False)),
        ("initialize", {"protocolVersion": MODERN}, {}, ("2025-11-25", False)),
        (
            "initialize",
            {"protocolVersion": "2025-06-18"},
            {"HTTP_MCP_PROTOCOL_VERSION": "x"},
            ("2025-06-18", False),
        ),
        ("tools/list", {}, {}, ("2025-03-26", False)),
        ("tools/list", {}, {"HTTP_MCP_PROTOCOL_VERSION": "2025-06-18"}, ("2025-06-18", False)),
        ("server/discover", {"_meta": ENVELOPE}, modern_headers("server/discover"), (MODERN, True)),
        ("tools/list", {"_meta": ENVELOPE}, modern_headers("tools/list"), (MODERN, True)),
    ],
)
def test_the_era_of_a_request(method, params, headers, era):
    detected = protocol.detect(message(method, params), headers)
    assert (detected.version, detected.modern) == era


def _without(key):
    return {k: v for k, v in ENVELOPE.items() if k != key}


@pytest.mark.parametrize(
    ("method", "params", "headers", "code"),
    [
        ("tools/list", {}, {"HTTP_MCP_PROTOCOL_VERSION": "2026-07-28"}, -32600),
        ("tools/list", {}, {"HTTP_MCP_PROTOCOL_VERSION": "garbage"}, -32600),
        ("server/discover", {}, modern_headers("server/discover"), -32602),
        ("server/discover", {"_meta": "x"}, modern_headers("server/discover"), -32602),
        (
            "server/discover",
            {"_meta": _without("io.modelcontextprotocol/clientCapabilities")},
            modern_headers("server/discover"),
            -32602,
        ),
        (
            "server/discover",
            {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": 7}},
            modern_headers("server/discover"),
            -32602,
        ),
        ("server/discover", {"_meta": ENVELOPE}, {}, -32020),
        ("server/discover", {"_meta": ENVELOPE}, modern_headers("tools/list"), -32020),
        ("tools/call", {"name": "a", "_meta": ENVELOPE}, modern_headers("tools/call", "b"), -32020),
        ("tools/call", {"name": "a", "_meta": ENVELOPE}, modern_headers("tools/call"), -32020),
        # The header is compared before the version is judged: a mismatch is -32020 ...
        (
            "server/discover",
            {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "v9"}},
            modern_headers("server/discover"),
            -32020,
        ),
        # ... and a consistent but unsupported version -32022.
        (
            "server/discover",
            {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "v9"}},
            modern_headers("server/discover", version="v9"),
            -32022,
        ),
    ],
)
def test_era_faults_carry_their_codes_and_http_400(method, params, headers, code):
    with pytest.raises(JSONRPCError) as excinfo:
        protocol.detect(message(method, params), headers)
    assert (excinfo.value.code, excinfo.value.status) == (code, 400)


def test_a_base64_mcp_name_header_is_decoded():
    params = {"name": "werkzeug_über", "_meta": ENVELOPE}
    header = "=?base64?d2Vya3pldWdfw7xiZXI=?="
    era = protocol.detect(message("tools/call", params), modern_headers("tools/call", header))
    assert era.modern


def test_the_whitespace_around_a_header_value_is_no_part_of_it():
    # RFC 9110 leaves it out of the value; gunicorn and uvicorn strip it, Django's test client not.
    headers = modern_headers(" tools/call\t", "  a  ", version=f" {MODERN} ")
    assert protocol.detect(message("tools/call", {"name": "a", "_meta": ENVELOPE}), headers).modern


@pytest.mark.parametrize("header", ["=?base64?SGVsbG8?=", "=?base64?SGVsbG9=?=", "hello"])
def test_an_mcp_name_must_be_the_name_in_strict_base64_or_as_it_is(header):
    params = {"name": "Hello", "_meta": ENVELOPE}
    with pytest.raises(JSONRPCError) as excinfo:
        protocol.detect(message("tools/call", params), modern_headers("tools/call", header))
    assert (
        excinfo.value.message
        == "Header mismatch: Mcp-Name header does not match the request's 'name'"
    )


@pytest.mark.parametrize(
    ("era", "level", "sent"),
    [
        (protocol.Era("2025-11-25", log_level="debug"), "debug", True),
        (protocol.Era("2025-11-25", log_level="warning"), "info", False),
        (protocol.Era("2025-11-25", log_level="warning"), "error", True),
        (protocol.Era(MODERN, modern=True), "emergency", False),
        (protocol.Era(MODERN, modern=True, log_level="info"), "info", True),
    ],
)
def test_log_levels_filter_notifications(era, level, sent):
    assert protocol.sends_log(era, level) is sent
