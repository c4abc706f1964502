"""Discovery mode through MCPClient: the listing, search_tools and call_tool's unwrapping
(docs/tools.md#large-apis). The real clients drive it in test_clients.py."""

import json

import pytest

from mcp_tools.discovery.tools import CALL_TOOL, SEARCH_TOOLS
from mcp_tools.models import ExposedTool, ToolCall
from mcp_tools.test import MCPError


def refused(mcp, name, arguments):
    """Return the JSON-RPC error a tools/call answers."""
    with pytest.raises(MCPError) as caught:
        mcp.call_tool(name, arguments)
    return caught.value.code, caught.value.message


@pytest.fixture
def discovery(settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "always"}


@pytest.mark.django_db
def test_the_listing_is_the_pinned_tools_then_the_two_discovery_tools(
    discovery, mcp, django_capture_on_commit_callbacks
):
    assert [tool["name"] for tool in mcp.list_tools()] == [SEARCH_TOOLS, CALL_TOOL]
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("todo_list", "todo_stats"):
            ExposedTool.objects.update_or_create(name=name, defaults={"pinned": True})
    # todo_stats is for staff: pinned, and still hidden from alice.
    assert [tool["name"] for tool in mcp.list_tools()] == ["todo_list", SEARCH_TOOLS, CALL_TOOL]


@pytest.mark.django_db
def test_a_search_finds_what_the_caller_may_call(discovery, mcp):
    result = mcp.call_tool(SEARCH_TOOLS, {"query": "create a todo", "limit": 3})
    assert result["isError"] is False
    found = result["structuredContent"]["tools"]
    assert found[0]["name"] == "todo_create"
    assert set(found[0]) == {"name", "title", "description", "inputSchema", "annotations"}
    assert found[0]["annotations"]["destructiveHint"] is False
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert len(found) <= 3
    staff_only = mcp.call_tool(SEARCH_TOOLS, {"query": "todo statistics staff"})
    assert "todo_stats" not in [tool["name"] for tool in staff_only["structuredContent"]["tools"]]


@pytest.mark.django_db
def test_call_tool_is_a_call_of_the_named_tool(discovery, mcp, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    created = mcp.call_tool(CALL_TOOL, {"name": "todo_create", "arguments": {"title": "Ship"}})
    assert created["isError"] is False
    assert created["structuredContent"]["title"] == "Ship"
    direct = mcp.call_tool("todo_list")  # listed or not, a visible tool is callable
    assert [todo["title"] for todo in direct["structuredContent"]["items"]] == ["Ship"]
    from mcp_tools.calllog import flush

    flush()
    assert list(ToolCall.objects.values_list("tool_name", flat=True).order_by("pk")) == [
        "todo_create",
        "todo_list",
    ]


@pytest.mark.django_db
def test_call_tool_refuses_what_tools_call_refuses(discovery, mcp):
    hidden = refused(mcp, CALL_TOOL, {"name": "todo_stats", "arguments": {}})
    assert hidden == (-32602, "Unknown tool: todo_stats")
    itself = refused(mcp, CALL_TOOL, {"name": CALL_TOOL, "arguments": {}})
    assert itself == (-32602, "Unknown tool: call_tool")
    wrong = mcp.call_tool(CALL_TOOL, {"name": "todo_create", "arguments": {"title": ["Ship"]}})
    assert wrong["isError"] is True
    assert wrong["content"][0]["text"].startswith("Invalid arguments: $.title")
    unnamed = mcp.call_tool(CALL_TOOL, {"arguments": {}})
    assert unnamed["isError"] is True
    assert unnamed["content"][0]["text"] == 'Invalid arguments: $: "name" is a required property'


@pytest.mark.django_db
def test_never_leaves_the_two_tools_unknown(mcp):
    names = [tool["name"] for tool in mcp.list_tools()]
    assert SEARCH_TOOLS not in names and len(names) > 40
    assert refused(mcp, SEARCH_TOOLS, {"query": "todo"}) == (-32602, "Unknown tool: search_tools")


@pytest.mark.django_db
def test_a_task_through_call_tool_is_the_named_tools(discovery, alice):
    from mcp_tools.models import ToolTask
    from mcp_tools.test import MCPClient

    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, client_capabilities={"tasks": {}}
    )
    call = next(tool for tool in client.list_tools() if tool["name"] == CALL_TOOL)
    assert call["execution"] == {"taskSupport": "optional"}  # todo_export runs as a task
    params = {
        "name": CALL_TOOL,
        "arguments": {"name": "todo_export", "arguments": {"seconds": 0}},
        "task": {"ttl": 60_000},
    }
    task = client.rpc("tools/call", params)["task"]
    assert ToolTask.objects.get(id=task["taskId"]).tool_name == "todo_export"


@pytest.mark.django_db
@pytest.mark.urls("tests.admin_urls")
def test_staff_pin_a_tool_in_the_admin_and_unpin_it(
    discovery, admin_client, mcp, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    from mcp_tools.catalog.sync import sync_tools
    from mcp_tools.endpoint.mounts import served_registries

    sync_tools(*served_registries())
    changelist = reverse("admin:mcp_tools_exposedtool_changelist")
    pk = ExposedTool.objects.get(name="todo_list").pk
    for action, said, listed in [
        ("pin_tools", "1 tool pinned.", ["todo_list", SEARCH_TOOLS, CALL_TOOL]),
        ("unpin_tools", "1 tool unpinned.", [SEARCH_TOOLS, CALL_TOOL]),
    ]:
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post(
                changelist, {"action": action, "_selected_action": [pk]}, follow=True
            )
        assert said in response.content.decode()
        assert [tool["name"] for tool in mcp.list_tools()] == listed
    filtered = admin_client.get(changelist, {"pinned__exact": "1"})
    assert filtered.context["cl"].result_count == 0  # the list filters by the switch


@pytest.mark.django_db
def test_a_float_limit_and_a_huge_query_get_clear_answers(discovery, mcp):
    found = mcp.call_tool(SEARCH_TOOLS, {"query": "todo", "limit": 2.0})
    assert found["isError"] is False and len(found["structuredContent"]["tools"]) == 2
    huge = mcp.call_tool(SEARCH_TOOLS, {"query": "x" * 50_000})
    assert huge["isError"] is True and len(huge["content"][0]["text"]) <= 400
    assert huge["content"][0]["text"].startswith("Invalid arguments: $.query: ")


def test_an_endpoints_discovery_mode_is_checked_when_it_is_made():
    from django.core.exceptions import ImproperlyConfigured

    from mcp_tools.views import MCPView

    with pytest.raises(ImproperlyConfigured, match="discovery='off'"):
        MCPView.as_view(discovery="off")
    assert MCPView.as_view(discovery="never").view_initkwargs == {"discovery": "never"}


@pytest.mark.django_db
def test_a_tool_with_argument_headers_is_called_by_its_name_only(discovery, modern_mcp):
    code, message = refused(
        modern_mcp, CALL_TOOL, {"name": "test_argument_headers", "arguments": {"region": "eu"}}
    )
    assert (code, message) == (
        -32602,
        "Tool test_argument_headers takes argument headers (Mcp-Param-*): call it by its name "
        "with tools/call, not through call_tool",
    )


# -- what was searched, in the call log (docs/calllog.md) ---------------------------------


def logged_searches():
    from mcp_tools.calllog import flush

    flush()
    return list(
        ToolCall.objects.filter(tool_name=SEARCH_TOOLS)
        .order_by("pk")
        .values("outcome", "refusal", "arguments", "found", "argument_names")
    )


@pytest.mark.django_db
def test_searches_are_logged_with_what_they_found_where_arguments_are(discovery, mcp, settings):
    from mcp_tools.signals import tool_called

    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG_ARGUMENTS": True}  # CALL_LOG: errors
    heard = []

    def receiver(sender, **kwargs):
        heard.append((sender, kwargs["tool"], kwargs.get("found")))

    tool_called.connect(receiver)
    try:
        mcp.call_tool(SEARCH_TOOLS, {"query": "create a todo", "limit": 2})
        mcp.call_tool(SEARCH_TOOLS, {"query": "xyzzy plugh"})
        mcp.call_tool(SEARCH_TOOLS, {"query": 42})
    finally:
        tool_called.disconnect(receiver)
    from mcp_tools.views import MCPView

    assert heard[0][:2] == (MCPView, SEARCH_TOOLS) and heard[0][2][0] == "todo_create"
    assert heard[1][2] == [] and heard[2][2] is None
    rows = logged_searches()
    assert [(row["outcome"], row["refusal"]) for row in rows] == [
        ("ok", ""),
        ("ok", ""),
        ("refused", "invalid_arguments"),
    ]
    assert rows[0]["arguments"] == {"query": "create a todo", "limit": 2}
    assert rows[0]["found"] == heard[0][2] and len(rows[0]["found"]) == 2
    assert rows[1]["found"] == [] and rows[2]["found"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["errors", "all"])
def test_searches_keep_no_query_without_argument_logging(discovery, mcp, settings, mode):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": mode}
    mcp.call_tool(SEARCH_TOOLS, {"query": "create a todo"})
    rows = logged_searches()
    if mode == "errors":  # an ok call, and no opt-in to see what was searched
        assert rows == []
    else:
        assert rows == [
            {
                "outcome": "ok",
                "refusal": "",
                "arguments": None,
                "found": None,
                "argument_names": ["query"],
            }
        ]


@pytest.mark.django_db
def test_a_call_tool_with_bad_arguments_is_logged_as_refused(discovery, mcp):
    from mcp_tools.calllog import flush

    result = mcp.call_tool(CALL_TOOL, {"arguments": {}})
    assert result["isError"] is True
    flush()
    row = ToolCall.objects.get()
    assert (row.tool_name, row.outcome, row.refusal) == (CALL_TOOL, "refused", "invalid_arguments")
    assert row.error_message == result["content"][0]["text"]


@pytest.mark.django_db
def test_a_search_is_logged_in_the_errors_mode_with_no_receiver_of_ones_own(
    discovery, mcp, settings
):
    from mcp_tools.signals import tool_called

    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "errors", "CALL_LOG_ARGUMENTS": True}
    assert tool_called.others == 0
    mcp.call_tool(SEARCH_TOOLS, {"query": "xyzzy"})
    assert [row["found"] for row in logged_searches()] == [[]]


@pytest.mark.django_db
def test_a_receiver_as_the_docs_write_it_hears_a_search(discovery, mcp):
    from mcp_tools.signals import tool_called

    heard = []

    def count_calls(sender, tool, user, duration_ms, status, outcome, refusal, **kwargs):
        heard.append((tool, outcome, refusal, kwargs["error_message"]))

    tool_called.connect(count_calls)
    try:
        assert mcp.call_tool(SEARCH_TOOLS, {"query": "todo"})["isError"] is False
    finally:
        tool_called.disconnect(count_calls)
    assert heard == [(SEARCH_TOOLS, "ok", None, "")]


@pytest.mark.django_db
def test_a_call_tool_of_call_tool_is_refused_and_logs_no_other_tool(discovery, mcp, settings):
    from mcp_tools.calllog import flush

    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    nested = {"name": CALL_TOOL, "arguments": {"name": "todo_list", "arguments": {}}}
    assert refused(mcp, CALL_TOOL, nested) == (-32602, "Unknown tool: call_tool")
    flush()
    assert not ToolCall.objects.filter(tool_name="todo_list").exists()


@pytest.mark.django_db
def test_the_call_log_keeps_logging_once_its_receiver_is_connected_again(mcp, settings):
    from mcp_tools.calllog import flush, writer
    from mcp_tools.signals import CALL_LOG_UID, tool_called

    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    assert tool_called.disconnect(dispatch_uid=CALL_LOG_UID)
    try:
        mcp.call_tool("todo_list")  # no receiver: nothing logged
    finally:
        tool_called.connect(writer.record, dispatch_uid=CALL_LOG_UID)
    mcp.call_tool("todo_list")
    flush()
    assert ToolCall.objects.count() == 1
