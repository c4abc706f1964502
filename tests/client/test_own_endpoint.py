"""mcp_tools.client against this project's own endpoint over real HTTP (live_server)."""

import json

import pytest

from demo_project.todos.models import Todo
from mcp_tools.client import McpToolError, adapt_tools_sync

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_demo_tools_are_plain_callables(live_server, alice):
    Todo.objects.create(owner=alice, title="Water the plants")
    headers = {"Authorization": f"Token {alice.token}"}
    asked = []

    def confirm(requests):  # todo_destroy asks first: on the call's stream, in legacy mode
        asked.extend(request["params"]["message"] for request in requests.values())
        return {key: {"action": "accept"} for key in requests}

    with adapt_tools_sync(
        f"{live_server.url}/mcp", headers=headers, mode="legacy", on_input_required=confirm
    ) as tools:
        by_name = {tool.name: tool for tool in tools}
        assert by_name["todo_list"].description.startswith(
            "List the signed-in user's todos, oldest first. Needs IsAuthenticated. "
        )
        listed = json.loads(by_name["todo_list"].call())
        assert [todo["title"] for todo in listed] == ["Water the plants"]
        created = json.loads(by_name["todo_create"].call({"title": "Call mum"}))
        assert created["title"] == "Call mum"
        assert by_name["todo_destroy"].call({"pk": created["id"]}) == "Deleted (204 No Content)."
        assert asked == [f"Delete todo {created['id']}? This cannot be undone."]
        with pytest.raises(McpToolError) as excinfo:
            by_name["todo_retrieve"].call({"pk": created["id"]})
        assert str(excinfo.value) == '{"detail":"No Todo matches the given query."}'
        assert excinfo.value.public_message == "The tool failed."
        with pytest.raises(TypeError):
            by_name["todo_list"].call([1, 2])
