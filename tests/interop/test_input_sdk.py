"""Input-required results driven by real clients over HTTP (live_server), checked on the wire.

The official MCP Python SDK answers each round through its own callbacks (its input-required
support); the client adapter answers through ``on_input_required``.
"""

from __future__ import annotations

import asyncio
import json

import mcp_types as types
import pytest
from django.test import override_settings

from demo_project.todos.models import Todo
from mcp_tools.client import InputRequiredError, McpToolError, adapt_tools, adapt_tools_sync
from tests.helpers import MODERN
from tests.sdk import (
    Wire,
    answering_everything,
    call_answering,
    connect,
    destroy_confirmed,
    name_then_colour,
)
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mcp_url(live_server):
    return f"{live_server.url}/mcp"


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def validate(wire: Wire) -> list:
    """Check every exchange against the 2026-07-28 schema; return the tools/call results."""
    results = []
    for message, status, _, body in wire.posts():
        validate_exchange(MODERN, message, status, body)
        if message.get("method") == "tools/call":
            results.append(json.loads(body)["result"])
    return results


def test_the_sdk_answers_a_two_round_elicitation(mcp_url, alice):
    wire = Wire()
    done, asked = call_answering(
        mcp_url, "ask_word", {"word": "hey"}, answer=name_then_colour, token=alice.token, wire=wire
    )
    assert done.is_error is False
    assert done.structured_content == {
        "word": "hey",
        "name": "Alice",
        "color": "blue",
        "entries": 3,
    }
    assert [params.message for params in asked] == ["Who says hey?", "Your colour?"]
    rounds = validate(wire)
    assert [r["resultType"] for r in rounds] == ["input_required", "input_required", "complete"]
    # Each retry echoed the state of the round before it, byte for byte.
    calls = [m for m, *_ in wire.posts() if m.get("method") == "tools/call"]
    assert calls[1]["params"]["requestState"] == rounds[0]["requestState"]
    assert calls[2]["params"]["requestState"] == rounds[1]["requestState"]


@pytest.mark.parametrize(("action", "deleted"), [("accept", True), ("decline", False)])
def test_the_sdk_confirms_todo_destroy_before_it_runs(mcp_url, alice, action, deleted):
    todo = Todo.objects.create(owner=alice, title="Water the plants")
    wire = Wire()
    done, asked = destroy_confirmed(mcp_url, todo.pk, action, token=alice.token, wire=wire)
    assert asked == [
        (f"Delete todo {todo.pk}? This cannot be undone.", {"type": "object", "properties": {}})
    ]
    assert Todo.objects.filter(pk=todo.pk).exists() is not deleted
    if deleted:
        assert done.is_error is False and [b.text for b in done.content] == [
            "Deleted (204 No Content)."
        ]
    else:
        assert done.is_error is True and done.content[0].text == "Cancelled by the user"
    assert [r["resultType"] for r in validate(wire)] == ["input_required", "complete"]


def test_the_sdk_answers_sampling_and_roots_in_one_round(mcp_url, alice):
    wire = Wire()

    async def scenario():
        async with connect(
            mcp_url, token=alice.token, wire=wire, **answering_everything("Good day!")
        ) as client:
            return await client.call_tool("test_input_required_result_multiple_inputs")

    done = run(scenario())
    assert done.content[0].text == "Good day! Ann (1 roots)"
    first, last = validate(wire)
    assert set(first["inputRequests"]) == {"user_name", "greeting", "client_roots"}
    assert last["resultType"] == "complete"


def test_a_client_without_elicitation_is_refused_todo_destroy_unless_unaskable_runs(mcp_url, alice):
    todo = Todo.objects.create(owner=alice, title="Old")

    async def scenario():
        async with connect(mcp_url, token=alice.token) as client:
            assert client.session.protocol_version == MODERN
            return await client.call_tool("todo_destroy", {"pk": todo.pk})

    refused = run(scenario())
    assert refused.is_error is True
    assert refused.content[0].text == (
        "This tool needs the user's confirmation, which this client cannot ask for"
    )
    assert Todo.objects.filter(pk=todo.pk).exists()
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "CONFIRM_UNASKABLE": "run"}):
        assert run(scenario()).is_error is False
    assert not Todo.objects.filter(pk=todo.pk).exists()


def test_the_adapter_answers_each_round_with_on_input_required(mcp_url, alice):
    todo = Todo.objects.create(owner=alice, title="Recycle")
    rounds = []

    def answer(requests):
        rounds.append(requests)
        return {key: {"action": "accept"} for key in requests}

    headers = {"Authorization": f"Token {alice.token}"}
    with adapt_tools_sync(mcp_url, headers, on_input_required=answer) as tools:
        destroy = next(tool for tool in tools if tool.name == "todo_destroy")
        assert destroy.call({"pk": todo.pk}) == "Deleted (204 No Content)."
    assert not Todo.objects.filter(pk=todo.pk).exists()
    [requests] = rounds
    assert requests == {
        "django-mcp-tools/confirm": {
            "method": "elicitation/create",
            "params": {
                "message": f"Delete todo {todo.pk}? This cannot be undone.",
                "requestedSchema": {"type": "object", "properties": {}},
            },
        }
    }


def test_the_adapter_raises_when_the_input_is_not_given(mcp_url, alice):
    todo = Todo.objects.create(owner=alice, title="Keep")
    headers = {"Authorization": f"Token {alice.token}"}
    with adapt_tools_sync(mcp_url, headers, on_input_required=lambda requests: {}) as tools:
        destroy = next(tool for tool in tools if tool.name == "todo_destroy")
        with pytest.raises(InputRequiredError, match="left these requests unanswered") as raised:
            destroy.call({"pk": todo.pk})
    assert list(raised.value.requests) == ["django-mcp-tools/confirm"]
    assert isinstance(raised.value, McpToolError)

    async def declined(context, params):
        return types.ElicitResult(action="decline")

    async def over_a_session():
        # A ClientSession does not drive rounds itself: without a handler it is an error.
        async with connect(mcp_url, token=alice.token, elicitation_callback=declined) as client:
            tools = {tool.name: tool for tool in await adapt_tools(client.session)}
            with pytest.raises(InputRequiredError, match="pass on_input_required"):
                await tools["todo_destroy"].call({"pk": todo.pk})
            # An mcp.Client answers through its own callbacks: here, the user declines.
            tools = {tool.name: tool for tool in await adapt_tools(client)}
            with pytest.raises(McpToolError, match="Cancelled by the user"):
                await tools["todo_destroy"].call({"pk": todo.pk})

    run(over_a_session())
    assert Todo.objects.filter(pk=todo.pk).exists()
