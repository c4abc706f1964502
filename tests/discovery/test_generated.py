"""Discovery mode over a generated catalog of 400 tools, through the official Python SDK in
both eras: what a caller may not call is never found nor callable (docs/tools.md#large-apis)."""

from __future__ import annotations

import asyncio

import pytest
from mcp import MCPError

from tests.discovery.generated_urls import DOINGS, STAFF_EVERY, THINGS
from tests.sdk import Wire, connect
from tests.wire import validate_exchange

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.urls("tests.discovery.generated_urls"),
]

ERAS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]
STAFF_ONLY = {
    f"{thing}_{doing}"
    for index, (thing, doing) in enumerate((t, d) for t in THINGS for d in DOINGS)
    if index % STAFF_EVERY == 0
}


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=90))


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_caller_finds_and_calls_only_what_it_may(live_server, alice, mode, version):
    wire = Wire()
    url = f"{live_server.url}/mcp"

    async def scenario():
        async with connect(url, token=alice.token, mode=mode, wire=wire) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            assert listed == ["search_tools", "call_tool"]
            found = await client.call_tool(
                "search_tools", {"query": "export the vessel records", "limit": 3}
            )
            names = [tool["name"] for tool in found.structured_content["tools"]]
            assert names[0] == "vessel_export"
            called = await client.call_tool("call_tool", {"name": "vessel_export", "arguments": {}})
            assert called.structured_content == {"tool": "vessel_export"}
            # invoice_list is for staff: never found, whatever the words, nor callable.
            hidden = await client.call_tool(
                "search_tools", {"query": "list the invoice records", "limit": 20}
            )
            found_names = {tool["name"] for tool in hidden.structured_content["tools"]}
            assert "invoice_list" in STAFF_ONLY and not found_names & STAFF_ONLY
            for name, arguments in [
                ("call_tool", {"name": "invoice_list", "arguments": {}}),
                ("invoice_list", {}),
            ]:
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(name, arguments)
                assert str(refused.value) == "Unknown tool: invoice_list"

    run(scenario())
    for message, status, _, body in wire.posts():
        validate_exchange(version, message, status, body)


def test_staff_find_the_staff_tools(live_server, admin_user):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=admin_user).key

    async def scenario():
        async with connect(f"{live_server.url}/mcp", token=token) as client:
            found = await client.call_tool(
                "search_tools", {"query": "list the invoice records", "limit": 1}
            )
            return [tool["name"] for tool in found.structured_content["tools"]]

    assert run(scenario()) == ["invoice_list"]
