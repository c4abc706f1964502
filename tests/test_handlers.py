"""JSON-RPC handlers: what tools/list caches, and when the cache follows a change."""

import pytest

from mcp_tools.test import MCPClient
from mcp_tools.tools import Tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def mcp(alice):
    return MCPClient(headers={"Authorization": f"Token {alice.token}"})


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


def test_each_protocol_version_has_its_own_page(alice):
    old = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, protocol_version="2025-03-26"
    )
    new = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    old_tool = next(t for t in old.list_tools() if t["name"] == "todo_list")
    new_tool = next(t for t in new.list_tools() if t["name"] == "todo_list")
    assert "title" not in old_tool and old_tool["annotations"]["title"] == "List todos"
    assert new_tool["title"] == "List todos"
