"""A prompt's resource of this site (``{"resource": {"uri": ...}}`` with no text): read at
``prompts/get`` as the caller, through ``resources/read``'s own path, every answer checked
against its version's schema (docs/prompts.md#embedded-resources)."""

from __future__ import annotations

import base64

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError

from demo_project.todos.models import Todo
from mcp_tools.models import ExposedResource, Prompt, ToolCall
from mcp_tools.resources.sync import sync_resources
from tests.prompts.conftest import VERSIONS
from tests.resources import urls as resource_urls

pytestmark = pytest.mark.django_db

MODERN = "2026-07-28"
DEMO = pytest.mark.urls("demo_project.urls")
SHOP = pytest.mark.urls("tests.resources.urls")


def site_prompt(name, uri, arguments=("pk",)):
    return Prompt.objects.create(
        name=name,
        arguments=[{"name": argument, "required": True} for argument in arguments],
        messages=[
            {"role": "user", "text": "Summarise this:"},
            {"role": "user", "resource": {"uri": uri}},
        ],
    )


def get(client, name, **arguments):
    return client.exchange("prompts/get", {"name": name, "arguments": arguments})


def not_found(version, uri):
    code = -32602 if version == MODERN else -32002
    return {"code": code, "message": f"Resource not found: {uri}", "data": {"uri": uri}}


@DEMO
@pytest.mark.parametrize("version", VERSIONS)
def test_the_caller_gets_what_resources_read_gives_them(client_for, alice, bob, version):
    todo = Todo.objects.create(owner=alice, title="Ship prompts", done=False)
    site_prompt("card", "todo://{pk}")
    mine = client_for(version, mcp_path="/mcp")
    result = get(mine, "card", pk=str(todo.pk))["result"]
    read = mine.exchange("resources/read", {"uri": f"todo://{todo.pk}"})["result"]
    assert read["contents"] == [
        {
            "uri": f"todo://{todo.pk}",
            "mimeType": "text/markdown",
            "text": "# Ship prompts\n\n- [ ] done\n",
        }
    ]
    assert result["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Summarise this:"}},
        {"role": "user", "content": {"type": "resource", "resource": read["contents"][0]}},
    ]
    # bob sees the prompt, but alice's todo is not his: the read's not-found, no contents.
    theirs = client_for(version, user=bob, mcp_path="/mcp")
    answer = get(theirs, "card", pk=str(todo.pk))
    assert "result" not in answer
    assert answer["error"] == not_found(version, f"todo://{todo.pk}")
    assert (
        answer["error"] == theirs.exchange("resources/read", {"uri": f"todo://{todo.pk}"})["error"]
    )


@DEMO
def test_a_get_is_answered_for_its_caller_alone(client_for, alice):
    todo = Todo.objects.create(owner=alice, title="Mine")
    site_prompt("card", "todo://{pk}")
    mine = client_for(MODERN, mcp_path="/mcp")
    response = mine.send(
        mine.message("prompts/get", {"name": "card", "arguments": {"pk": str(todo.pk)}})
    )
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"


@DEMO
def test_each_get_reads_the_site_again(client_for, alice):
    todo = Todo.objects.create(owner=alice, title="Before")
    site_prompt("card", "todo://{pk}")
    mine = client_for(MODERN, mcp_path="/mcp")
    assert (
        "# Before"
        in get(mine, "card", pk=str(todo.pk))["result"]["messages"][1]["content"]["resource"][
            "text"
        ]
    )
    Todo.objects.filter(pk=todo.pk).update(title="After")
    assert (
        "# After"
        in get(mine, "card", pk=str(todo.pk))["result"]["messages"][1]["content"]["resource"][
            "text"
        ]
    )


@DEMO
def test_a_uri_that_names_no_resource_is_not_found(client_for):
    site_prompt("elsewhere", "nothing://{pk}")
    answer = get(client_for(MODERN, mcp_path="/mcp"), "elsewhere", pk="1")
    assert answer["error"] == not_found(MODERN, "nothing://1")


@SHOP
@pytest.mark.parametrize("version", ["2025-11-25", MODERN])
def test_a_hidden_resource_is_not_found_and_its_view_never_runs(client_for, alice, version):
    resource_urls.RAN.clear()
    sync_resources(resource_urls.resources)
    ExposedResource.objects.get(name="order_detail").allowed_groups.add(
        Group.objects.create(name="buyers")
    )
    site_prompt("order", "orders://{pk}")
    site_prompt("staff", "shop://staff", arguments=())
    mcp = client_for(version, mcp_path="/mcp")
    assert get(mcp, "order", pk="1")["error"] == not_found(version, "orders://1")
    assert get(mcp, "staff")["error"] == not_found(version, "shop://staff")  # IsAdminUser
    assert resource_urls.RAN == {}


@SHOP
def test_a_binary_body_is_embedded_as_its_blob(client_for):
    site_prompt("banner", "shop://banner", arguments=())
    result = get(client_for(MODERN, mcp_path="/mcp"), "banner")["result"]
    assert result["messages"][1]["content"] == {
        "type": "resource",
        "resource": {
            "uri": "shop://banner",
            "mimeType": "image/png",
            "blob": base64.b64encode(resource_urls.PNG).decode(),
        },
    }


@SHOP
def test_a_read_that_fails_fails_the_get_as_resources_read_does(client_for):
    site_prompt("moved", "shop://moved", arguments=())
    mcp = client_for(MODERN, mcp_path="/mcp")
    answer = get(mcp, "moved")
    assert answer["error"] == mcp.exchange("resources/read", {"uri": "shop://moved"})["error"]
    assert answer["error"]["message"] == "Redirect to /api/elsewhere/ was not followed"


@SHOP
def test_a_read_from_a_prompt_is_logged_as_a_read_beside_the_get(client_for, alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    site_prompt("order", "orders://{pk}")
    get(client_for(MODERN, mcp_path="/mcp"), "order", pk="2")
    rows = ToolCall.objects.order_by("kind")
    assert [(row.kind, row.tool_name, row.outcome, row.user) for row in rows] == [
        ("prompt", "order", "ok", alice),
        ("resource", "order_detail", "ok", alice),
    ]


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        ({"uri": "todo://{pk}"}, None),
        ({"uri": "todo://1", "mimeType": "text/plain", "text": "written"}, None),
        (
            {"uri": "todo://1", "mimeType": "text/markdown"},
            "Message 1: a resource read from this site has the media type its read gives: "
            "leave out mimeType, or write its text.",
        ),
        ({"uri": "file:///etc/passwd"}, "Message 1: a resource of this site is never a file://"),
        ({"uri": ""}, "Message 1: the resource's uri must be a string."),
        (
            {"uri": "todo://1", "blob": "AAAA"},
            'Message 1: resource is {"uri"} (read from this site) or {"uri", "mimeType", "text"}.',
        ),
        ({"uri": "todo://1", "text": ""}, "Message 1: the resource's text must be a string."),
    ],
)
def test_clean_tells_a_site_read_from_written_contents(resource, message):
    prompt = Prompt(
        name="checked",
        arguments=[{"name": "pk"}],
        messages=[{"role": "user", "resource": resource}],
    )
    if message is None:
        prompt.clean()
        return
    with pytest.raises(ValidationError) as refused:
        prompt.clean()
    assert refused.value.message_dict["messages"][0].startswith(message)


@pytest.mark.urls("tests.resources.completion_urls")
def test_a_row_the_view_refuses_gives_no_contents_and_resources_reads_error(client_for, alice, bob):
    """Another owner's order, refused by the view's object permission as it runs: the
    prompt answers what resources/read answers bob, never the order."""
    from tests.dayone_app.models import Order

    Order.objects.create(owner=alice, item="tea", quantity=3)
    site_prompt("order", "shop://orders/{item}", arguments=("item",))
    alices = get(client_for(MODERN, mcp_path="/mcp"), "order", item="tea")["result"]
    assert alices["messages"][1]["content"]["resource"]["text"] == '{"item":"tea","quantity":3}'
    theirs = client_for(MODERN, user=bob, mcp_path="/mcp")
    answer = get(theirs, "order", item="tea")
    assert "result" not in answer and "quantity" not in str(answer)
    assert (
        answer["error"] == theirs.exchange("resources/read", {"uri": "shop://orders/tea"})["error"]
    )


@SHOP
def test_a_hidden_resource_a_prompt_embeds_is_logged_as_a_refused_read(client_for, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    site_prompt("staff", "shop://staff", arguments=())
    get(client_for(MODERN, mcp_path="/mcp"), "staff")
    read = ToolCall.objects.get(kind="resource")
    assert (read.tool_name, read.outcome, read.refusal) == ("staff_only", "refused", "hidden")
    assert ToolCall.objects.get(kind="prompt").outcome == "error"
