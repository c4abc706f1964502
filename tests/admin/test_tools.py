"""Django admin for the exposed tools (``mcp_tools.admin.tools``, docs/admin.md): the
catalog, its overrides and Try it. The call log's pages are in tests/admin/test_calls.py."""

import base64
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from mcp_tools.models import ExposedTool, ToolCall

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.admin_urls")]


def change_url(name):
    return reverse(
        "admin:mcp_tools_exposedtool_change", args=[ExposedTool.objects.get(name=name).pk]
    )


def try_url(name):
    return reverse("admin:mcp_tools_exposedtool_try", args=[ExposedTool.objects.get(name=name).pk])


CHANGELIST = "/admin/mcp_tools/exposedtool/"


def form_data(name, **changes):
    row = ExposedTool.objects.get(name=name)
    data = {
        "enabled": "on" if row.enabled else "",
        "title": row.title,
        "description": row.description,
        "annotations": "{}",
        "include_structured_content": "unknown",
        "include_output_schema": "unknown",
        "allowed_groups": [],
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value != ""}


def tool_names(mcp):
    return {tool["name"] for tool in mcp.list_tools()}


# -- the changelist -----------------------------------------------------------------------


def test_the_changelist_shows_every_registered_tool_with_its_route(admin_client):
    ExposedTool.objects.all().delete()  # new in the code since the last migrate
    response = admin_client.get(CHANGELIST, {"q": "todo_retrieve"})
    assert response.status_code == 200
    assert ExposedTool.objects.filter(name="todo_list").exists()  # synced on the way
    page = response.content.decode()
    assert "todo_retrieve" in page and "GET /api/todos/&lt;pk&gt;/" in page


def log_calls(now):
    for minutes, duration, is_error in [(3, 10, False), (2, 30, True), (1, 20, False)]:
        ToolCall.objects.create(
            tool_name="todo_list",
            started_at=now - timedelta(minutes=minutes),
            duration_ms=duration,
            is_error=is_error,
        )
    old = now - timedelta(days=30)
    ToolCall.objects.create(tool_name="todo_list", started_at=old, duration_ms=999)


def test_the_changelist_has_call_figures_over_the_window(admin_client, settings):
    settings.MCP_TOOLS = {"CACHE": "mcp", "CALL_LOG": "all"}
    log_calls(timezone.now())
    response = admin_client.get(CHANGELIST, {"q": "todo_list"})
    page = response.content.decode()
    assert '<td class="field-calls">3</td>' in page  # the old call is outside the window
    assert '<td class="field-errors">1 (33%)</td>' in page
    assert '<td class="field-p50_duration">20.0</td>' in page  # of 10, 20 and 30 ms
    assert "which keeps every call" in page


def test_in_errors_mode_the_changelist_counts_errors_not_rates(admin_client):
    # CALL_LOG = "errors" (the default) logs failures only: a rate or a p50 of them would
    # say "100%" and the failures' durations, whatever the tool does.
    log_calls(timezone.now())
    page = admin_client.get(CHANGELIST, {"q": "todo_list"}).content.decode()
    assert '<td class="field-errors_logged">1</td>' in page
    # The last error's time, not that of a call logged before the mode changed.
    last_error = ToolCall.objects.get(is_error=True).started_at
    shown = date_format(timezone.localtime(last_error), "SHORT_DATETIME_FORMAT")
    assert f'<td class="field-last_error">{shown}</td>' in page
    for column in ('class="field-calls"', 'class="field-errors"', 'class="field-p50_duration"'):
        assert column not in page
    assert "keeps errors only" in page and "errors of the last 7 days" in page


def test_with_the_log_off_the_changelist_shows_no_figures(admin_client, settings):
    settings.MCP_TOOLS = {"CACHE": "mcp", "CALL_LOG": "off"}
    page = admin_client.get(CHANGELIST, {"q": "todo_list"}).content.decode()
    assert "field-errors_logged" not in page and "field-calls" not in page
    assert "The call log is off" in page


def badges_of(client, name):
    page = client.get(CHANGELIST, {"q": name}).content.decode()
    row = re.search(rf"<tr>(?:(?!<tr>).)*?>{name}</a>.*?</tr>", page, re.S).group(0)
    return re.findall(
        r'<span class="mcp-badge mcp-badge-(\w+)" title="([^"]*)">([^<]*)</span>', row
    )


def test_the_changelist_badges_group_restrictions_and_overrides(admin_client):
    from django.contrib.auth.models import Group

    ops, billing = Group.objects.create(name="ops"), Group.objects.create(name="billing")
    echo = ExposedTool.objects.get(name="echo")
    echo.allowed_groups.set([ops, billing])
    ExposedTool.objects.filter(name="todo_list").update(
        title="Every todo", annotations={"openWorldHint": True}, include_output_schema=True
    )
    ExposedTool.objects.create(name="retired_tool", registered=False)
    assert badges_of(admin_client, "echo") == [
        ("groups", "Only for the groups: billing, ops", "groups: billing, ops")
    ]
    assert [label for _kind, _tip, label in badges_of(admin_client, "todo_list")] == [
        "title",
        "annotations",
        "switches",
    ]
    assert badges_of(admin_client, "retired_tool")[0][::2] == ("stale", "not registered")
    assert badges_of(admin_client, "todo_retrieve") == []


@pytest.mark.parametrize(
    ("query", "present", "absent"),
    [
        ({"enabled__exact": "0"}, {"todo_create"}, {"todo_list"}),
        ({"registered__exact": "0"}, {"retired_tool"}, {"todo_list"}),
        ({"errors": "yes"}, {"echo"}, {"todo_list"}),
        ({"tag": "forms"}, {"s_every", "s_node"}, {"todo_list"}),
        ({"q": "retrieve"}, {"todo_retrieve"}, {"todo_list"}),
    ],
)
def test_filters_and_search(admin_client, query, present, absent):
    ExposedTool.objects.filter(name="todo_create").update(enabled=False)
    ExposedTool.objects.create(name="retired_tool", registered=False)
    ToolCall.objects.create(
        tool_name="echo", started_at=timezone.now(), duration_ms=1, is_error=True
    )
    admin_client.get(CHANGELIST)  # sync (it flags retired_tool as unregistered)
    page = admin_client.get(CHANGELIST, query).content.decode()
    names = set(re.findall(r'class="field-name"><a [^>]*>([^<]+)</a>', page))
    assert present <= names and not absent & names


def test_rows_are_not_added_by_hand_and_only_stale_ones_are_deleted(admin_client):
    assert admin_client.get("/admin/mcp_tools/exposedtool/add/").status_code == 403
    live = ExposedTool.objects.get(name="todo_list")
    stale = ExposedTool.objects.create(name="retired_tool", registered=False)
    delete = "admin:mcp_tools_exposedtool_delete"
    assert admin_client.post(reverse(delete, args=[stale.pk]), {"post": "yes"}).status_code == 302
    assert not ExposedTool.objects.filter(name="retired_tool").exists()
    # A registered tool: what the rule is, not Django's "you don't have permission" page,
    # for a superuser too; nothing is deleted.
    for method in (admin_client.get, admin_client.post):
        response = method(reverse(delete, args=[live.pk]), {"post": "yes"}, follow=True)
        assert response.redirect_chain[-1][0] == change_url("todo_list")
        assert (
            "The tool todo_list is still registered by the code: only tools the code no longer "
            "registers can be deleted. Disable it instead."
        ) in response.content.decode()
    assert ExposedTool.objects.filter(name="todo_list").exists()


def test_deleting_a_selection_with_registered_tools_says_which(admin_client):
    stale = ExposedTool.objects.create(name="retired_tool", registered=False)
    live = [ExposedTool.objects.get(name=name).pk for name in ("echo", "todo_list")]
    selected = {"action": "delete_selected", "_selected_action": [stale.pk, *live]}
    response = admin_client.post(CHANGELIST, selected, follow=True)
    assert "The tools echo, todo_list are still registered by the code" in response.content.decode()
    assert ExposedTool.objects.filter(name="retired_tool").exists()  # nothing went
    selected = {"action": "delete_selected", "_selected_action": [stale.pk], "post": "yes"}
    assert admin_client.post(CHANGELIST, selected).status_code == 302
    assert not ExposedTool.objects.filter(name="retired_tool").exists()


@pytest.mark.parametrize("action", ["disable_tools", "enable_tools"])
def test_enable_and_disable_actions_reach_tools_list(
    admin_client, mcp, action, django_capture_on_commit_callbacks
):
    enabled = action == "enable_tools"
    ExposedTool.objects.filter(name="todo_list").update(enabled=not enabled)
    pk = ExposedTool.objects.get(name="todo_list").pk
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            CHANGELIST, {"action": action, "_selected_action": [pk]}, follow=True
        )
    assert ("1 tool enabled." if enabled else "1 tool disabled.") in response.content.decode()
    assert ExposedTool.objects.get(name="todo_list").enabled is enabled
    assert ("todo_list" in tool_names(mcp)) is enabled


def test_new_tools_start_disabled_and_staff_enable_them_by_filter(
    admin_client, mcp, settings, django_capture_on_commit_callbacks
):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "NEW_TOOLS_ENABLED": False}
    ExposedTool.objects.filter(name="todo_list").update(enabled=False)
    with django_capture_on_commit_callbacks(execute=True):
        # New in the code since the last sync: todo_create and todo_destroy.
        ExposedTool.objects.filter(name__in=["todo_create", "todo_destroy"]).delete()
    # Before any sync, a tool without a row is hidden: nothing shows unless staff said so.
    assert not {"todo_create", "todo_destroy"} & tool_names(mcp)
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.get(CHANGELIST)  # syncs
    rows = dict(ExposedTool.objects.values_list("name", "enabled"))
    assert (rows["todo_create"], rows["todo_destroy"]) == (False, False)
    # A row that was there keeps what staff set, either way.
    assert (rows["todo_list"], rows["todo_retrieve"]) == (False, True)
    listed = tool_names(mcp)
    assert "todo_retrieve" in listed and not {"todo_list", "todo_create"} & listed
    # Every disabled todo_ tool at once: the filter, then the action on all it selects.
    query = "?q=todo_&enabled__exact=0"
    page = admin_client.get(CHANGELIST + query).content.decode()
    shown = set(re.findall(r'class="field-name"><a [^>]*>([^<]+)</a>', page))
    assert {"todo_list", "todo_create", "todo_destroy"} <= shown and "todo_retrieve" not in shown
    one = ExposedTool.objects.get(name="todo_create").pk
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            CHANGELIST + query,
            {
                "action": "enable_tools",
                "select_across": "1",
                "index": "0",
                "_selected_action": [one],
            },
            follow=True,
        )
    assert f"{len(shown)} tools enabled." in response.content.decode()
    assert {"todo_list", "todo_create", "todo_destroy"} <= tool_names(mcp)


def test_new_tools_start_enabled_by_default(admin_client):
    ExposedTool.objects.filter(name="todo_create").delete()
    admin_client.get(CHANGELIST)
    assert ExposedTool.objects.get(name="todo_create").enabled is True


# -- the change page ----------------------------------------------------------------------


def test_the_change_page_shows_what_clients_see(admin_client):
    page = admin_client.get(change_url("todo_retrieve")).content.decode()
    assert "The code&#x27;s title" in page
    assert "&quot;readOnlyHint&quot;: true" in page  # the effective annotations, indented
    assert "&quot;pk&quot;" in page  # the input schema
    assert "None advertised" in page  # include_output_schema is off by default
    assert try_url("todo_retrieve") in page and "Try it" in page


def test_the_change_page_says_its_switches_and_groups_in_plain_words(admin_client):
    page = admin_client.get(change_url("todo_retrieve")).content.decode()
    assert "Unknown" not in page and "as the code says" not in page
    assert '<option value="unknown" selected>The code&#x27;s choice</option>' in page
    assert "Whether results carry structuredContent." in page
    # The widget's headings ("Available groups", "Chosen groups") come from its name.
    assert 'data-field-name="groups"' in page and "allowed groups" not in page
    assert "None chosen: everyone the view's permissions admit." in page


def test_a_stale_tool_has_no_try_it(admin_client):
    ExposedTool.objects.create(name="retired_tool", registered=False)
    page = admin_client.get(change_url("retired_tool")).content.decode()
    assert try_url("retired_tool") not in page
    assert "The code no longer registers this tool: it can't be called or tried." in page
    for response in (
        admin_client.get(try_url("retired_tool")),
        admin_client.post(try_url("retired_tool"), {}),
    ):
        page = response.content.decode()
        assert 'id="try-it-stale"' in page and "there is nothing to call" in page
        assert 'id="try-it-form"' not in page and 'name="_call"' not in page
    assert not ToolCall.objects.exists()


def test_overrides_saved_in_admin_win_over_the_code(
    admin_client, mcp, django_capture_on_commit_callbacks
):
    data = form_data(
        "todo_list",
        title="Every todo",
        description="All of the caller's todos.",
        annotations='{"openWorldHint": true}',
        include_output_schema="true",
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(change_url("todo_list"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    tool = next(t for t in mcp.list_tools() if t["name"] == "todo_list")
    assert tool["title"] == "Every todo"
    assert tool["description"] == "All of the caller's todos."
    assert tool["annotations"]["openWorldHint"] is True
    assert tool["annotations"]["title"] == "Every todo"
    assert tool["annotations"]["readOnlyHint"] is True  # the code's, untouched
    assert tool["outputSchema"]["properties"]["items"]["type"] == "array"


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"annotations": "{not json"},
            "annotations",
            "Enter a valid JSON: Expecting property name enclosed in double quotes: line 1",
        ),
        # Read as the endpoint reads a request body: strict, bounded in depth.
        (
            {"annotations": "[" * 5000 + "]" * 5000},
            "annotations",
            "Enter a valid JSON: JSON nested deeper than 64.",
        ),
        (
            {"annotations": '{"openWorldHint": NaN}'},
            "annotations",
            "Enter a valid JSON: NaN is not JSON.",
        ),
        (
            {"annotations": '{"title": "\\ud800"}'},
            "annotations",
            "Enter a valid JSON: a string holds a lone UTF-16 surrogate",
        ),
        (
            {"annotations": '{"title": "a", "title": "b"}'},
            "annotations",
            "Enter a valid JSON: the key &#x27;title&#x27; appears twice in one object.",
        ),
        ({"annotations": "[1]"}, "annotations", "Annotations must be a JSON object."),
        (
            {"annotations": '{"readOnly": true}'},
            "annotations",
            "Unknown annotation &#x27;readOnly&#x27;",
        ),
        (
            {"annotations": '{"destructiveHint": "no"}'},
            "annotations",
            "must be true or false",
        ),
        ({"title": "x" * 201}, "title", "at most 200 characters"),
        ({"title": "two\nlines"}, "title", "one line of printable text"),
        ({"description": "x" * 10_001}, "description", "at most 10000 characters"),
    ],
)
def test_bad_overrides_are_form_errors_and_change_nothing(
    admin_client, mcp, changes, field, message
):
    before = mcp.list_tools()
    response = admin_client.post(change_url("todo_list"), form_data("todo_list", **changes))
    assert response.status_code == 200  # the form again, with its errors
    errors = response.context["adminform"].form.errors
    assert field in errors
    assert message in response.content.decode()
    assert mcp.list_tools() == before


# -- Try it -------------------------------------------------------------------------------


def test_try_it_builds_a_form_from_the_input_schema(admin_client):
    page = admin_client.get(try_url("todo_create")).content.decode()
    assert 'name="argument_title"' in page and 'name="argument_done"' in page
    assert 'name="raw"' in page  # the raw-JSON fallback


def test_try_it_calls_a_json_tool_as_the_signed_in_user(admin_client):
    response = admin_client.post(try_url("echo"), {"argument_word": "hello"})
    page = response.content.decode()
    assert 'id="try-it-result"' in page and "The tool answered an error" not in page
    structured = response.context["structured"]
    assert '"word": "hello"' in structured and '"user": "root"' in structured


def test_try_it_renders_an_image(admin_client):
    response = admin_client.post(try_url("r_png"), {})
    image = re.search(
        r'<img class="mcp-image"[^>]* src="data:image/png;base64,([^"]+)"',
        response.content.decode(),
    )
    assert image and base64.b64decode(image.group(1)).startswith(b"\x89PNG")


def test_try_it_shows_invalid_json_in_the_form(admin_client):
    response = admin_client.post(try_url("echo"), {"raw": "{oops"})
    assert "Enter a valid JSON: Expecting property name" in response.content.decode()
    assert response.context["answer"] is None  # nothing was called


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("[" * 5000 + "]" * 5000, "Enter a valid JSON: JSON nested deeper than 62."),
        ('{"word": NaN}', "Enter a valid JSON: NaN is not JSON."),
        ('{"word": "\\udfff"}', "Enter a valid JSON: a string holds a lone UTF-16 surrogate"),
    ],
)
def test_try_it_reads_json_as_the_endpoint_reads_a_body(admin_client, raw, message):
    response = admin_client.post(try_url("echo"), {"raw": raw})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert response.context["answer"] is None  # nothing was called
    assert not ToolCall.objects.exists()


def test_try_it_shows_argument_errors_as_the_tool_answers_them(admin_client):
    response = admin_client.post(try_url("todo_create"), {"raw": '{"title": null}'})
    page = response.content.decode()
    assert "The tool answered an error" in page
    assert "Invalid arguments: $.title: null is not of type &#x27;string&#x27;" in page


def test_try_it_links_a_masked_error_to_its_logged_call(admin_client):
    response = admin_client.post(try_url("boom"), {})
    reference = response.context["error_ref"]
    assert reference and "Internal server error" in response.content.decode()
    assert f"/admin/mcp_tools/toolcall/?error_ref={reference}" in response.content.decode()
    logged = admin_client.get(f"/admin/mcp_tools/toolcall/?error_ref={reference}")
    assert ToolCall.objects.get(error_ref=reference).tool_name == "boom"
    assert reference in logged.content.decode()


def test_try_it_never_has_more_rights_than_the_user(admin_client, django_user_model):
    # basic_only accepts Basic credentials only: the admin's session is not enough, so the
    # tool is hidden from this user, exactly as the endpoint would hide it.
    response = admin_client.post(try_url("basic_only"), {})
    assert response.context["error"] == {"code": -32602, "message": "Unknown tool: basic_only"}
    # A non-superuser with admin access only to the log of calls can't try any tool.
    clerk = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    client = Client()
    client.force_login(clerk)
    assert client.get(try_url("echo")).status_code == 403


# -- a registry of its own: MCPView.as_view(registry=...) ------------------------------------

partner_registry = pytest.mark.urls("tests.registry_endpoint_urls")


@partner_registry
def test_a_custom_registrys_tools_are_rows_like_the_default_ones(admin_client):
    ExposedTool.objects.filter(name="partner_quote").delete()  # new since the last migrate
    page = admin_client.get(CHANGELIST, {"q": "partner_quote"}).content.decode()
    assert ExposedTool.objects.get(name="partner_quote").registered is True
    assert '<span class="mcp-route">GET /partner/quotes/&lt;pk&gt;/</span>' in page
    assert "A partner&#x27;s quote" in page
    page = admin_client.get(change_url("partner_quote")).content.decode()
    assert "Quote the price of one item to a partner." in page  # the code's description
    assert "&quot;pk&quot;" in page  # its input schema
    assert "&quot;readOnlyHint&quot;: true" in page


@partner_registry
def test_a_restriction_row_of_a_custom_registrys_tool_cant_be_deleted(admin_client):
    # Made before a sync knew of the tool, and flagged as no longer registered by one that
    # read the default registry alone: the registries, not the flag, say it is registered.
    ExposedTool.objects.filter(name="partner_quote").delete()
    row = ExposedTool.objects.create(name="partner_quote", enabled=False, registered=False)
    delete = reverse("admin:mcp_tools_exposedtool_delete", args=[row.pk])
    refused = "The tool partner_quote is still registered by the code"
    assert refused in admin_client.post(delete, {"post": "yes"}, follow=True).content.decode()
    admin_client.get(CHANGELIST)  # the sync, as the list of tools runs it
    assert refused in admin_client.post(delete, {"post": "yes"}, follow=True).content.decode()
    selected = {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"}
    assert refused in admin_client.post(CHANGELIST, selected, follow=True).content.decode()
    assert ExposedTool.objects.filter(name="partner_quote", enabled=False).exists()


@partner_registry
def test_try_it_calls_a_custom_registrys_tool_through_its_endpoint(admin_client):
    ExposedTool.objects.get_or_create(name="partner_quote")
    page = admin_client.get(try_url("partner_quote")).content.decode()
    assert 'name="argument_pk"' in page
    assert "The code no longer registers this tool." not in page
    response = admin_client.post(try_url("partner_quote"), {"argument_pk": "3"})
    assert response.context["error"] is None
    assert response.context["result"]["structuredContent"] == {
        "pk": 3,
        "price": 30,
        "user": "root",
    }


# -- Try it explains, and its widgets -------------------------------------------------------


def seen(response):
    return response.context["seen"]


def test_try_it_says_you_see_the_tool(admin_client):
    response = admin_client.get(try_url("echo"))
    assert seen(response)["visible"] is True
    assert (
        "You see this tool: it is enabled, open to every group, and the view's permission "
        "classes (IsAuthenticated) admit you."
    ) in response.content.decode()


def test_try_it_says_why_a_tool_is_hidden_and_what_would_show_it(
    admin_client, django_capture_on_commit_callbacks
):
    from django.contrib.auth.models import Group

    ops, billing = Group.objects.create(name="ops"), Group.objects.create(name="billing")
    echo = ExposedTool.objects.get(name="echo")
    echo.enabled = False
    with django_capture_on_commit_callbacks(execute=True):
        echo.save()
        echo.allowed_groups.set([ops, billing])
    response = admin_client.get(try_url("echo"))
    reasons = seen(response)["reasons"]
    assert reasons == [
        (
            "It is disabled.",
            'Tick "Enabled" on the tool\'s page, or use the "Enable" action of the list.',
        ),
        (
            "It is only for the groups billing, ops, and you are in none of them.",
            "Add yourself to one of them (your user's page), or remove the groups here.",
        ),
    ]
    assert "This tool is hidden from you" in response.content.decode()
    # As said: the call is refused as an unknown tool, the refusal of tools/call.
    called = admin_client.post(try_url("echo"), {"argument_word": "x"})
    assert called.context["error"] == {"code": -32602, "message": "Unknown tool: echo"}
    echo.enabled = True
    with django_capture_on_commit_callbacks(execute=True):
        echo.save()
    admin_client.user.groups.add(ops)
    assert seen(admin_client.get(try_url("echo")))["visible"] is True


def test_try_it_says_when_the_views_authentication_refuses_the_session(admin_client):
    (why, fix) = seen(admin_client.get(try_url("basic_only")))["reasons"][0]
    assert why == (
        "The view authenticates with BasicAuthentication only, and your admin session is not "
        "one of them: MCP clients that send those credentials see it."
    )
    assert "mcp_call --user" in fix


shop_endpoint = pytest.mark.urls("tests.admin_tryit_urls")


@shop_endpoint
def test_try_it_names_the_permission_class_that_refuses(admin_client):
    from django.contrib.auth.models import Group

    admin_client.get(CHANGELIST)  # the sync: the shop's rows
    assert seen(admin_client.get(try_url("shop_refund")))["reasons"] == [
        (
            "The view's permission class IsBillingTeam does not admit you. \"Only the billing "
            'team may refund."',
            "Give your user what IsBillingTeam asks for.",
        )
    ]
    admin_client.user.groups.add(Group.objects.create(name="billing"))
    response = admin_client.get(try_url("shop_refund"))
    assert seen(response)["visible"] is True
    assert "permission classes (IsAuthenticated, IsBillingTeam) admit you" in (
        response.content.decode()
    )


def widget_of(page, name):
    """Return the HTML of argument ``name``'s widget."""
    match = re.search(
        rf'<select[^>]*name="argument_{name}".*?</select>|<textarea[^>]*name="argument_{name}"'
        rf'.*?</textarea>|<input[^>]*name="argument_{name}"[^>]*>',
        page,
        re.S,
    )
    return match.group(0)


@shop_endpoint
def test_try_it_widgets_follow_the_json_types(admin_client):
    admin_client.get(CHANGELIST)
    page = admin_client.get(try_url("shop_order")).content.decode()
    assert 'type="number"' in widget_of(page, "customer")  # a foreign key: its id
    assert "The customer: a user&#x27;s id." in page
    assert 'type="text"' in widget_of(page, "amount")  # a decimal, typed as its text
    currency = widget_of(page, "currency")
    assert re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', currency) == [
        ("", "Choose one"),
        ("&quot;EUR&quot;", "Euro"),  # the model's labels, as the definition gives them
        ("&quot;USD&quot;", "US dollar"),
    ]
    # A required yes/no has nothing to leave out; an optional one says what leaving it does.
    options = r'<option value="([^"]*)"[^>]*>([^<]*)</option>'
    assert re.findall(options, widget_of(page, "express")) == [
        ("", "Choose one"),
        ("true", "Yes"),
        ("false", "No"),
    ]
    assert re.findall(options, widget_of(page, "gift")) == [
        ("unknown", "Leave out (the view&#x27;s default)"),
        ("true", "Yes"),
        ("false", "No"),
    ]
    assert "<label" in page and "customer (required)" in page
    assert '<label for="id_protocol_version">Client protocol:</label>' in page


@shop_endpoint
def test_try_it_calls_with_what_the_widgets_hold(admin_client):
    admin_client.get(CHANGELIST)
    response = admin_client.post(
        try_url("shop_order"),
        {
            "argument_customer": str(admin_client.user.pk),
            "argument_amount": "12.50",
            "argument_currency": '"EUR"',
            "argument_express": "false",
            "argument_gift": "unknown",  # left out
            "argument_note": "",
        },
    )
    assert response.context["error"] is None, response.context["error"]
    assert response.context["result"]["structuredContent"] == {
        "customer": admin_client.user.pk,
        "amount": "12.50",
        "currency": "EUR",
        "express": False,
    }


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "2026-07-28"])
def test_try_it_calls_in_every_protocol_version_the_endpoint_serves(admin_client, version):
    page = admin_client.get(try_url("echo")).content.decode()
    offered = re.findall(r'<option value="(\d{4}-\d{2}-\d{2})"', page)
    assert offered == ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
    assert "2026-07-28 (newest, no handshake)" in page
    response = admin_client.post(
        try_url("echo"), {"argument_word": "hi", "protocol_version": version}
    )
    assert response.context["error"] is None
    assert '"word":"hi"' in response.context["result"]["content"][0]["text"].replace(" ", "")
    chosen = re.search(r'<option value="([^"]+)" selected>', response.content.decode())
    assert chosen.group(1) == version


def test_try_it_in_2026_07_28_needs_no_transport_headers(admin_client):
    # The call is made in-process: no Mcp-Param-* header for an intermediary to route on,
    # so none is asked for (the result is shaped as that version's client receives it).
    response = admin_client.post(
        try_url("test_argument_headers"),
        {"argument_shard": "3", "argument_region": "eu", "protocol_version": "2026-07-28"},
    )
    assert response.context["error"] is None, response.context["error"]
    assert not response.context["result"].get("isError")


def test_try_it_refuses_a_protocol_version_it_does_not_serve(admin_client):
    response = admin_client.post(
        try_url("echo"), {"argument_word": "hi", "protocol_version": "1999-01-01"}
    )
    assert "Select a valid choice. 1999-01-01 is not one of the available choices." in (
        response.content.decode()
    )
    assert response.context["answer"] is None


def test_try_it_offers_a_labelled_choice_by_its_titles():
    from mcp_tools.admin.forms import field_for

    schema = {"type": "string", "oneOf": [{"const": "sci", "title": "Science"}]}
    field = field_for("genre", schema, required=False)
    assert list(field.choices)[1:] == [('"sci"', "Science")]
    assert field.clean('"sci"') == "sci"
