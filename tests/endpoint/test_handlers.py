"""The JSON-RPC method handlers (``mcp_tools.endpoint.handlers``), each era's (docs/protocol.md).

initialize, ping, logging/setLevel, server/discover, tools/list (its pages, its cache and
its cache hints) and the params of tools/call.
"""

import pytest

from mcp_tools.test import MCPClient, MCPError
from mcp_tools.tools.tool import Tool
from tests.helpers import MODERN, error_of, result_of

pytestmark = pytest.mark.django_db

SERVER_INFO = {"name": "mcp-tools-tests", "version": "0.1.0", "title": "Test server"}


# -- initialize and ping ---------------------------------------------------------------------


def initialize(mcp, params):
    # As real clients do, no MCP-Protocol-Version before a version is negotiated.
    return mcp.send(mcp.message("initialize", params), headers={"MCP-Protocol-Version": None})


@pytest.mark.parametrize(
    ("requested", "answered"),
    [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
        (None, "2025-11-25"),
    ],
)
def test_initialize_echoes_a_supported_handshake_version(mcp, requested, answered):
    response = initialize(mcp, {"protocolVersion": requested, "capabilities": {}})
    result = result_of(response)
    assert result["protocolVersion"] == answered
    assert result["serverInfo"] == SERVER_INFO
    expected = {"tools": {"listChanged": False}, "logging": {}}
    # The default catalog serves prompts; completions is declared since 2025-03-26.
    expected["prompts"] = {"listChanged": False}
    if answered != "2024-11-05":
        expected["completions"] = {}
    if answered == "2025-11-25":  # the test project's todo_export runs as a task
        expected["tasks"] = {"cancel": {}, "list": {}, "requests": {"tools": {"call": {}}}}
    assert result["capabilities"] == expected
    assert "Mcp-Session-Id" not in response


def test_initialize_sends_instructions_from_settings(mcp, settings):
    settings.MCP_TOOLS = {"INSTRUCTIONS": "Be brief."}
    result = result_of(initialize(mcp, {"capabilities": {}}))
    assert result["instructions"] == "Be brief."
    assert result["serverInfo"] == {"name": "django-mcp-tools", "version": "0.1.0"}


def test_ping_answers_an_empty_result(mcp):
    response = mcp.send({**mcp.message("ping"), "id": "a"})
    assert response.json() == {"jsonrpc": "2.0", "id": "a", "result": {}}


def test_set_level_answers_an_empty_result_and_keeps_no_state(mcp):
    assert mcp.rpc("logging/setLevel", {"level": "error"}) == {}
    with pytest.raises(MCPError) as excinfo:
        mcp.rpc("logging/setLevel", {"level": "loud"})
    assert excinfo.value.code == -32602


# -- server/discover -------------------------------------------------------------------------


def test_discover_describes_the_server_statelessly(modern_mcp):
    response = modern_mcp.send(modern_mcp.message("server/discover"))
    assert response.status_code == 200 and "Mcp-Session-Id" not in response
    assert result_of(response) == {
        "supportedVersions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN],
        "capabilities": {
            "tools": {"listChanged": False},
            "logging": {},
            "prompts": {"listChanged": False},
            "completions": {},
            # The test project's todo_export runs as a task.
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
        "cacheScope": "public",
        "ttlMs": 60000,
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
    }


# -- tools/list ------------------------------------------------------------------------------


def test_tools_list_pages_with_opaque_cursors(mcp, settings):
    settings.MCP_TOOLS = {"PAGE_SIZE": 2}
    names, cursor, pages = [], None, 0
    while True:
        result = mcp.rpc("tools/list", {"cursor": cursor} if cursor else {})
        assert len(result["tools"]) <= 2
        names += [tool["name"] for tool in result["tools"]]
        pages += 1
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    settings.MCP_TOOLS = {"PAGE_SIZE": None}
    everything = mcp.rpc("tools/list", {})
    assert names == [tool["name"] for tool in everything["tools"]]
    assert pages == (len(names) + 1) // 2 and "nextCursor" not in everything


def test_a_page_asks_only_its_own_tools_when_each_must_be_asked(alice, settings, monkeypatch):
    """The project's own permission classes are asked tool by tool: each page asks the
    tools up to it, not the whole catalog (a 1,193-tool Nautobot listing asked every tool
    on each of its 12 pages)."""
    from mcp_tools.catalog.visibility import Visibility

    asked = []
    permitted = Visibility.permitted

    def counting(self, tool):
        asked.append(tool.name)
        return permitted(self, tool)

    monkeypatch.setattr(Visibility, "permitted", counting)
    settings.MCP_TOOLS = {"PAGE_SIZE": 10}
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    names, cursor, pages = [], None, 0
    while True:
        result = client.rpc("tools/list", {"cursor": cursor} if cursor else {})
        names += [tool["name"] for tool in result["tools"]]
        pages += 1
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert pages > 10 and len(names) == len(set(names))
    # Each tool asked once, the first of each next page twice (it ended the page before).
    assert max(asked.count(name) for name in set(asked)) <= 2
    assert len(asked) <= len(set(asked)) + pages
    settings.MCP_TOOLS = {"PAGE_SIZE": None}
    assert names == [tool["name"] for tool in client.rpc("tools/list", {})["tools"]]


def test_a_bad_cursor_is_invalid_params(mcp):
    response = mcp.send(mcp.message("tools/list", {"cursor": "not-ours"}))
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32602


def test_modern_tools_list_carries_cache_hints_private_to_the_caller(modern_mcp, mcp):
    result = modern_mcp.rpc("tools/list")
    assert result["cacheScope"] == "private" and result["ttlMs"] == 60000
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == SERVER_INFO
    legacy = mcp.rpc("tools/list", {})
    assert set(legacy) <= {"tools", "nextCursor"}


def test_tools_list_bytes_are_built_once(mcp, monkeypatch):
    first = mcp.list_tools()
    built = []
    original = Tool.definition

    def counting(self):
        built.append(self.name)
        return original(self)

    monkeypatch.setattr(Tool, "definition", counting)
    assert mcp.list_tools() == first
    assert built == []


def test_the_tools_list_cache_follows_a_settings_change(mcp, settings):
    def output_schemas():
        return {tool["name"]: "outputSchema" in tool for tool in mcp.list_tools()}

    assert output_schemas()["todo_retrieve"] is False
    settings.MCP_TOOLS = {"INCLUDE_OUTPUT_SCHEMA": True}
    assert output_schemas()["todo_retrieve"] is True


def test_each_protocol_version_has_its_own_page(alice, mcp):
    old = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, protocol_version="2025-03-26"
    )
    old_tool = next(t for t in old.list_tools() if t["name"] == "todo_list")
    new_tool = next(t for t in mcp.list_tools() if t["name"] == "todo_list")
    assert "title" not in old_tool and old_tool["annotations"]["title"] == "List todos"
    assert new_tool["title"] == "List todos"


# -- tools/call params -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"name": "todo_list", "arguments": []}, "Invalid params: arguments must be an object"),
        ({"name": "todo_list", "arguments": "x"}, "Invalid params: arguments must be an object"),
        ({"name": "todo_list", "arguments": 3}, "Invalid params: arguments must be an object"),
        ({"name": "no_such_tool"}, "Unknown tool: no_such_tool"),
        ({"name": 5}, "Invalid params: name must be a string"),
        ({}, "Invalid params: name must be a string"),
    ],
)
def test_bad_tool_calls_get_invalid_params(mcp, params, message):
    response = mcp.send(mcp.message("tools/call", params))
    assert response.status_code == 200
    assert error_of(response) == {"code": -32602, "message": message}


@pytest.mark.parametrize("arguments", [None, {}])
def test_null_or_absent_arguments_mean_an_empty_object(mcp, arguments):
    params = {"name": "todo_list"}
    if arguments is not None:
        params["arguments"] = arguments
    result = result_of(mcp.send(mcp.message("tools/call", params)))
    assert result["isError"] is False
