"""Toolsets: a client picks one by the endpoint's URL, and it narrows list, search and call
(docs/tools.md#toolsets). Through the official Python SDK in both eras, and MCPClient."""

from __future__ import annotations

import asyncio

import pytest
from django.urls import path
from mcp import MCPError

from mcp_tools.catalog.sync import sync_tools
from mcp_tools.endpoint.mounts import served_registries
from mcp_tools.models import ExposedTool, Toolset, ToolTask
from mcp_tools.test import MCPClient
from tests.sdk import Wire, connect
from tests.tools.test_registry import urlconf
from tests.wire import validate_exchange

ERAS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def make_toolset(name, tools=(), tags=()):
    sync_tools(*served_registries())
    toolset = Toolset.objects.create(name=name, title=name.title(), tags=list(tags))
    toolset.tools.set(ExposedTool.objects.filter(name__in=tools))
    return toolset


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_toolset_url_narrows_list_search_and_call(live_server, alice, settings, mode, version):
    make_toolset("todos", tools=["todo_list", "todo_create"], tags=["catalogue"])
    url = f"{live_server.url}/mcp/toolsets/todos"
    wire = Wire()

    async def listed():
        async with connect(url, token=alice.token, mode=mode, wire=wire) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            created = await client.call_tool("todo_create", {"title": "Ship"})
            assert created.is_error is False
            with pytest.raises(MCPError) as refused:
                await client.call_tool("todo_stats", {})  # alice could not anyway
            assert str(refused.value) == "Unknown tool: todo_stats"
            with pytest.raises(MCPError) as outside:
                await client.call_tool("echo", {"word": "hi"})  # hers, not the set's
            assert str(outside.value) == "Unknown tool: echo"
            return names

    names = run(listed())
    # The two it names, and the one the "catalogue" tag brings (an endpoint's tags at x/).
    assert set(names) == {"todo_list", "todo_create", "book_retrieve"}
    for message, status, _, body in wire.posts():
        validate_exchange(version, message, status, body)

    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "always"}

    async def searched():
        async with connect(url, token=alice.token, mode=mode) as client:
            found = await client.call_tool("search_tools", {"query": "echo a word", "limit": 20})
            with pytest.raises(MCPError) as outside:
                await client.call_tool("call_tool", {"name": "echo", "arguments": {}})
            assert str(outside.value) == "Unknown tool: echo"
            return {tool["name"] for tool in found.structured_content["tools"]}

    assert "echo" not in run(searched())


@pytest.mark.django_db
def test_an_unknown_toolset_is_a_404_that_says_so(alice):
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, mcp_path="/mcp/toolsets/nope"
    )
    response = client.send(client.message("tools/list"))
    assert response.status_code == 404
    assert response.json()["error"] == {"code": -32600, "message": "Unknown toolset: nope"}


@pytest.mark.django_db
def test_a_mounted_endpoint_names_its_toolset(alice, settings):

    from django.urls import include

    from mcp_tools.views import MCPView

    settings.ROOT_URLCONF = urlconf(
        path("", include("tests.urls")),
        path("mcp-todos", MCPView.as_view(toolset="todos")),
    )
    make_toolset("todos", tools=["todo_list"])
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, mcp_path="/mcp-todos")
    assert [tool["name"] for tool in client.list_tools()] == ["todo_list"]


@pytest.mark.django_db
def test_a_toolset_change_reaches_the_next_request(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        toolset = make_toolset("todos", tools=["todo_list"])
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, mcp_path="/mcp/toolsets/todos"
    )
    assert [tool["name"] for tool in client.list_tools()] == ["todo_list"]
    with django_capture_on_commit_callbacks(execute=True):
        toolset.tools.add(ExposedTool.objects.get(name="todo_create"))
    assert {tool["name"] for tool in client.list_tools()} == {"todo_list", "todo_create"}
    with django_capture_on_commit_callbacks(execute=True):
        toolset.delete()
    assert client.send(client.message("tools/list")).status_code == 404


@pytest.mark.django_db
@pytest.mark.urls("tests.admin_urls")
def test_tags_are_a_list_of_strings(admin_client):
    from django.urls import reverse

    sync_tools(*served_registries())
    add = reverse("admin:mcp_tools_toolset_add")
    refused = admin_client.post(add, {"name": "ops", "tags": '"ops"'})
    assert refused.status_code == 200 and "Tags are a list of strings" in refused.content.decode()
    pk = ExposedTool.objects.get(name="todo_list").pk
    saved = admin_client.post(add, {"name": "ops", "tags": '["ops"]', "tools": [pk]})
    assert saved.status_code == 302
    assert list(Toolset.objects.get(name="ops").tools.values_list("name", flat=True)) == [
        "todo_list"
    ]


@pytest.mark.django_db
def test_a_task_started_at_a_toolset_runs_in_it(alice):
    make_toolset("exports", tools=["todo_export"])
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"},
        mcp_path="/mcp/toolsets/exports",
        client_capabilities={"tasks": {}},
    )
    params = {"name": "todo_export", "arguments": {"seconds": 0}, "task": {"ttl": 60_000}}
    task = client.rpc("tools/call", params)["task"]
    # Django's ImmediateBackend ran it at once, through the endpoint at the toolset's path.
    row = ToolTask.objects.get(id=task["taskId"])
    assert (row.endpoint_path, row.status) == ("/mcp/toolsets/exports", "completed")
    # A worker finds the endpoint again by that path, its toolset with it.
    from mcp_tools.endpoint.mounts import endpoint_at

    assert endpoint_at(row.endpoint_path).toolset == "exports"


@pytest.mark.django_db
@pytest.mark.urls("tests.admin_urls")
def test_a_cleared_tags_box_saves_no_tags(admin_client):
    from django.urls import reverse

    saved = admin_client.post(reverse("admin:mcp_tools_toolset_add"), {"name": "ops", "tags": ""})
    assert saved.status_code == 302 and Toolset.objects.get(name="ops").tags == []


@pytest.mark.django_db
def test_an_endpoints_own_toolset_is_the_only_one_it_serves(alice, settings):

    from django.core.exceptions import ImproperlyConfigured
    from django.urls import include

    from mcp_tools.views import MCPView

    settings.ROOT_URLCONF = urlconf(
        path("", include("tests.urls")),
        path("orders/<slug:toolset>", MCPView.as_view(toolset="todos")),
    )
    make_toolset("todos", tools=["todo_list"])
    make_toolset("big", tools=["todo_list", "todo_create", "echo"])
    headers = {"Authorization": f"Token {alice.token}"}
    assert (
        MCPClient(headers=headers, mcp_path="/orders/todos").list_tools()[0]["name"] == "todo_list"
    )
    other = MCPClient(headers=headers, mcp_path="/orders/big")
    assert other.send(other.message("tools/list")).status_code == 404
    with pytest.raises(ImproperlyConfigured, match="a toolset's name"):
        MCPView.as_view(toolset="Orders team")


@pytest.mark.django_db
def test_tasks_list_names_the_tasks_of_its_own_endpoint(alice):
    make_toolset("exports", tools=["todo_export"])

    def client(path):
        return MCPClient(
            headers={"Authorization": f"Token {alice.token}"},
            mcp_path=path,
            client_capabilities={"tasks": {}},
        )

    params = {"name": "todo_export", "arguments": {"seconds": 0}, "task": {"ttl": 60_000}}
    everywhere, narrowed = client("/mcp"), client("/mcp/toolsets/exports")
    mine = everywhere.rpc("tools/call", params)["task"]["taskId"]
    theirs = narrowed.rpc("tools/call", params)["task"]["taskId"]
    assert [t["taskId"] for t in narrowed.rpc("tasks/list")["tasks"]] == [theirs]
    assert [t["taskId"] for t in everywhere.rpc("tasks/list")["tasks"]] == [mine]


def test_an_in_process_call_prefers_an_endpoint_that_is_no_toolsets(settings):

    from mcp_tools.endpoint.local import mounted_endpoint
    from mcp_tools.views import MCPView

    settings.ROOT_URLCONF = urlconf(
        path("mcp-orders", MCPView.as_view(toolset="orders")),
        path("mcp-all", MCPView.as_view()),
    )
    assert mounted_endpoint(tool="echo")[0] == "/mcp-all"
