"""Resource rows follow the registries the URLconf serves (migrate, mcp_sync), a roll-back
to before resources migrates, and reads stay out of the tools' counts."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from mcp_tools.calllog.summary import tally
from mcp_tools.endpoint.mounts import served_resource_registries
from mcp_tools.models import ExposedResource, ToolCall
from mcp_tools.resources.registry import registry as default_registry
from tests.resources import urls


@pytest.mark.urls("tests.resources.urls")
def test_a_registry_given_to_an_endpoint_is_served_and_synced(db):
    assert served_resource_registries() == (default_registry, urls.resources)
    out = io.StringIO()
    call_command("mcp_sync", stdout=out)
    assert "New (resources): banner, big, limited, moved, order_detail, report, staff_only" in (
        out.getvalue()
    )
    assert ExposedResource.objects.get(name="order_detail").uri == "orders://{pk}"
    out = io.StringIO()
    call_command("mcp_sync", stdout=out)
    assert "The exposed resources are in sync." in out.getvalue()


@pytest.mark.urls("tests.resources.urls")
def test_a_rows_uri_follows_its_code(db):
    from mcp_tools.resources.sync import sync_resources

    sync_resources(urls.resources)
    row = ExposedResource.objects.get(name="order_detail")
    row.uri = "orders://{old}"  # as the code declared it before
    row.save()
    out = io.StringIO()
    call_command("mcp_sync", stdout=out)
    assert "Updated from the code (resources): order_detail" in out.getvalue()
    assert ExposedResource.objects.get(name="order_detail").uri == "orders://{pk}"


@pytest.mark.urls("tests.resources.urls")
def test_a_sync_of_unchanged_code_writes_nothing(db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from mcp_tools.resources.sync import sync_resources

    sync_resources(urls.resources)
    with CaptureQueriesContext(connection) as queries:
        result = sync_resources(urls.resources)
    assert not (result.created or result.updated or result.unregistered)
    writes = [q["sql"] for q in queries if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE")]
    assert writes == []


@pytest.mark.urls("tests.resources.urls")
def test_migrate_syncs_the_resources_of_every_served_registry(db):
    call_command("migrate", "mcp_tools", verbosity=0)
    assert ExposedResource.objects.filter(name="banner", registered=True).exists()


@pytest.mark.django_db(transaction=True)
def test_rolling_back_to_before_resources_migrates():
    call_command("migrate", "mcp_tools", "0015", verbosity=0)
    try:
        from django.db import connection

        assert "mcp_tools_exposedresource" not in connection.introspection.table_names()
    finally:
        call_command("migrate", "mcp_tools", verbosity=0)
    assert ExposedResource.objects.count() == 0  # the default registry declares none


def test_reads_are_no_tool_calls_in_the_daily_summary():
    now = timezone.now()
    rows = [
        ToolCall(tool_name="order_detail", kind=kind, started_at=now, duration_ms=3.0)
        for kind in ("tool", "resource", "resource")
    ]
    for row in rows:
        row.outcome, row.client_name, row.protocol_version = "ok", "c", "2026-07-28"
    days, latencies = tally(rows)
    assert [counted.calls for counted in days.values()] == [1]
    assert sum(latencies.values()) == 1
