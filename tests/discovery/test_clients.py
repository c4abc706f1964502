"""Discovery mode through the official MCP Python SDK over HTTP, in both eras: the test
project's 193 tools are over DISCOVERY_THRESHOLD, so "auto" lists the two discovery tools
(docs/tools.md#large-apis). Every exchange is checked against the version's schema."""

from __future__ import annotations

import asyncio

import mcp_types as types
import pytest
from mcp import MCPError

from demo_project.todos.models import Todo
from tests.sdk import Wire, call_answering, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)

ERAS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]


@pytest.fixture
def mcp_url(live_server, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "auto"}
    return f"{live_server.url}/mcp"


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def validated(wire: Wire, version: str) -> None:
    for message, status, _, body in wire.posts():
        validate_exchange(version, message, status, body)


async def found(client, query: str) -> list[str]:
    result = await client.call_tool("search_tools", {"query": query})
    assert result.is_error is False
    return [tool["name"] for tool in result.structured_content["tools"]]


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_client_lists_searches_and_calls_what_it_found(mcp_url, alice, mode, version):
    wire = Wire()

    async def scenario():
        async with connect(mcp_url, token=alice.token, mode=mode, wire=wire) as client:
            listed = (await client.list_tools()).tools
            assert [tool.name for tool in listed] == ["search_tools", "call_tool"]
            call = listed[1]
            assert call.annotations.destructive_hint is True
            names = await found(client, "create a new todo")
            assert names[0] == "todo_create"
            created = await client.call_tool(
                "call_tool", {"name": "todo_create", "arguments": {"title": "Ship it"}}
            )
            assert created.is_error is False
            assert created.structured_content["title"] == "Ship it"
            direct = await client.call_tool("todo_list", {})  # found, and callable by name
            todos = direct.structured_content  # wrapped under "items" before 2026-07-28
            todos = todos["items"] if version < "2026-07-28" else todos
            assert [todo["title"] for todo in todos] == ["Ship it"]

    run(scenario())
    validated(wire, version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_hidden_tool_is_neither_found_nor_callable(mcp_url, alice, mode, version):
    wire = Wire()

    async def scenario():
        async with connect(mcp_url, token=alice.token, mode=mode, wire=wire) as client:
            assert "todo_stats" not in await found(client, "todo statistics for staff")
            for name, arguments in [
                ("call_tool", {"name": "todo_stats", "arguments": {}}),
                ("todo_stats", {}),
            ]:
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(name, arguments)
                assert str(refused.value) == "Unknown tool: todo_stats"

    run(scenario())
    validated(wire, version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_confirmation_works_through_call_tool(mcp_url, alice, mode, version):
    todo = Todo.objects.create(owner=alice, title="Water the plants")
    wire = Wire() if mode == "auto" else None  # the handshake era asks on an SSE stream
    done, asked = call_answering(
        mcp_url,
        "call_tool",
        {"name": "todo_destroy", "arguments": {"pk": todo.pk}},
        answer=lambda params: types.ElicitResult(action="accept"),
        token=alice.token,
        mode=mode,
        wire=wire,
    )
    assert [params.message for params in asked] == [
        f"Delete todo {todo.pk}? This cannot be undone."
    ]
    assert done.is_error is False
    assert not Todo.objects.filter(pk=todo.pk).exists()
    if wire is not None:
        validated(wire, version)


def test_the_typescript_sdk_searches_and_calls_through_call_tool(mcp_url, alice, tmp_path):
    from tests.interop.test_results_clients import typescript_calls

    calls = [
        ("search_tools", {"query": "create a new todo", "limit": 3}),
        ("call_tool", {"name": "todo_create", "arguments": {"title": "Ship it"}}),
        ("todo_list", {}),
        ("call_tool", {"name": "todo_stats", "arguments": {}}),
    ]
    report = typescript_calls(mcp_url, alice.token, calls, tmp_path)
    assert list(report["tools"]) == ["search_tools", "call_tool"]
    search, create, listed, hidden = report["results"]
    # The client checked the search's structured content against its output schema.
    assert search["result"]["structuredContent"]["tools"][0]["name"] == "todo_create"
    assert create["result"]["structuredContent"]["title"] == "Ship it"
    assert [t["title"] for t in listed["result"]["structuredContent"]["items"]] == ["Ship it"]
    assert "Unknown tool: todo_stats" in hidden["error"]
