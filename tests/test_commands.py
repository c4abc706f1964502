"""The management commands: mcp_list, mcp_show, mcp_call, mcp_sync, mcp_prune (docs/admin.md)."""

import json
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from mcp_tools.models import ExposedTool, ToolCall

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_mcp_list_names_each_tool_with_its_route_and_state():
    ExposedTool.objects.filter(name="todo_create").update(enabled=False)
    from mcp_tools.catalog.admin_state import publish

    publish()
    out, _ = run("mcp_list")
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert "enabled" in lines["todo_list"] and "GET /api/todos/" in lines["todo_list"]
    assert "disabled" in lines["todo_create"]
    assert "GET /api/todos/<pk>/" in lines["todo_retrieve"]


def test_mcp_list_by_tag():
    out, _ = run("mcp_list", "--tag", "forms")
    assert {line.split()[0] for line in out.splitlines()} == {"s_every", "s_node"}


@pytest.mark.parametrize(("version", "has_title"), [("2024-11-05", False), ("2025-11-25", True)])
def test_mcp_show_prints_the_tool_as_a_versions_client_sees_it(version, has_title):
    out, _ = run("mcp_show", "todo_retrieve", "--protocol-version", version)
    definition = json.loads(out)
    assert definition["name"] == "todo_retrieve"
    assert ("title" in definition) is has_title
    assert definition["inputSchema"]["properties"]["pk"]["type"] == "integer"


def test_mcp_show_refuses_an_unknown_tool():
    with pytest.raises(CommandError, match="Unknown tool 'nope': see manage.py mcp_list."):
        run("mcp_show", "nope")


def test_mcp_call_runs_as_the_user_through_the_pipeline(alice, settings):
    settings.MCP_TOOLS = {"CACHE": "mcp", "CALL_LOG": "all"}
    out, _ = run("mcp_call", "echo", "--user", "alice", "--args", '{"word": "hi"}')
    result = json.loads(out)
    assert result["isError"] is False
    assert result["structuredContent"]["user"] == "alice"
    assert result["structuredContent"]["is_mcp_request"] is True
    assert ToolCall.objects.get().user == alice  # the call log saw it too


def test_mcp_call_hands_the_user_to_views_with_their_own_authentication(alice):
    # The operator acts as the user: even a Basic-only view sees them.
    out, _ = run("mcp_call", "basic_only", "--user", "alice")
    assert json.loads(out)["structuredContent"] == {"user": "alice"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--user", "alice"], "Unknown tool: nope (no such tool: see manage.py mcp_list)"),
        (["nope"], "Unknown tool: nope (no such tool: see manage.py mcp_list)"),
        (["echo", "--user", "ghost"], "No user 'ghost'."),
        (["echo", "--args", "{bad"], "--args is not valid JSON"),
        (["echo", "--args", "[1]"], "--args must be a JSON object"),
        # Anonymous: hidden, as over HTTP; the command says what it needs.
        (
            ["todo_list"],
            "Tool 'todo_list' is hidden from anonymous callers: it needs a user. "
            "Call it as one with --user USERNAME.",
        ),
    ],
)
def test_mcp_call_refuses_clearly(alice, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run("mcp_call", *args)


def test_mcp_call_says_why_a_tool_is_hidden_from_its_user(alice):
    from django.contrib.auth.models import Group

    echo = ExposedTool.objects.get(name="echo")
    echo.allowed_groups.add(Group.objects.create(name="librarians"))
    with pytest.raises(CommandError, match="^Tool 'echo' is hidden from user 'alice': they are"):
        run("mcp_call", "echo", "--user", "alice", "--args", '{"word": "x"}')
    echo.enabled = False
    echo.save()
    with pytest.raises(CommandError, match="^Tool 'echo' is disabled in admin"):
        run("mcp_call", "echo", "--user", "alice", "--args", '{"word": "x"}')


LONE_SURROGATE = "a lone UTF-16 surrogate, which is not Unicode text"


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('{"word": NaN}', "NaN is not JSON"),
        ('{"word": -Infinity}', "-Infinity is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested deeper than 62"),
        ('{"word": "\\ud800"}', f"a string holds {LONE_SURROGATE}"),
        # What a command line's undecodable bytes become (os.fsdecode: surrogateescape).
        ('{"word": "\udcff"}', f"the text holds {LONE_SURROGATE}"),
        ('{"word": "a", "word": "b"}', "the key 'word' appears twice in one object"),
        ("{bad", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ],
)
def test_mcp_call_reads_args_as_the_endpoint_reads_a_body(alice, settings, arguments, reason):
    settings.MCP_TOOLS = {"CALL_LOG": "all"}
    with pytest.raises(CommandError) as excinfo:
        run("mcp_call", "echo", "--user", "alice", "--args", arguments)
    assert str(excinfo.value) == f"--args is not valid JSON: {reason}"
    assert not ToolCall.objects.exists()  # nothing ran


@pytest.mark.parametrize("depth", [62, 63])
def test_mcp_call_takes_the_arguments_the_endpoint_takes(alice, mcp, depth):
    # The envelope holds the arguments two levels down: 62 levels of them are a body of 64.
    arguments = '{"word": "hi", "deep": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    body = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
        f'"params": {{"name": "echo", "arguments": {arguments}}}}}'
    )
    endpoint_refuses = mcp.send(body).status_code == 400
    try:
        run("mcp_call", "echo", "--user", "alice", "--args", arguments)
    except CommandError as error:
        command_refuses = str(error).startswith("--args is not valid JSON")
    else:
        command_refuses = False
    assert endpoint_refuses is command_refuses is (depth > 62)


def test_mcp_call_exits_1_when_the_tool_answers_an_error(alice):
    with pytest.raises(CommandError) as excinfo:
        run("mcp_call", "todo_retrieve", "--user", "alice", "--args", '{"pk": 999}')
    assert excinfo.value.returncode == 1
    assert str(excinfo.value) == "The tool answered an error."


def test_mcp_sync_creates_flags_and_restores_rows():
    ExposedTool.objects.filter(name="todo_list").delete()
    ExposedTool.objects.create(name="retired_tool")
    ExposedTool.objects.filter(name="echo").update(registered=False)
    out, _ = run("mcp_sync")
    assert "New: todo_list" in out
    assert "No longer registered: retired_tool" in out
    assert "Registered again: echo" in out
    assert ExposedTool.objects.get(name="retired_tool").registered is False  # kept, flagged
    assert run("mcp_sync")[0].strip() == (
        "The exposed tools are in sync.\nThe exposed resources are in sync."
    )


@pytest.mark.urls("tests.registry_endpoint_urls")
def test_mcp_sync_keeps_the_rows_of_every_registry_an_endpoint_serves():
    # A restriction row made for the partner registry's tool before any sync knew of it.
    ExposedTool.objects.create(name="partner_quote", enabled=False, registered=False)
    out, _ = run("mcp_sync")
    assert "Registered again: partner_quote" in out
    assert "No longer registered" not in out  # the default registry's rows stay registered
    assert ExposedTool.objects.get(name="partner_quote").registered is True
    ExposedTool.objects.filter(name="partner_quote").delete()
    assert "New: partner_quote" in run("mcp_sync")[0]
    assert run("mcp_sync")[0].strip() == (
        "The exposed tools are in sync.\nThe exposed resources are in sync."
    )


@pytest.mark.urls("tests.registry_endpoint_urls")
def test_migrate_syncs_every_registry_an_endpoint_serves():
    ExposedTool.objects.filter(name="partner_quote").delete()
    call_command("migrate", verbosity=0)  # nothing to apply: post_migrate all the same
    assert ExposedTool.objects.get(name="partner_quote").registered is True


class ElsewhereRouter:
    """Keeps this app's tables out of ``default``: they live in a database of their own."""

    def allow_migrate(self, db, app_label, **hints):
        return False if app_label == "mcp_tools" and db == "default" else None


def test_migrate_of_a_database_without_this_app_s_tables_syncs_nothing(settings, monkeypatch):
    # A router keeps mcp_tools in a database of its own: migrating default must not sync
    # rows (their table is not there), as Django's contenttypes does not either.
    from mcp_tools import apps
    from mcp_tools.catalog import sync

    synced = []
    monkeypatch.setattr(sync, "sync_tools", lambda *registries: synced.append(registries))
    settings.DATABASE_ROUTERS = [f"{__name__}.ElsewhereRouter"]
    apps.sync_after_migrate(sender=None, using="default")
    assert synced == []
    settings.DATABASE_ROUTERS = []
    apps.sync_after_migrate(sender=None, using="default")
    assert len(synced) == 1


@pytest.mark.urls("tests.registry_endpoint_urls")
def test_mcp_list_and_mcp_show_know_every_registry_an_endpoint_serves():
    lines = {line.split()[0]: line for line in run("mcp_list")[0].splitlines()}
    assert "GET /partner/quotes/<pk>/" in lines["partner_quote"]
    assert "todo_list" in lines  # and the default registry's
    definition = json.loads(run("mcp_show", "partner_quote")[0])
    assert definition["title"] == "A partner's quote"
    assert definition["inputSchema"]["properties"]["pk"]["type"] == "integer"


def test_a_name_two_registries_use_is_shown_as_the_default_registry_has_it(settings):
    import types

    from django.urls import include, path
    from rest_framework.decorators import api_view
    from rest_framework.response import Response

    from mcp_tools.tools.decorators import mcp_tool
    from mcp_tools.tools.registry import ToolRegistry
    from mcp_tools.views import MCPView

    other = ToolRegistry()
    view = mcp_tool("echo", registry=other, title="The other echo")(
        api_view(["GET"])(lambda request: Response())
    )
    module = types.ModuleType("clashing_registry_urls")
    module.urlpatterns = [
        path("other/echo/", view),
        path("other/mcp", MCPView.as_view(registry=other)),
        path("", include("tests.urls")),
    ]
    settings.ROOT_URLCONF = module
    lines = [line for line in run("mcp_list")[0].splitlines() if line.split()[0] == "echo"]
    assert len(lines) == 1 and "GET /t/echo/<word>/" in lines[0]  # the admin's one row
    assert "word" in json.loads(run("mcp_show", "echo")[0])["inputSchema"]["properties"]


def test_mcp_sync_refuses_a_misconfigured_registry_clearly(settings):
    import types

    from django.urls import path
    from rest_framework.response import Response
    from rest_framework.views import APIView

    from mcp_tools.tools.decorators import mcp_tool
    from mcp_tools.tools.registry import ToolRegistry
    from mcp_tools.views import MCPView

    broken = ToolRegistry()
    view = mcp_tool("bad", registry=broken, input_schema={"type": "nope"})(
        type("Bad", (APIView,), {"get": lambda self, request: Response()})
    )
    module = types.ModuleType("broken_registry_urls")
    module.urlpatterns = [
        path("bad/", view.as_view()),
        path("b/mcp", MCPView.as_view(registry=broken)),
    ]
    settings.ROOT_URLCONF = module
    rows = set(ExposedTool.objects.values_list("name", "registered"))
    with pytest.raises(CommandError, match="^Nothing synced: The input_schema of tool 'bad'"):
        run("mcp_sync")
    assert set(ExposedTool.objects.values_list("name", "registered")) == rows  # none flagged


def test_mcp_prune_deletes_old_calls_in_batches(monkeypatch):
    monkeypatch.setattr("mcp_tools.management.commands.mcp_prune.BATCH", 2)
    now = timezone.now()
    for days in (0, 10, 40, 50, 60):
        ToolCall.objects.create(tool_name="x", started_at=now - timedelta(days=days), duration_ms=1)
    out, _ = run("mcp_prune", "--days", "30")
    assert out.strip() == "Deleted 3 logged calls older than 30 days."
    assert ToolCall.objects.count() == 2
    with pytest.raises(CommandError, match="--days must be 0 or more."):
        run("mcp_prune", "--days", "-1")


@pytest.mark.parametrize("days", ["800000", "1000000000", "99999999999999999999"])
def test_mcp_prune_keeps_everything_for_more_days_than_a_date_holds(days):
    log_calls(0, 40)
    out, _ = run("mcp_prune", "--days", days, "--noinput")
    assert out.strip() == f"Deleted 0 logged calls older than {days} days."
    assert ToolCall.objects.count() == 2


def log_calls(*days_ago):
    now = timezone.now()
    for days in days_ago:
        ToolCall.objects.create(tool_name="x", started_at=now - timedelta(days=days), duration_ms=1)


@pytest.mark.parametrize(("answer", "left"), [("yes", 0), ("no", 2), ("", 2), ("y", 2)])
def test_mcp_prune_asks_before_it_empties_the_log(monkeypatch, answer, left):
    log_calls(0, 40)
    asked = []
    monkeypatch.setattr("builtins.input", lambda question: asked.append(question) or answer)
    out, _ = run("mcp_prune", "--days", "0")
    assert asked == [
        "This deletes every row of the call log (2 logged calls).\n"
        "Type 'yes' to go on, or 'no' to cancel: "
    ]
    assert ToolCall.objects.count() == left
    expected = "Deleted 2 logged calls: the call log is empty." if left == 0 else "Nothing deleted."
    assert out.strip() == expected


def test_mcp_prune_asks_whenever_no_row_would_be_left(monkeypatch):
    log_calls(40, 50)
    monkeypatch.setattr("builtins.input", lambda question: "no")
    run("mcp_prune", "--days", "30")
    assert ToolCall.objects.count() == 2


def test_mcp_prune_does_not_ask_when_rows_are_kept_or_with_noinput(monkeypatch):
    def never(question):
        raise AssertionError("asked")

    monkeypatch.setattr("builtins.input", never)
    log_calls(0, 40)
    run("mcp_prune", "--days", "30")  # one row stays: nothing to ask
    out, _ = run("mcp_prune", "--days", "0", "--noinput")
    assert out.strip() == "Deleted 1 logged call: the call log is empty."
    assert ToolCall.objects.count() == 0


def test_mcp_prune_without_a_terminal_refuses_to_empty_the_log(monkeypatch):
    def no_terminal(question):
        raise EOFError

    log_calls(40)
    monkeypatch.setattr("builtins.input", no_terminal)
    with pytest.raises(CommandError, match="nobody could be asked: pass --noinput"):
        run("mcp_prune", "--days", "0")
    assert ToolCall.objects.count() == 1


def stored_task(status="working", created_ago=60, ttl=3600, leased_for=None, **fields):
    """A task created ``created_ago`` seconds ago, kept ``ttl`` seconds, leased until
    ``leased_for`` seconds from now (negative: the lease ran out)."""
    import secrets

    from mcp_tools.models import ToolTask

    now = timezone.now()
    created = now - timedelta(seconds=created_ago)
    return ToolTask.objects.create(
        id=secrets.token_hex(16),
        tool_name="export_rows",
        caller="anonymous",
        endpoint_path="/mcp",
        protocol_version="2026-07-28",
        status=status,
        created_at=created,
        updated_at=created,
        expires_at=created + timedelta(seconds=ttl),
        leased_until=None if leased_for is None else now + timedelta(seconds=leased_for),
        worker="host:1:2" if leased_for is not None else "",
        **fields,
    )


def test_mcp_prune_fails_the_tasks_of_dead_workers_and_deletes_expired_tasks(settings):
    from mcp_tools.models import ToolTask

    settings.MCP_TOOLS = {"TASK_EXECUTOR": "tests.tasks.test_store.RecordingExecutor"}
    from tests.tasks.test_store import RecordingExecutor

    RecordingExecutor.enqueued = []
    dead = stored_task(leased_for=-5)
    alive = stored_task(leased_for=20)
    retried = stored_task(leased_for=-5, retryable=True, attempts=1)
    waiting = stored_task(status="input_required")
    expired = [stored_task(created_ago=7200), stored_task(status="completed", created_ago=7200)]
    log_calls(0)
    out, _ = run("mcp_prune", "--days", "30")
    assert out.splitlines() == [
        "Deleted 0 logged calls older than 30 days.",
        "Failed 1 task whose worker stopped, enqueued 1 again (their tools are idempotent); "
        "deleted 2 tasks past their TTL.",
    ]
    statuses = dict(ToolTask.objects.values_list("pk", "status"))
    assert statuses == {
        dead.pk: "failed",
        alive.pk: "working",
        retried.pk: "working",
        waiting.pk: "input_required",
    }
    assert "host:1:2" in ToolTask.objects.get(pk=dead.pk).error["message"]
    assert RecordingExecutor.enqueued == [retried.pk]
    assert not ToolTask.objects.filter(pk__in=[task.pk for task in expired]).exists()
    out, _ = run("mcp_prune", "--days", "30")
    assert (
        out.splitlines()[1]
        == "Failed 0 tasks whose worker stopped; deleted 0 tasks past their TTL."
    )


def test_mcp_prune_says_nothing_of_tasks_in_a_project_without_any():
    log_calls(0, 40)
    out, _ = run("mcp_prune", "--days", "30")
    assert out.strip() == "Deleted 1 logged call older than 30 days."
