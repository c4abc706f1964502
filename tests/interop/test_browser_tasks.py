"""The tasks' admin pages in a real browser (Debian's headless Chromium, through Selenium):
at 1366×768 and 1920×1080, in the admin's light and dark themes (docs/tasks.md#admin).

As the call log's pages are checked (tests/interop/test_browser_calllog.py): nothing cut off at the
side, every status in words whose colours contrast with their background, the links from a
task to its logged call and back, and axe-core's serious violations: none.
"""

import secrets
from datetime import timedelta

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.interop.test_browser import axe_violations, log_into_admin, save_screenshot, wait_for
from tests.interop.test_browser_calllog import SIZES, THEMES, contrasts, fits, show

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.admin_urls")]

REFERENCE = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def operator(browser, live_server, django_user_model):
    django_user_model.objects.create_superuser("root", "root@example.com", "root-password")
    log_into_admin(browser, live_server.url, "root", "root-password")
    return browser


def stored(tool, status, ago, ran=None, **fields):
    from mcp_tools.models import ToolTask

    created = timezone.now() - timedelta(seconds=ago)
    values = {
        "id": secrets.token_hex(16),
        "tool_name": tool,
        "caller": "anonymous",
        "endpoint_path": "/mcp",
        "protocol_version": "2026-07-28",
        "client_name": "raw-http/1.0",
        "params": {"arguments": {"rows": 200}},
        "status": status,
        "created_at": created,
        "updated_at": created,
        "expires_at": created + timedelta(days=1),
        "started_at": created + timedelta(seconds=0.3),
        "worker": "web-1:4242:140213",
        "attempts": 1,
    }
    if ran is not None:
        values["finished_at"] = values["started_at"] + timedelta(seconds=ran)
    values.update(fields)
    return ToolTask.objects.create(**values)


@pytest.fixture
def tasks(alice):
    from mcp_tools.models import ToolCall

    exported = stored(
        "todo_export",
        "completed",
        600,
        ran=3.2,
        user=alice,
        caller=f"user:{alice.pk}",
        result={
            "content": [
                {"type": "text", "text": '{"count": 2, "todos": ["Buy milk", "Call Ann"]}'}
            ],
            "structuredContent": {"count": 2, "todos": ["Buy milk", "Call Ann"]},
            "isError": False,
        },
    )
    ToolCall.objects.create(
        tool_name="todo_export",
        user=alice,
        started_at=exported.started_at,
        duration_ms=3200.0,
        http_status=200,
        client_name="raw-http/1.0",
        protocol_version="2026-07-28",
        task_id=exported.pk,
    )
    failed = stored(
        "todo_import",
        "failed",
        300,
        ran=0.8,
        error={"code": -32603, "message": "Internal error", "data": {"errorRef": REFERENCE}},
        status_message="The worker running this task stopped",
    )
    refused = stored(
        "todo_import",
        "completed",
        240,
        ran=1.1,
        result={
            "content": [{"type": "text", "text": "The import service refused the file"}],
            "isError": True,
        },
    )
    asking = stored(
        "todo_export",
        "input_required",
        120,
        user=alice,
        caller=f"user:{alice.pk}",
        input_requests={
            "confirm": {
                "method": "elicitation/create",
                "params": {"message": "Export 200 rows?", "requestedSchema": {"type": "object"}},
            }
        },
        status_message="Waiting for the client's input",
    )
    working = stored(
        "todo_export", "working", 30, user=alice, status_message="Exporting: 2 of 5 steps"
    )
    cancelled = stored("todo_export", "cancelled", 900, ran=2.0)
    return {
        "exported": exported,
        "failed": failed,
        "refused": refused,
        "asking": asking,
        "working": working,
        "cancelled": cancelled,
    }


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_tasks_read_at_a_glance(operator, live_server, tasks, tmp_path, theme, size):
    show(operator, f"{live_server.url}/admin/mcp_tools/tooltask/", theme, size, "#result_list")
    assert fits(operator, "#changelist .results")
    badges = contrasts(operator, "#result_list .mcp-task-status")
    assert {text for text, _ in badges} == {
        "completed",
        "failed",
        "completed: tool error",
        "input required",
        "working",
        "cancelled",
    }
    assert all(ratio >= 4.5 for _, ratio in badges), badges
    page = operator.find_element(By.ID, "result_list").text
    assert f"-32603 Internal error (reference {REFERENCE})" in page
    assert "The import service refused the file" in page
    assert "3.2 s" in page and "so far" in page
    assert not operator.find_elements(By.CSS_SELECTOR, ".object-tools a.addlink")  # read-only
    save_screenshot(operator, tmp_path, f"admin-tasks-{theme}-{size[0]}", size)
    # The status filter, as a person uses it.
    operator.find_element(
        By.CSS_SELECTOR, "#changelist-filter a[href*='status__exact=failed']"
    ).click()
    wait_for(operator, "#result_list")
    rows = operator.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert len(rows) == 1 and "todo_import" in rows[0].text


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_a_task_shows_what_it_answered_and_leads_to_its_call(
    operator, live_server, tasks, tmp_path, theme, size
):
    task = tasks["exported"]
    url = f"{live_server.url}/admin/mcp_tools/tooltask/{task.pk}/change/"
    show(operator, url, theme, size, "#content-main")
    assert fits(operator, "#content-main")
    text = operator.find_element(By.ID, "content-main").text
    assert '"structuredContent": {' in text and "Buy milk" in text
    assert "web-1:4242:140213" in text and "3.2 s" in text
    assert not operator.find_elements(By.CSS_SELECTOR, ".deletelink, input[name=_save]")
    assert all(ratio >= 4.5 for _, ratio in contrasts(operator, ".mcp-task-status"))
    # The whole page in the picture: as wide as tested, as tall as it is.
    height = operator.execute_script("return document.documentElement.scrollHeight")
    save_screenshot(operator, tmp_path, f"admin-task-{theme}-{size[0]}", (size[0], height))
    # To the call its run logged, and back.
    operator.find_element(By.LINK_TEXT, "The logged call").click()
    wait_for(operator, "#content-main")
    operator.find_element(By.LINK_TEXT, task.pk).click()
    wait_for(operator, "#content-main")
    assert operator.current_url.endswith(f"/tooltask/{task.pk}/change/")


def test_an_operator_cancels_a_working_task(operator, live_server, tasks):
    from mcp_tools.models import ToolTask

    show(
        operator, f"{live_server.url}/admin/mcp_tools/tooltask/", "light", SIZES[0], "#result_list"
    )
    for task in (tasks["working"], tasks["exported"]):
        operator.find_element(By.CSS_SELECTOR, f"input.action-select[value='{task.pk}']").click()
    Select(operator.find_element(By.NAME, "action")).select_by_visible_text("Cancel selected tasks")
    operator.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    message = wait_for(operator, "ul.messagelist li").text
    assert message == "1 task cancelled. 1 had ended already."
    assert ToolTask.objects.get(pk=tasks["working"].pk).status == "cancelled"
    assert ToolTask.objects.get(pk=tasks["exported"].pk).status == "completed"


@pytest.mark.parametrize("theme", THEMES)
def test_the_task_pages_have_no_serious_accessibility_violations(
    operator, live_server, tasks, theme
):
    admin = f"{live_server.url}/admin/mcp_tools/tooltask"
    pages = {
        "tasks": (f"{admin}/", "#result_list"),
        "a completed task": (f"{admin}/{tasks['exported'].pk}/change/", "#content-main"),
        "a failed task": (f"{admin}/{tasks['failed'].pk}/change/", "#content-main"),
        "a task asking": (f"{admin}/{tasks['asking'].pk}/change/", "#content-main"),
    }
    found = {}
    for name, (url, ready) in pages.items():
        show(operator, url, theme, SIZES[0], ready)
        found[name] = axe_violations(operator)
    assert found == {name: [] for name in pages}
