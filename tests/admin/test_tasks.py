"""Django admin for MCP tasks (docs/tasks.md#admin): the list, a task's page, the cancel
action, and the links between a task and its logged call."""

import secrets
from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from mcp_tools.models import ToolCall, ToolTask

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.admin_urls")]

CHANGELIST = "/admin/mcp_tools/tooltask/"
REFERENCE = "0123456789abcdef0123456789abcdef"


def make_task(tool="todo_export", status=ToolTask.WORKING, ago=60, ran=None, **fields):
    """A task created ``ago`` seconds ago, whose worker ran it for ``ran`` seconds."""
    created = timezone.now() - timedelta(seconds=ago)
    values = {
        "id": secrets.token_hex(16),
        "tool_name": tool,
        "caller": "anonymous",
        "endpoint_path": "/mcp",
        "protocol_version": "2026-07-28",
        "client_name": "raw-http/1.0",
        "params": {"arguments": {"rows": 3}},
        "status": status,
        "created_at": created,
        "updated_at": created,
        "expires_at": created + timedelta(days=1),
        "started_at": created + timedelta(seconds=0.2),
    }
    if ran is not None:
        values["finished_at"] = values["started_at"] + timedelta(seconds=ran)
    values.update(fields)
    return ToolTask.objects.create(**values)


def change_url(task):
    return reverse("admin:mcp_tools_tooltask_change", args=[task.pk])


def test_the_list_says_tool_caller_status_duration_and_what_went_wrong(admin_client, alice):
    make_task(user=alice, caller="user:1", status=ToolTask.COMPLETED, ran=4.25)
    make_task(
        tool="todo_import",
        status=ToolTask.FAILED,
        ran=0.5,
        error={"code": -32603, "message": "Internal error", "data": {"errorRef": REFERENCE}},
    )
    make_task(
        tool="todo_import",
        status=ToolTask.COMPLETED,
        ran=1,
        result={
            "content": [{"type": "text", "text": "The export service refused the job"}],
            "isError": True,
        },
    )
    make_task(ago=75, started_at=timezone.now() - timedelta(seconds=70))
    page = admin_client.get(CHANGELIST).content.decode()
    assert "todo_export" in page and "todo_import" in page
    assert "alice" in page and "(anonymous)" in page
    for words in ("completed", "failed", "completed: tool error", "working"):
        assert f">{words}</span>" in page
    assert "4.2 s" in page and "0.5 s" in page  # started to finished
    assert "1 min 10 s so far" in page  # still working
    assert f"-32603 Internal error (reference {REFERENCE})" in page
    assert "The export service refused the job" in page
    assert f"{CHANGELIST}add/" not in page  # no task is added by hand


def test_the_list_filters_by_status_and_tool(admin_client):
    make_task(status=ToolTask.FAILED, ran=1)
    make_task(tool="todo_import", status=ToolTask.COMPLETED, ran=1)
    make_task(tool="todo_import")
    failed = admin_client.get(CHANGELIST, {"status__exact": "failed"}).content.decode()
    assert "1 tool task" in failed and "todo_export" in failed
    imports = admin_client.get(CHANGELIST, {"tool_name": "todo_import"}).content.decode()
    assert "2 tool tasks" in imports
    assert "status__exact=input_required" in imports  # every status is a choice


def test_an_error_reference_or_a_task_id_is_searched_exactly(admin_client):
    failed = make_task(status=ToolTask.FAILED, error={"code": -32603, "message": "x"})
    masked = make_task(status=ToolTask.COMPLETED, result={"isError": True, "content": []})
    ToolCall.objects.create(
        tool_name="todo_export",
        started_at=timezone.now(),
        duration_ms=1,
        outcome="error",
        is_error=True,
        error_ref=REFERENCE,
        task_id=masked.pk,
    )
    make_task()
    by_reference = admin_client.get(CHANGELIST, {"q": REFERENCE}).content.decode()
    assert "1 tool task" in by_reference and change_url(masked) in by_reference
    by_id = admin_client.get(CHANGELIST, {"q": failed.pk}).content.decode()
    assert "1 tool task" in by_id and change_url(failed) in by_id


def test_the_list_and_a_task_are_read_only_for_everyone(admin_client):
    task = make_task()
    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403
    assert admin_client.post(change_url(task), {"status": "completed"}).status_code == 403
    page = admin_client.get(change_url(task)).content.decode()
    assert 'name="_save"' not in page and 'class="deletelink"' not in page
    delete = reverse("admin:mcp_tools_tooltask_delete", args=[task.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    bulk = {"action": "delete_selected", "_selected_action": [task.pk], "post": "yes"}
    admin_client.post(CHANGELIST, bulk)
    assert ToolTask.objects.get(pk=task.pk).status == ToolTask.WORKING


def test_cancel_selected_tasks_cancels_those_that_have_not_ended(admin_client):
    working = make_task()
    asking = make_task(status=ToolTask.INPUT_REQUIRED, input_requests={"q": {}})
    done = make_task(status=ToolTask.COMPLETED, ran=1, result={"content": []})
    selected = {"action": "cancel_tasks", "_selected_action": [working.pk, asking.pk, done.pk]}
    response = admin_client.post(CHANGELIST, selected, follow=True)
    assert "2 tasks cancelled. 1 had ended already." in response.content.decode()
    statuses = dict(ToolTask.objects.values_list("pk", "status"))
    assert statuses == {
        working.pk: ToolTask.CANCELLED,
        asking.pk: ToolTask.CANCELLED,
        done.pk: ToolTask.COMPLETED,
    }
    working.refresh_from_db()
    assert working.status_message == "Cancelled by root in the admin"
    assert working.finished_at is not None
    assert LogEntry.objects.filter(object_id=working.pk).count() == 1
    again = admin_client.post(
        CHANGELIST, {**selected, "_selected_action": [working.pk]}, follow=True
    )
    assert "0 tasks cancelled. 1 had ended already." in again.content.decode()


def test_cancelling_takes_the_change_permission(django_user_model):
    task = make_task()
    clerk = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_tooltask"))
    client = Client()
    client.force_login(clerk)
    page = client.get(CHANGELIST).content.decode()
    assert "todo_export" in page and "cancel_tasks" not in page
    client.post(CHANGELIST, {"action": "cancel_tasks", "_selected_action": [task.pk]})
    assert ToolTask.objects.get(pk=task.pk).status == ToolTask.WORKING
    clerk.user_permissions.add(Permission.objects.get(codename="change_tooltask"))
    assert "cancel_tasks" in client.get(CHANGELIST).content.decode()
    client.post(CHANGELIST, {"action": "cancel_tasks", "_selected_action": [task.pk]})
    assert ToolTask.objects.get(pk=task.pk).status == ToolTask.CANCELLED


def test_a_tasks_page_shows_what_it_answered_readably(admin_client):
    done = make_task(
        status=ToolTask.COMPLETED,
        ran=2,
        result={"content": [{"type": "text", "text": "3 rows"}], "isError": False},
        worker="host:42:7",
        attempts=1,
    )
    page = admin_client.get(change_url(done)).content.decode()
    assert '<pre class="mcp-json" tabindex="0">{\n  &quot;content&quot;: [' in page
    assert "host:42:7" in page and "2.0 s" in page
    assert "rows" in page and "3</pre>" not in page  # the argument names only, by default
    failed = make_task(
        status=ToolTask.FAILED,
        ran=1,
        error={"code": -32603, "message": "Internal error", "data": {"errorRef": REFERENCE}},
    )
    page = admin_client.get(change_url(failed)).content.decode()
    assert f'/admin/mcp_tools/toolcall/?q={REFERENCE}">{REFERENCE}</a>' in page
    assert "&quot;errorRef&quot;" in page
    asking = make_task(
        status=ToolTask.INPUT_REQUIRED,
        input_requests={
            "confirm": {"method": "elicitation/create", "params": {"message": "Sure?"}}
        },
    )
    page = admin_client.get(change_url(asking)).content.decode()
    assert "&quot;elicitation/create&quot;" in page


def test_a_tasks_arguments_are_shown_as_the_call_log_keeps_them(admin_client, settings):
    settings.MCP_TOOLS = {"CALL_LOG_ARGUMENTS": True}
    task = make_task()
    page = admin_client.get(change_url(task)).content.decode()
    assert "&quot;rows&quot;: 3" in page


def test_a_task_and_its_logged_call_link_to_each_other(admin_client):
    task = make_task(status=ToolTask.COMPLETED, ran=1, result={"content": []})
    call = ToolCall.objects.create(
        tool_name="todo_export", started_at=timezone.now(), duration_ms=1000, task_id=task.pk
    )
    call_url = reverse("admin:mcp_tools_toolcall_change", args=[call.pk])
    assert call_url in admin_client.get(change_url(task)).content.decode()
    assert change_url(task) in admin_client.get(call_url).content.decode()
    # A task run again (its worker died; the tool is idempotent) logged each run.
    ToolCall.objects.create(
        tool_name="todo_export", started_at=timezone.now(), duration_ms=900, task_id=task.pk
    )
    page = admin_client.get(change_url(task)).content.decode()
    assert f"/admin/mcp_tools/toolcall/?task_id={task.pk}" in page
    assert (
        "2 tool calls"
        in admin_client.get("/admin/mcp_tools/toolcall/", {"task_id": task.pk}).content.decode()
    )


def test_a_calls_page_says_when_it_was_inline_or_its_task_is_gone(admin_client):
    inline = ToolCall.objects.create(tool_name="echo", started_at=timezone.now(), duration_ms=1)
    page = admin_client.get(reverse("admin:mcp_tools_toolcall_change", args=[inline.pk]))
    assert "- (answered inline)" in page.content.decode()
    gone = ToolCall.objects.create(
        tool_name="echo", started_at=timezone.now(), duration_ms=1, task_id="f" * 32
    )
    page = admin_client.get(reverse("admin:mcp_tools_toolcall_change", args=[gone.pk]))
    assert f"{'f' * 32} (no longer kept" in page.content.decode()
    assert "tooltask/ffff" not in page.content.decode()


def test_a_finished_task_without_a_logged_call_says_why(admin_client):
    task = make_task(status=ToolTask.COMPLETED, ran=1, result={"content": []})
    assert (
        "- (not logged: CALL_LOG, or pruned)" in admin_client.get(change_url(task)).content.decode()
    )


def test_the_app_index_lists_the_tasks(admin_client):
    assert CHANGELIST in admin_client.get("/admin/mcp_tools/").content.decode()
