"""Django admin for the call log (``mcp_tools.admin.calls``, docs/calllog.md): the list of
logged calls, its filters, a call's page, the overview, and their times where USE_TZ is off."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from mcp_tools.calllog import summary
from mcp_tools.models import ToolCall
from tests.admin.test_tools import CHANGELIST, change_url

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.admin_urls")]


# -- the call log -------------------------------------------------------------------------


def test_the_call_log_is_read_only_and_links_each_call_to_its_tool(admin_client):
    call = ToolCall.objects.create(
        tool_name="todo_list",
        started_at=timezone.now(),
        duration_ms=3,
        is_error=True,
        error_ref="a" * 32,
    )
    page = admin_client.get("/admin/mcp_tools/toolcall/").content.decode()
    assert change_url("todo_list") in page
    assert admin_client.get("/admin/mcp_tools/toolcall/add/").status_code == 403
    change = reverse("admin:mcp_tools_toolcall_change", args=[call.pk])
    assert admin_client.post(change, {"tool_name": "x"}).status_code == 403
    # Nor deleted, by a superuser either: pruning is mcp_prune's.
    assert 'class="deletelink"' not in admin_client.get(change).content.decode()
    delete = reverse("admin:mcp_tools_toolcall_delete", args=[call.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    bulk = {"action": "delete_selected", "_selected_action": [call.pk], "post": "yes"}
    admin_client.post("/admin/mcp_tools/toolcall/", bulk)
    assert ToolCall.objects.filter(pk=call.pk).exists()
    found = admin_client.get("/admin/mcp_tools/toolcall/", {"q": "a" * 32}).content.decode()
    assert "1 tool call" in found


@pytest.mark.parametrize(
    ("query", "count"),
    [
        ({"outcome": "error"}, 1),
        ({"outcome": "ok"}, 2),
        ({"outcome": "refused"}, 1),
        ({"outcome": "refused:throttled"}, 1),
        ({"outcome": "refused:hidden"}, 0),
        ({"client": "agent/2"}, 2),
        ({"tool_name": "echo"}, 1),
        ({"user__isnull": "True"}, 3),
    ],
)
def test_the_call_log_filters(admin_client, query, count):
    now = timezone.now()
    ToolCall.objects.create(
        tool_name="echo", started_at=now, duration_ms=1, is_error=True, outcome="error"
    )
    ToolCall.objects.create(tool_name="todo_list", started_at=now, duration_ms=1)
    ToolCall.objects.create(
        tool_name="todo_list",
        started_at=now,
        duration_ms=1,
        user=admin_client.user,
        client_name="agent/2",
    )
    ToolCall.objects.create(
        tool_name="limited",
        started_at=now,
        duration_ms=1,
        outcome="refused",
        refusal="throttled",
        http_status=429,
        client_name="agent/2",
    )
    changelist = admin_client.get("/admin/mcp_tools/toolcall/", query)
    assert changelist.context["cl"].result_count == count


def test_the_call_log_says_in_words_how_each_call_ended(admin_client):
    now = timezone.now()
    ToolCall.objects.create(tool_name="echo", started_at=now, duration_ms=1, http_status=200)
    ToolCall.objects.create(
        tool_name="boom",
        started_at=now,
        duration_ms=1,
        outcome="error",
        is_error=True,
        error_message="Internal server error (reference abc)",
    )
    refused = ToolCall.objects.create(
        tool_name="todo_create",
        started_at=now,
        duration_ms=1,
        outcome="refused",
        refusal="invalid_arguments",
        is_error=True,
        error_message="Invalid arguments: $.title: None is not of type 'string'",
    )
    page = admin_client.get("/admin/mcp_tools/toolcall/").content.decode()
    badges = re.findall(r'class="mcp-outcome mcp-outcome-(\w+)"[^>]*>([^<]*)<', page)
    assert sorted(badges) == [
        ("error", "error"),
        ("ok", "ok"),
        ("refused", "refused: invalid arguments"),
    ]
    assert "icon-yes.svg" not in page and "icon-no.svg" not in page  # no boolean icons
    assert "Internal server error (reference abc)" in page
    row = admin_client.get(reverse("admin:mcp_tools_toolcall_change", args=[refused.pk]))
    text = row.content.decode()
    assert "Invalid arguments: $.title: None is not of type" in text
    assert "- (the view never ran)" in text
    assert "Empty when the view never ran" in text  # the help text says which
    boom = ToolCall.objects.get(tool_name="boom")
    raised = admin_client.get(reverse("admin:mcp_tools_toolcall_change", args=[boom.pk]))
    assert "- (the view raised)" in raised.content.decode()


# -- the overview -------------------------------------------------------------------------

OVERVIEW = "/admin/mcp_tools/toolcall/overview/"


def test_the_overview_is_linked_from_the_app_index_and_the_call_log(admin_client):
    assert reverse("admin:mcp_tools_overview") == OVERVIEW
    assert OVERVIEW in admin_client.get("/admin/mcp_tools/").content.decode()
    assert OVERVIEW in admin_client.get("/admin/mcp_tools/toolcall/").content.decode()


def test_the_overview_needs_the_view_permission_on_the_call_log(django_user_model):
    from django.contrib.auth.models import Permission

    clerk = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    client = Client()
    client.force_login(clerk)
    assert client.get(OVERVIEW).status_code == 403
    assert OVERVIEW not in client.get("/admin/mcp_tools/").content.decode()
    clerk.user_permissions.add(Permission.objects.get(codename="view_toolcall"))
    assert client.get(OVERVIEW).status_code == 200
    outsider = django_user_model.objects.create_user("outsider", password="pw")
    client.force_login(outsider)
    assert client.get(OVERVIEW).status_code == 302  # to the admin's login


def logged(tool, ago, duration, outcome="ok", **fields):
    """Log a call as the call log's writer does: the row, and its day's summary."""
    from mcp_tools.calllog import writer as calllog

    row = ToolCall(
        tool_name=tool,
        started_at=timezone.now() - ago,
        duration_ms=duration,
        outcome=outcome,
        is_error=outcome != "ok",
        **fields,
    )
    calllog.insert([row])


def test_the_overview_counts_calls_per_day_and_tool(admin_client):
    for duration in range(1, 11):  # 1..10 ms today
        logged("echo", timedelta(minutes=1), float(duration), client_name="agent/2")
    logged("boom", timedelta(days=1), 40.0, "error", error_message="Internal server error")
    logged("echo", timedelta(days=1), 5.0, "refused", refusal="invalid_arguments")
    logged("echo", timedelta(days=40), 5.0)  # outside the 14-day window
    response = admin_client.get(OVERVIEW)
    assert response.status_code == 200
    context = response.context
    assert context["days"] == 14 and len(context["per_day"]) == 14
    today, yesterday = context["per_day"][-1], context["per_day"][-2]
    assert (today.ok, today.error, today.refused) == (10, 0, 0)
    assert (yesterday.ok, yesterday.error, yesterday.refused) == (0, 1, 1)
    tools = {tool.name: tool for tool in context["tools"]}
    echo = tools["echo"]
    assert (echo.calls, echo.failures) == (11, 1)
    # percentile_cont over 1..10 and 5 is 5.0 at the middle rank, 9.5 at 0.95 * 10: the
    # histogram's are within a bucket of them.
    assert echo.slowest == 10.0
    assert echo.p50 == pytest.approx(5.0, rel=summary.RATIO - 1)
    assert echo.p95 == pytest.approx(9.5, rel=summary.RATIO - 1)
    assert [row["tool"].name for row in context["busiest"]] == ["echo", "boom"]
    assert [row["tool"].name for row in context["slowest"]] == ["boom", "echo"]
    clients = {(row["client_name"], row["calls"]) for row in context["clients"]}
    assert clients == {("agent/2", 10), ("", 2)}
    page = response.content.decode()
    main = page[page.index('id="content-main"') :]
    assert '<svg class="mcp-chart"' in main and 'role="img"' in main and "<script" not in main
    assert "var(--mcp-error)" in page
    errors = [call.tool_name for call in context["latest_errors"]]
    assert errors == ["echo", "boom"] or errors == ["boom", "echo"]
    for call in context["latest_errors"]:
        assert reverse("admin:mcp_tools_toolcall_change", args=[call.pk]) in page


@pytest.mark.parametrize(("days", "shown", "error"), [("7", 7, False), ("x", 14, True)])
def test_the_overview_window_is_chosen_and_bad_values_are_said(admin_client, days, shown, error):
    logged("echo", timedelta(days=10), 1.0)
    response = admin_client.get(OVERVIEW, {"days": days})
    assert response.status_code == 200
    assert response.context["days"] == shown
    assert response.context["totals"].calls == (0 if shown == 7 else 1)
    assert ("The window must be one of" in response.content.decode()) is error


def test_the_overview_of_an_empty_log(admin_client):
    response = admin_client.get(OVERVIEW)
    assert response.status_code == 200
    assert "No calls in the window." in response.content.decode()


# -- USE_TZ = False: the database's times are naive, local ----------------------------------


def test_the_admin_pages_read_naive_times_where_use_tz_is_off(admin_client, settings):
    settings.USE_TZ = False
    call = ToolCall.objects.create(
        tool_name="echo",
        started_at=timezone.now(),
        duration_ms=1.0,
        outcome="error",
        is_error=True,
        error_message="no",
    )
    summary.add([call], "default")  # as the log's writer does
    pages = [
        CHANGELIST,
        change_url("echo"),
        "/admin/mcp_tools/toolcall/",
        reverse("admin:mcp_tools_toolcall_change", args=[call.pk]),
    ]
    for url in pages:
        assert admin_client.get(url).status_code == 200, url
    response = admin_client.get(OVERVIEW)
    assert response.status_code == 200
    assert response.context["totals"].calls == 1
    assert [row.pk for row in response.context["latest_errors"]] == [call.pk]


def searched(query, found, ago=timedelta(minutes=1)):
    logged("search_tools", ago, 2.0, arguments={"query": query, "limit": 5}, found=found)


def test_the_overview_shows_the_queries_that_found_nothing(admin_client, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG_ARGUMENTS": True}
    searched("Devices  without an IP", [])
    searched("devices without an ip", [], ago=timedelta(hours=1))
    searched("create a todo", ["todo_create"])
    searched("a rack's power", [])
    searched("a rack's power", [], ago=timedelta(days=20))  # before the window
    logged("search_tools", timedelta(minutes=1), 1.0, "refused", refusal="invalid_arguments")
    response = admin_client.get(OVERVIEW)
    unfound = [(each.query, each.searches) for each in response.context["unfound"]]
    assert unfound == [("Devices without an IP", 2), ("a rack's power", 1)]
    page = response.content.decode()
    assert "Searches that found nothing" in page and "Devices without an IP" in page
    latest = response.context["unfound"][0]
    assert reverse("admin:mcp_tools_toolcall_change", args=[latest.pk]) in page
    assert "only where CALL_LOG_ARGUMENTS is on" not in page


def test_the_overview_says_searches_need_argument_logging(admin_client, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "auto"}
    page = admin_client.get(OVERVIEW).content.decode()
    assert "Searches that found nothing" in page
    assert "only where CALL_LOG_ARGUMENTS is on" in page
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "never"}
    assert "Searches that found nothing" not in admin_client.get(OVERVIEW).content.decode()


def test_a_logged_search_shows_its_query_and_the_tools_it_found(admin_client):
    from mcp_tools.models import ExposedTool

    searched("create a todo", ["todo_create", "gone_since"])
    searched("xyzzy", [])
    listing = admin_client.get(reverse("admin:mcp_tools_toolcall_changelist")).content.decode()
    assert "“create a todo”: 2 found" in listing and "“xyzzy”: 0 found" in listing
    found, nothing = ToolCall.objects.order_by("pk")
    page = admin_client.get(reverse("admin:mcp_tools_toolcall_change", args=[found.pk]))
    text = page.content.decode()
    assert "tools found" in text.lower()
    row = ExposedTool.objects.get(name="todo_create")
    link = reverse("admin:mcp_tools_exposedtool_change", args=[row.pk])
    assert f'<a href="{link}">todo_create</a><br>gone_since' in text  # linked while it has a row
    empty = admin_client.get(reverse("admin:mcp_tools_toolcall_change", args=[nothing.pk]))
    assert "- (nothing found)" in empty.content.decode()
    logged("echo", timedelta(minutes=1), 1.0)
    plain = ToolCall.objects.get(tool_name="echo")
    page = admin_client.get(reverse("admin:mcp_tools_toolcall_change", args=[plain.pk]))
    assert "tools found" not in page.content.decode().lower()
