"""The demo's resource: a todo as a Markdown card, its owner's alone."""

from __future__ import annotations

import pytest

from demo_project.todos.models import Todo
from mcp_tools.test import MCPClient, MCPError

pytestmark = [pytest.mark.urls("demo_project.urls"), pytest.mark.django_db]


def test_the_demo_reads_a_todo_as_a_card_for_its_owner_alone(alice, bob):
    todo = Todo.objects.create(owner=alice, title="Ship resources", done=True)
    mine = MCPClient(headers={"Authorization": f"Token {alice.token}"}, mcp_path="/mcp")
    (template,) = mine.rpc("resources/templates/list")["resourceTemplates"]
    assert template["uriTemplate"] == "todo://{pk}"
    (card,) = mine.rpc("resources/read", {"uri": f"todo://{todo.pk}"})["contents"]
    assert card == {
        "uri": f"todo://{todo.pk}",
        "mimeType": "text/markdown",
        "text": "# Ship resources\n\n- [x] done\n",
    }
    theirs = MCPClient(headers={"Authorization": f"Token {bob.token}"}, mcp_path="/mcp")
    with pytest.raises(MCPError) as refused:
        theirs.rpc("resources/read", {"uri": f"todo://{todo.pk}"})
    assert refused.value.message == f"Resource not found: todo://{todo.pk}"
