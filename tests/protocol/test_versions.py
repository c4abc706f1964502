"""Eras, versions and the methods of each era (DESIGN §6.1–§6.3), unit and over HTTP."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from mcp_tools.protocol import versions as protocol
from mcp_tools.protocol.cursors import decode_cursor, encode_cursor
from mcp_tools.protocol.jsonrpc import JSONRPCError, parse_message

pytestmark = pytest.mark.django_db

MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}
SERVER_INFO = {"name": "mcp-tools-tests", "version": "0.1.0", "title": "Test server"}


@pytest.fixture
def client(alice):
    return Client(
        headers={
            "Authorization": f"Token {alice.token}",
            "Accept": "application/json, text/event-stream",
        }
    )


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


@pytest.mark.parametrize("cursor", [5, "", "!!", "b2Zmc2V0OjA=", "b2Zmc2V0Ojk5", "eA==", "x" * 100])
def test_a_cursor_the_server_did_not_mint_is_invalid_params(cursor):
    with pytest.raises(JSONRPCError) as excinfo:
        decode_cursor(cursor, total=10)
    assert excinfo.value.code == -32602


def test_cursors_round_trip():
    assert decode_cursor(encode_cursor(7), total=10) == 7


# Over HTTP ------------------------------------------------------------------------------


def post(client, body, **headers):
    return client.post(
        "/mcp", data=json.dumps(body), content_type="application/json", headers=headers
    )


def rpc(method, params=None, id=1):
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}


def modern(client, method, params=None, name=None, id=1):
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name:
        headers["Mcp-Name"] = name
    return post(client, rpc(method, {**(params or {}), "_meta": ENVELOPE}, id=id), **headers)


def test_discover_describes_the_server_statelessly(client):
    response = modern(client, "server/discover")
    assert response.status_code == 200 and "Mcp-Session-Id" not in response
    result = json.loads(response.content)["result"]
    assert result == {
        "supportedVersions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN],
        "capabilities": {"tools": {"listChanged": False}, "logging": {}},
        "cacheScope": "public",
        "ttlMs": 60000,
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
    }


def test_modern_tools_list_carries_cache_hints_private_to_the_caller(client):
    result = json.loads(modern(client, "tools/list").content)["result"]
    assert result["cacheScope"] == "private" and result["ttlMs"] == 60000
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == SERVER_INFO
    legacy = json.loads(
        post(client, rpc("tools/list"), **{"MCP-Protocol-Version": "2025-11-25"}).content
    )
    assert set(legacy["result"]) <= {"tools", "nextCursor"}


def test_modern_tools_call_is_complete_and_names_the_server(client):
    response = modern(client, "tools/call", {"name": "todo_list"}, name="todo_list")
    result = json.loads(response.content)["result"]
    assert result["resultType"] == "complete" and result["isError"] is False
    assert result["structuredContent"] == []  # the array itself: nothing wraps it in 2026
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == SERVER_INFO


@pytest.mark.parametrize(
    "method", ["initialize", "ping", "logging/setLevel", "resources/list", "x/y"]
)
def test_methods_the_modern_era_lacks_are_404_method_not_found(client, method):
    response = modern(client, method, id="k")
    assert response.status_code == 404
    payload = json.loads(response.content)
    assert payload["id"] == "k" and payload["error"]["code"] == -32601


def test_an_unsupported_modern_version_lists_the_supported_ones(client):
    meta = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    headers = {"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "server/discover"}
    response = post(client, rpc("server/discover", {"_meta": meta}, id=9), **headers)
    assert response.status_code == 400
    error = json.loads(response.content)["error"]
    assert error["code"] == -32022
    assert error["data"] == {
        "supported": list(protocol.SUPPORTED_VERSIONS),
        "requested": "2099-01-01",
    }


def test_set_level_answers_an_empty_result_and_keeps_no_state(client):
    response = post(client, rpc("logging/setLevel", {"level": "error"}))
    assert json.loads(response.content)["result"] == {}
    bad = post(client, rpc("logging/setLevel", {"level": "loud"}))
    assert json.loads(bad.content)["error"]["code"] == -32602


def test_tools_list_pages_with_opaque_cursors(client, settings):
    settings.MCP_TOOLS = {"PAGE_SIZE": 2}
    names, cursor, pages = [], None, 0
    while True:
        params = {"cursor": cursor} if cursor else {}
        result = json.loads(post(client, rpc("tools/list", params)).content)["result"]
        assert len(result["tools"]) <= 2
        names += [tool["name"] for tool in result["tools"]]
        pages += 1
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    settings.MCP_TOOLS = {"PAGE_SIZE": None}
    everything = json.loads(post(client, rpc("tools/list")).content)["result"]
    assert names == [tool["name"] for tool in everything["tools"]]
    assert pages == (len(names) + 1) // 2 and "nextCursor" not in everything


def test_a_bad_cursor_is_invalid_params(client):
    response = post(client, rpc("tools/list", {"cursor": "not-ours"}))
    assert response.status_code == 200
    assert json.loads(response.content)["error"]["code"] == -32602


def test_a_2025_03_26_batch_answers_each_request_in_one_array(client):
    batch = [
        rpc("ping", id=1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        rpc("tools/call", {"name": "no_such_tool"}, id=2),
        rpc("initialize", {"protocolVersion": "2025-03-26"}, id=3),
        {"jsonrpc": "2.0", "id": 4},
    ]
    response = post(client, batch, **{"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 200
    answers = {answer["id"]: answer for answer in json.loads(response.content)}
    assert answers[1]["result"] == {}
    assert answers[2]["error"]["code"] == -32602
    assert answers[3]["error"]["code"] == -32600
    assert answers[4]["error"]["code"] == -32600
    assert set(answers) == {1, 2, 3, 4}


def test_a_batch_of_notifications_only_is_accepted_with_202(client):
    response = post(client, [{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    assert response.status_code == 202 and response.content == b""


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_batches_are_refused_outside_2025_03_26(client, version):
    response = post(client, [rpc("ping")], **{"MCP-Protocol-Version": version})
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == -32600
