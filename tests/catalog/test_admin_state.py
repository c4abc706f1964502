"""The admin state per version: one cache read a request, the database as the fallback, and
admin values over the decorator's, the settings' and the defaults (docs/admin.md)."""

import types

import pytest
from django.core.cache import caches
from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.catalog import admin_state as catalog
from mcp_tools.catalog.admin_state import (
    VERSION_KEY,
    catalog_for,
    catalogs,
    current_version,
    database_version,
    read_version,
)
from mcp_tools.models import ExposedTool
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from tests.helpers import purpose

pytestmark = pytest.mark.django_db


def cache():
    return caches["mcp"]


def test_the_version_is_one_cache_read_and_the_database_its_fallback(
    django_assert_num_queries,
):
    cache().delete(VERSION_KEY)
    with django_assert_num_queries(1):  # no stamp in the cache: computed from the rows
        version = read_version()
    assert version == database_version()
    with django_assert_num_queries(0):  # then it is in the cache
        assert read_version() == version


def test_a_process_reads_the_stamp_at_most_once_per_admin_state_max_age(settings, monkeypatch):
    reads = []
    monkeypatch.setattr(catalog, "read_version", lambda: reads.append(1) or f"v{len(reads)}")
    clock = [100.0]
    monkeypatch.setattr(catalog.time, "monotonic", lambda: clock[0])
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "ADMIN_STATE_MAX_AGE": 2}
    assert [current_version() for _ in range(50)] == ["v1"] * 50
    clock[0] += 1.9
    assert current_version() == "v1"
    clock[0] += 0.2  # past the age: read again
    assert current_version() == "v2" and len(reads) == 2
    # What this process publishes it knows at once.
    published = catalog.publish()
    assert current_version() == published and len(reads) == 2
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "ADMIN_STATE_MAX_AGE": 0}
    catalogs.clear()
    current_version(), current_version()
    assert len(reads) == 4  # 0: every request reads it


@pytest.mark.parametrize(
    "backend",
    [
        "django.core.cache.backends.locmem.LocMemCache",
        "django.core.cache.backends.dummy.DummyCache",
    ],
)
def test_a_per_process_cache_takes_the_stamp_from_the_database(
    settings, backend, django_assert_num_queries
):
    # A stamp in a per-process cache would reach no other process: the database's is
    # the same for every process, so a change made anywhere is seen everywhere.
    settings.CACHES = {**settings.CACHES, "local": {"BACKEND": backend}}
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CACHE": "local"}
    before = read_version()
    assert before == database_version()
    ExposedTool.objects.filter(name="todo_list").update(enabled=False)
    published = catalog.publish()  # as docs/admin.md asks after update()
    catalogs.clear()  # another process: it knows nothing of this one's publish
    with django_assert_num_queries(1):
        after = read_version()
    assert after == published != before
    assert caches["local"].get(VERSION_KEY) is None  # nothing published there


def test_the_database_version_is_a_counter_every_publish_bumps():
    # Not a count or a date of the rows: no change is missed whatever order transactions
    # commit in, or whatever the clocks of the hosts say.
    first = catalog.publish()
    second = catalog.publish()
    epoch, number = first.split(".")
    assert second == f"{epoch}.{int(number) + 1}"
    assert database_version() == second


def test_a_version_stamp_never_comes_back_after_a_flush():
    """A user's TransactionTestCase flushes the database between tests: the row goes, the
    count starts again, and a process must not take a new state for one it loaded before."""
    from mcp_tools.models import AdminStateVersion

    seen = {catalog.publish(), catalog.publish()}
    AdminStateVersion.objects.all().delete()  # what flush (or a restored backup) does
    missing = {database_version(), database_version()}
    assert len(missing) == 2 and not missing & seen  # no row: every read a stamp of its own
    seen |= missing
    again = [catalog.publish(), catalog.publish()]
    assert not set(again) & seen
    assert database_version() == again[-1]


def test_a_saved_change_publishes_a_new_version(django_capture_on_commit_callbacks):
    before = current_version()
    row = ExposedTool.objects.get(name="todo_list")
    row.title = "Changed"
    with django_capture_on_commit_callbacks(execute=True):
        row.save()
    assert current_version() != before


def test_the_rows_are_read_once_per_version(django_assert_num_queries):
    from mcp_tools.tools.registry import registry

    routed = registry.tools()
    first = catalog_for(routed)
    with django_assert_num_queries(0):
        assert catalog_for(routed) is first  # same version: nothing read
    catalog.publish()
    with django_assert_num_queries(3):  # the rows, their groups, and the toolsets
        assert catalog_for(routed) is not first


def test_a_version_lost_with_the_cache_is_the_same_on_every_worker():
    row = ExposedTool.objects.get(name="todo_list")
    row.enabled = False
    row.save()
    cache().clear()  # evicted, or the cache restarted
    # Each worker computes it from the database: the same stamp everywhere.
    assert current_version() == database_version()


def test_update_then_publish_takes_effect(mcp):
    assert "todo_list" in {tool["name"] for tool in mcp.list_tools()}
    ExposedTool.objects.filter(name="todo_list").update(enabled=False)  # no signal
    catalog.publish()
    assert "todo_list" not in {tool["name"] for tool in mcp.list_tools()}


class Plain(APIView):
    def get(self, request):
        """The handler's docstring."""
        return Response({"ok": True})


def decorated_tool(settings, admin=None, **decorator):
    """Build a one-tool URLconf and return the tool as callers see it after ``admin``."""
    local = ToolRegistry()
    view = type("V", (Plain,), {})
    mcp_tool("t", registry=local, **decorator)(view)
    module = types.ModuleType("precedence_urls")
    module.urlpatterns = [path("t/", view.as_view())]
    settings.ROOT_URLCONF = module
    row, _ = ExposedTool.objects.get_or_create(name="t")
    for key, value in (admin or {}).items():
        setattr(row, key, value)
    row.save()
    catalog.publish()
    return catalog_for(local.tools()).tools["t"]


@pytest.mark.parametrize(
    ("decorator", "admin", "expected"),
    [
        ({}, {}, "V"),  # built-in: DRF's view name
        ({"title": "From the decorator"}, {}, "From the decorator"),
        ({"title": "From the decorator"}, {"title": "From admin"}, "From admin"),
    ],
)
def test_title_precedence(settings, decorator, admin, expected):
    tool = decorated_tool(settings, admin, **decorator)
    assert tool.title == expected
    assert tool.annotations["title"] == expected


@pytest.mark.parametrize(
    ("decorator", "admin", "expected"),
    [
        ({}, {}, "The handler's docstring."),
        ({"description": "Decorated."}, {}, "Decorated."),
        ({"description": "Decorated."}, {"description": "Admin's."}, "Admin's."),
    ],
)
def test_description_precedence(settings, decorator, admin, expected):
    assert purpose(decorated_tool(settings, admin, **decorator).description) == expected


@pytest.mark.parametrize(
    ("setting", "decorator", "admin", "expected"),
    [
        ({}, {}, {}, False),  # the built-in default of a GET tool
        ({"DEFAULT_ANNOTATIONS": {"openWorldHint": True}}, {}, {}, True),
        (
            {"DEFAULT_ANNOTATIONS": {"openWorldHint": True}},
            {"annotations": {"openWorldHint": False}},
            {},
            False,
        ),
        (
            {"DEFAULT_ANNOTATIONS": {"openWorldHint": True}},
            {"annotations": {"openWorldHint": False}},
            {"annotations": {"openWorldHint": True}},
            True,
        ),
    ],
)
def test_annotation_precedence(settings, setting, decorator, admin, expected):
    settings.MCP_TOOLS = {**setting, "CACHE": "mcp"}
    tool = decorated_tool(settings, admin, **decorator)
    assert tool.annotations["openWorldHint"] is expected


@pytest.mark.parametrize(
    ("setting", "decorator", "admin", "expected"),
    [
        ({}, None, None, True),
        ({"INCLUDE_STRUCTURED_CONTENT": False}, None, None, False),
        ({"INCLUDE_STRUCTURED_CONTENT": False}, True, None, True),
        ({"INCLUDE_STRUCTURED_CONTENT": False}, True, False, False),
        ({}, False, True, True),
    ],
)
def test_structured_content_switch_precedence(settings, setting, decorator, admin, expected):
    settings.MCP_TOOLS = {**setting, "CACHE": "mcp"}
    tool = decorated_tool(
        settings,
        {"include_structured_content": admin},
        include_structured_content=decorator,
    )
    assert tool.include_structured_content is expected


@pytest.mark.parametrize(
    ("setting", "decorator", "admin", "advertised"),
    [
        ({}, None, None, False),
        ({"INCLUDE_OUTPUT_SCHEMA": True}, None, None, True),
        ({"INCLUDE_OUTPUT_SCHEMA": True}, False, None, False),
        ({"INCLUDE_OUTPUT_SCHEMA": True}, False, True, True),
        ({}, True, False, False),
    ],
)
def test_output_schema_switch_precedence(settings, setting, decorator, admin, advertised):
    settings.MCP_TOOLS = {**setting, "CACHE": "mcp"}
    tool = decorated_tool(
        settings,
        {"include_output_schema": admin},
        include_output_schema=decorator,
        output_schema={"type": "object"},
    )
    assert (tool.output_schema is not None) is advertised


def test_invalid_annotations_written_to_the_database_are_ignored(settings, caplog):
    tool = decorated_tool(settings, {"annotations": {"readOnlyHint": "yes", "bogus": 1}})
    assert tool.annotations["readOnlyHint"] is True  # the code's value stands
    assert "bogus" not in tool.annotations
    assert "Tool t: invalid admin annotations ignored" in caplog.text


def test_the_rows_are_read_as_values_into_the_same_rules(django_assert_num_queries):
    from django.contrib.auth.models import Group
    from django.db.models.signals import post_init

    from mcp_tools.catalog.admin_state import DEFAULT_RULE, Rule, load_state

    staff, ops = Group.objects.create(name="staff"), Group.objects.create(name="ops")
    ExposedTool.objects.update_or_create(name="todo_list", defaults={"enabled": False})
    grouped, _ = ExposedTool.objects.update_or_create(
        name="grouped",
        defaults={
            "title": "Grouped",
            "description": "Seen by two groups",
            "annotations": {"readOnlyHint": True, "bogus": 1},
            "include_structured_content": False,
            "include_output_schema": True,
        },
    )
    grouped.allowed_groups.set([staff, ops])
    ExposedTool.objects.update_or_create(name="plain", defaults={})
    built = []

    def count(sender, **kwargs):
        built.append(sender)

    # Hundreds of rows in a large catalog: no model instance is built for any of them.
    post_init.connect(count, sender=ExposedTool)
    try:
        with django_assert_num_queries(3):  # the rows, their groups, and the toolsets
            state = load_state("v-test")
    finally:
        post_init.disconnect(count, sender=ExposedTool)
    assert built == []
    assert state.version == "v-test"
    assert state.rule("todo_list") == Rule(enabled=False)
    assert state.rule("grouped") == Rule(
        group_ids=frozenset({staff.pk, ops.pk}),
        title="Grouped",
        description="Seen by two groups",
        annotations={"readOnlyHint": True},
        include_structured_content=False,
        include_output_schema=True,
    )
    assert "plain" not in state.rules  # a row that says nothing is a tool without one
    assert state.rule("plain") is DEFAULT_RULE


def test_a_tool_disabled_after_a_restore_is_hidden_though_the_count_repeats(
    mcp, django_capture_on_commit_callbacks
):
    """Through the endpoint: the process loaded the state at some count; a restored backup
    brings an older count back, and the change that reaches the same count again is still
    seen (the row's epoch is new), where the bare count would have hidden it."""
    from mcp_tools.models import AdminStateVersion

    catalog.publish()
    assert "todo_list" in {tool["name"] for tool in mcp.list_tools()}
    number = AdminStateVersion.objects.get(pk=1).number
    AdminStateVersion.objects.all().delete()
    AdminStateVersion.objects.create(pk=1, number=number - 1)  # the backup's row
    row = ExposedTool.objects.get(name="todo_list")
    row.enabled = False
    with django_capture_on_commit_callbacks(execute=True):
        row.save()  # publishes: the count is the one the process saw
    assert AdminStateVersion.objects.get(pk=1).number == number
    assert "todo_list" not in {tool["name"] for tool in mcp.list_tools()}
