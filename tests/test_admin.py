"""Django admin for the exposed tools: the catalog, its overrides, Try it and the call log."""

import base64
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from mcp_tools.models import ExposedTool, ToolCall

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.admin_urls")]


@pytest.fixture
def admin_client(django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "root-pw")
    # A view's exception is reported through got_request_exception: not the page's failure.
    client = Client(raise_request_exception=False)
    client.force_login(root)
    client.user = root
    return client


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


def test_the_changelist_has_call_figures_over_the_window(admin_client, settings):
    now = timezone.now()
    durations = [(10, False), (30, True), (20, False)]
    for duration, is_error in durations:
        ToolCall.objects.create(
            tool_name="todo_list", started_at=now, duration_ms=duration, is_error=is_error
        )
    old = now - timedelta(days=30)
    ToolCall.objects.create(tool_name="todo_list", started_at=old, duration_ms=999)
    response = admin_client.get(CHANGELIST, {"q": "todo_list"})
    page = response.content.decode()
    assert '<td class="field-calls">3</td>' in page  # the old call is outside the window
    assert '<td class="field-error_rate">33%</td>' in page
    assert '<td class="field-p50_duration">20.0</td>' in page  # of 10, 20 and 30 ms
    assert "errors only" in page  # CALL_LOG = "errors" is said


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
    assert admin_client.get(reverse(delete, args=[live.pk])).status_code == 403
    assert admin_client.post(reverse(delete, args=[stale.pk]), {"post": "yes"}).status_code == 302
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


# -- the change page ----------------------------------------------------------------------


def test_the_change_page_shows_what_clients_see(admin_client):
    page = admin_client.get(change_url("todo_retrieve")).content.decode()
    assert "The code&#x27;s title" in page
    assert "&quot;readOnlyHint&quot;: true" in page  # the effective annotations, indented
    assert "&quot;pk&quot;" in page  # the input schema
    assert "None advertised" in page  # include_output_schema is off by default
    assert try_url("todo_retrieve") in page and "Try it" in page


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
    found = admin_client.get("/admin/mcp_tools/toolcall/", {"q": "a" * 32}).content.decode()
    assert "1 tool call" in found


@pytest.mark.parametrize(
    ("query", "count"),
    [({"is_error__exact": "1"}, 1), ({"tool_name": "echo"}, 1), ({"user__isnull": "True"}, 2)],
)
def test_the_call_log_filters(admin_client, query, count):
    now = timezone.now()
    ToolCall.objects.create(tool_name="echo", started_at=now, duration_ms=1, is_error=True)
    ToolCall.objects.create(tool_name="todo_list", started_at=now, duration_ms=1)
    ToolCall.objects.create(
        tool_name="todo_list", started_at=now, duration_ms=1, user=admin_client.user
    )
    changelist = admin_client.get("/admin/mcp_tools/toolcall/", query)
    assert changelist.context["cl"].result_count == count


# -- a registry of its own: MCPView.as_view(registry=...) ------------------------------------

partner_registry = pytest.mark.urls("tests.registry_endpoint_urls")


@partner_registry
def test_a_custom_registrys_tools_are_rows_like_the_default_ones(admin_client):
    ExposedTool.objects.filter(name="partner_quote").delete()  # new since the last migrate
    page = admin_client.get(CHANGELIST, {"q": "partner_quote"}).content.decode()
    assert ExposedTool.objects.get(name="partner_quote").registered is True
    assert '<td class="field-http">GET /partner/quotes/&lt;pk&gt;/</td>' in page
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
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    admin_client.get(CHANGELIST)  # the sync, as the list of tools runs it
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    selected = {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"}
    assert admin_client.post(CHANGELIST, selected).status_code == 403
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


def test_try_it_offers_a_labelled_choice_by_its_titles():
    from mcp_tools.forms import field_for

    schema = {"type": "string", "oneOf": [{"const": "sci", "title": "Science"}]}
    field = field_for("genre", schema, required=False)
    assert list(field.choices) == [("", "---------"), ('"sci"', "Science")]
    assert field.clean('"sci"') == "sci"
