"""The official MCP Python SDK drives the demo's tools over real HTTP (live_server)."""

import asyncio
import json

import mcp_types as types
import pytest
from django.test import Client as HttpClient
from mcp import MCPError

from demo_project.todos.models import Todo
from tests.sdk import StreamingWire, Wire, connect
from tests.wire import validate_exchange, validate_stream

pytestmark = pytest.mark.django_db(transaction=True)

DEMO_TOOLS = {
    "todo_list",
    "todo_retrieve",
    "todo_create",
    "todo_update",
    "todo_partial_update",
    "todo_destroy",
}


@pytest.fixture
def mcp_url(live_server, settings):
    return f"{live_server.url}/mcp"


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


async def confirmed(context, params):
    """The user accepts todo_destroy's confirmation (docs/input.md)."""
    return types.ElicitResult(action="accept")


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_sdk_lists_and_drives_todo_crud_as_the_token_user(mcp_url, alice, mode, version):
    wire = StreamingWire()

    async def scenario():
        async with connect(
            mcp_url, token=alice.token, mode=mode, wire=wire, elicitation_callback=confirmed
        ) as client:
            assert client.session.protocol_version == version
            listed = await client.list_tools()
            names = {tool.name for tool in listed.tools}
            assert names >= DEMO_TOOLS

            created = await client.call_tool("todo_create", {"title": "Buy milk"})
            assert created.is_error is False
            todo = created.structured_content
            assert todo["title"] == "Buy milk" and todo["done"] is False
            assert json.loads(created.content[0].text) == todo

            fetched = await client.call_tool("todo_retrieve", {"pk": todo["id"]})
            assert fetched.structured_content == todo

            patched = await client.call_tool(
                "todo_partial_update", {"pk": todo["id"], "done": True}
            )
            assert patched.structured_content["done"] is True

            replaced = await client.call_tool(
                "todo_update", {"pk": todo["id"], "title": "Buy oat milk", "done": False}
            )
            assert replaced.structured_content["title"] == "Buy oat milk"

            listed_todos = await client.call_tool("todo_list")
            # 2026-07-28 carries the array itself; earlier versions wrap it (docs/protocol.md).
            items = listed_todos.structured_content
            items = items if version == "2026-07-28" else items["items"]
            assert [t["id"] for t in items] == [todo["id"]]

            deleted = await client.call_tool("todo_destroy", {"pk": todo["id"]})
            assert (
                deleted.is_error is False and deleted.content[0].text == "Deleted (204 No Content)."
            )

            gone = await client.call_tool("todo_retrieve", {"pk": todo["id"]})
            assert gone.is_error is True
            return todo["id"]

    todo_id = run(scenario())
    assert not Todo.objects.filter(pk=todo_id).exists()
    posts = wire.posts()
    assert any(message.get("method") == "tools/call" for message, *_ in posts)
    for message, status, content_type, body in posts:
        if content_type.startswith("text/event-stream"):  # 2025-11-25 asks on the stream
            validate_stream(version, message, body)
        else:
            validate_exchange(version, message, status, body)


def test_a_second_user_cannot_touch_the_first_users_todos(mcp_url, alice, bob):
    todo = Todo.objects.create(owner=alice, title="Alice's secret")
    http = HttpClient(headers={"Authorization": f"Token {bob.token}"})
    direct = {
        "todo_retrieve": http.get(f"/api/todos/{todo.pk}/"),
        "todo_partial_update": http.patch(
            f"/api/todos/{todo.pk}/",
            data={"title": "Bob was here"},
            content_type="application/json",
        ),
        "todo_destroy": http.delete(f"/api/todos/{todo.pk}/"),
    }
    assert {response.status_code for response in direct.values()} == {404}

    async def scenario():
        # Bob confirms: the view still refuses him, as it does over plain HTTP.
        async with connect(
            mcp_url, token=bob.token, mode="legacy", elicitation_callback=confirmed
        ) as client:
            results = {
                "todo_retrieve": await client.call_tool("todo_retrieve", {"pk": todo.pk}),
                "todo_partial_update": await client.call_tool(
                    "todo_partial_update", {"pk": todo.pk, "title": "Bob was here"}
                ),
                "todo_destroy": await client.call_tool("todo_destroy", {"pk": todo.pk}),
            }
            listed = await client.call_tool("todo_list")
            return results, listed

    results, listed = run(scenario())
    for name, result in results.items():
        assert result.is_error is True
        assert result.structured_content is None
        assert result.content[0].text == direct[name].content.decode()
    assert listed.structured_content == {"items": []}
    todo.refresh_from_db()
    assert todo.title == "Alice's secret"


def test_missing_credentials_are_refused_before_any_tool_runs(mcp_url):
    async def scenario():
        async with connect(mcp_url, mode="legacy") as client:
            await client.list_tools()

    with pytest.raises(ExceptionGroup) as excinfo:
        run(scenario())
    matched, _ = excinfo.value.split(MCPError)
    errors = [error for group in [matched] for error in _leaves(group)]
    assert [(error.code, error.message) for error in errors] == [
        (-32001, "Authentication credentials were not provided.")
    ]


def _leaves(group):
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            yield from _leaves(error)
        else:
            yield error


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_the_sdk_reads_what_hostile_input_fixes_changed(mcp_url, alice, mode, version):
    # Indented JSON over SSE, a path argument past Latin-1, a huge argument echoed clipped, a
    # path argument refused by name: the official client reads each answer, on the wire too.
    wire = Wire()
    progress = []

    async def on_progress(value, total, message):
        progress.append(value)

    async def scenario():
        async with connect(mcp_url, token=alice.token, mode=mode, wire=wire) as client:
            pretty = await client.call_tool("r_pretty_json", {}, progress_callback=on_progress)
            path = await client.call_tool("file_get", {"name": "١é"})
            huge = await client.call_tool("todo_create", {"title": "x" * 300_000})
            refused = await client.call_tool("todo_retrieve", {"pk": 5.0})
            return pretty, path, huge, refused

    pretty, path, huge, refused = run(scenario())
    expected = {"a": [1, {"b": "x\ny"}], "c": "é"}
    assert pretty.is_error is False and json.loads(pretty.content[0].text) == expected
    # The indentation dropped (JSON_TEXT "compact"), every token as the view wrote it.
    assert pretty.content[0].text == json.dumps(expected, separators=(",", ":"))
    assert pretty.structured_content == expected
    assert path.structured_content["path"] == "/t/files/١é/"
    assert huge.is_error is True and len(huge.content[0].text) <= 400
    assert huge.content[0].text.endswith('" is too long')
    assert refused.content[0].text == (
        "Invalid arguments: $.pk: 5.0 is not a value this tool's URL can take"
    )
    for message, status, content_type, body in wire.posts():
        if content_type.startswith("text/event-stream"):
            validate_stream(version, message, body)
        else:
            validate_exchange(version, message, status, body)


@pytest.mark.urls("tests.redirect_urls")
@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_sdk_reads_the_tool_a_redirect_led_to(live_server, alice, mode, version):
    # Wagtail API v2's find view: an absolute redirect to the detail tool of the same API,
    # with the request's host (docs/results.md#redirects).
    from tests.testapp.models import Entry

    entry = Entry.objects.create(label="blog")
    wire = Wire()

    async def scenario():
        url = f"{live_server.url}/rd/mcp"
        async with connect(url, token=alice.token, mode=mode, wire=wire) as client:
            found = await client.call_tool("entry_find_absolute", {"label": "blog"})
            elsewhere = await client.call_tool("elsewhere")
            return found, elsewhere

    found, elsewhere = run(scenario())
    detail = {"id": entry.pk, "label": "blog", "query": "", "user": "alice"}
    assert found.is_error is False
    assert found.structured_content == detail
    assert json.loads(found.content[0].text) == detail
    assert found.meta["django-mcp-tools/location"] == f"/rd/entries/{entry.pk}/?"
    assert elsewhere.is_error is True
    assert elsewhere.content[0].text == (
        "Redirect to https://other.example/rd/entries/1/ was not followed"
    )
    for request, status, _, body in wire.posts():
        validate_exchange(version, request, status, body)
