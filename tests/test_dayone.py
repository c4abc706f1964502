"""Day-one DRF code (tests/dayone_app) makes good tools, through the official MCP client.

Each pattern is written as DRF's own documentation writes it, not shaped for mcp_tools.
"""

import asyncio

import pytest

from tests.sdk import Wire, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def listed_and_called(url, token, calls, *, mode="legacy"):
    """List the tools and make ``calls`` [(name, arguments)]; check every exchange on the wire."""
    wire = Wire()

    async def scenario():
        async with connect(url, token=token, mode=mode, wire=wire) as client:
            tools, cursor = {}, None
            while True:  # every page: tools/list is paged (PAGE_SIZE)
                listed = await client.list_tools(cursor=cursor)
                tools.update((tool.name, tool) for tool in listed.tools)
                cursor = listed.next_cursor
                if cursor is None:
                    break
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return tools, results

    tools, results = run(scenario())
    version = "2025-11-25" if mode == "legacy" else "2026-07-28"
    for message, status, _, body in wire.posts():
        validate_exchange(version, message, status, body)
    return tools, results


@pytest.fixture
def url(live_server):
    return f"{live_server.url}/mcp"


def test_an_apiview_with_serializer_class_lists_the_serializers_fields(url, alice):
    tools, [quoted, refused] = listed_and_called(
        url,
        alice.token,
        [("quote", {"item": "tea", "quantity": 4}), ("quote", {"item": "tea"})],
    )
    schema = tools["quote"].input_schema
    assert sorted(schema["properties"]) == ["item", "quantity"]
    assert schema["required"] == ["item", "quantity"]
    assert schema["properties"]["quantity"] == {"type": "integer", "minimum": 1, "maximum": 1000}
    assert quoted.is_error is False and quoted.structured_content == {"item": "tea", "price": 12}
    # The schema refuses what the view would refuse, before the view runs.
    assert refused.is_error is True
    assert refused.content[0].text == 'Invalid arguments: $: "quantity" is a required property'
