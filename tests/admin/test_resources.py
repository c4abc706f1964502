"""The exposed resources' admin: rows synced from the code, switched by actions saved one by
one with a LogEntry each, and what admins set is what the endpoint serves."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry

from mcp_tools.models import ExposedResource
from mcp_tools.test import MCPClient, MCPError

pytestmark = [pytest.mark.urls("tests.resources.urls"), pytest.mark.django_db]

CHANGELIST = "/admin/mcp_tools/exposedresource/"


def test_the_changelist_shows_every_resource_of_the_served_registries(admin_client):
    page = admin_client.get(CHANGELIST)
    assert page.status_code == 200
    rows = dict(ExposedResource.objects.values_list("name", "uri"))
    assert rows["order_detail"] == "orders://{pk}"
    assert rows["banner"] == "shop://banner"
    assert "orders://{pk}" in page.content.decode()


def test_an_action_saves_each_row_with_its_log_entry(
    admin_client, alice, django_capture_on_commit_callbacks
):
    admin_client.get(CHANGELIST)  # synced
    chosen = ExposedResource.objects.filter(name__in=["banner", "order_detail"])
    done = admin_client.post(
        CHANGELIST,
        {"action": "disable_resources", "_selected_action": [row.pk for row in chosen]},
        follow=True,
    )
    assert "2 resources disabled." in done.content.decode()
    assert set(ExposedResource.objects.filter(enabled=False).values_list("name", flat=True)) == {
        "banner",
        "order_detail",
    }
    assert LogEntry.objects.filter(object_repr__in=["banner", "order_detail"]).count() == 2
    mcp = MCPClient(
        headers={"Authorization": f"Token {alice.token}"},
        mcp_path="/mcp",
        protocol_version="2026-07-28",
    )
    assert "shop://banner" not in [each["uri"] for each in mcp.rpc("resources/list")["resources"]]
    with pytest.raises(MCPError):
        mcp.rpc("resources/read", {"uri": "orders://1"})
    with django_capture_on_commit_callbacks(execute=True):  # published, as after a commit
        admin_client.post(
            CHANGELIST,
            {"action": "enable_resources", "_selected_action": [row.pk for row in chosen]},
        )
    assert mcp.rpc("resources/read", {"uri": "orders://1"})["contents"]


def test_a_registered_row_cannot_be_deleted_nor_added(admin_client):
    admin_client.get(CHANGELIST)
    row = ExposedResource.objects.get(name="banner")
    assert admin_client.get(f"{CHANGELIST}{row.pk}/delete/").status_code == 403
    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403


def test_reads_are_not_counted_among_a_tools_calls(admin_user, rf):
    from datetime import timedelta

    from django.contrib import admin as django_admin
    from django.utils import timezone

    from mcp_tools.calllog.overview import latest_errors
    from mcp_tools.models import ExposedTool, ToolCall

    ExposedTool.objects.create(name="order_detail")
    now = timezone.now()
    for kind in ("tool", "resource", "resource"):
        ToolCall.objects.create(
            tool_name="order_detail", kind=kind, started_at=now, duration_ms=1.0, is_error=True
        )
    request = rf.get("/")
    request.user = admin_user
    tools_admin = django_admin.site._registry[ExposedTool]
    row = tools_admin.get_queryset(request).get(name="order_detail")
    assert (row.call_count, row.error_count) == (1, 1)
    assert [call.kind for call in latest_errors(now - timedelta(days=1))] == ["tool"]
