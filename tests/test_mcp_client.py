"""mcp_tools.test.MCPClient, the test helper users put in their own suites."""

import pytest

from mcp_tools.test import MCPError

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_initializes_lists_and_calls(mcp):
    assert mcp.initialize()["protocolVersion"] == "2025-11-25"
    assert "todo_list" in {tool["name"] for tool in mcp.list_tools()}
    assert mcp.call_tool("todo_list")["structuredContent"] == {"items": []}


def test_it_reads_the_result_at_the_end_of_a_streamed_call(mcp):
    # A stream=True tool answers as SSE: notifications first, the result last.
    result = mcp.call_tool("test_tool_with_logging")
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": "Logging complete"}]


def test_a_json_rpc_error_raises_mcp_error_with_its_code(mcp):
    with pytest.raises(MCPError) as excinfo:
        mcp.call_tool("no_such_tool")
    assert (excinfo.value.code, excinfo.value.message, excinfo.value.status) == (
        -32602,
        "Unknown tool: no_such_tool",
        200,
    )
