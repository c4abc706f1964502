"""The call plan: what every call of a tool shares, made at its first call and kept until the
admin state or the settings change (docs/performance.md#the-call-plan)."""

import pytest
from django.core.handlers.base import BaseHandler

from mcp_tools.catalog.admin_state import catalog_for, publish
from mcp_tools.models import ExposedTool
from mcp_tools.pipeline.plans import CallPlan
from mcp_tools.tools.registry import registry
from tests.testapp.models import Entry

pytestmark = pytest.mark.django_db


def made_plans(monkeypatch):
    """Record every plan made from now on, by tool name."""
    made = []
    original = CallPlan.__init__

    def recording(self, tool):
        made.append(tool.name)
        original(self, tool)

    monkeypatch.setattr(CallPlan, "__init__", recording)
    return made


def test_a_tools_calls_share_one_plan_made_at_its_first_call(mcp, monkeypatch):
    made = made_plans(monkeypatch)
    for _ in range(3):
        assert mcp.call_tool("echo", {"word": "hi"})["isError"] is False
    assert made == ["echo"]
    plan = catalog_for(registry.tools()).plan(registry.get_tool("echo"))
    assert made == ["echo"] and plan.tool.name == "echo"


def test_an_admin_change_makes_the_plan_again_with_the_tool_as_admins_see_it(mcp, monkeypatch):
    made = made_plans(monkeypatch)
    mcp.call_tool("echo", {"word": "hi"})
    ExposedTool.objects.filter(name="echo").update(title="Echo, retitled")
    publish()  # a new version of the admin state: a new catalog, new plans
    mcp.call_tool("echo", {"word": "hi"})
    assert made == ["echo", "echo"]
    tool = registry.get_tool("echo")
    assert catalog_for(registry.tools()).plan(tool).tool.title == "Echo, retitled"


def test_a_settings_change_makes_the_plan_again(mcp, settings, monkeypatch):
    made = made_plans(monkeypatch)
    mcp.call_tool("echo", {"word": "hi"})
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CONFIRM_DESTRUCTIVE": False}
    mcp.call_tool("echo", {"word": "hi"})
    assert made == ["echo", "echo"]


def test_a_new_script_name_makes_the_request_template_again(mcp, settings):
    # The template is kept with the script name the /mcp request carries, which
    # FORCE_SCRIPT_NAME gives: another one makes it again.
    assert mcp.call_tool("greet_post")["isError"] is False
    plan = catalog_for(registry.tools()).plan(registry.get_tool("greet_post"))
    assert plan.request_template is not None
    assert plan.request_template.attributes["path"] == "/t/greet/"
    settings.FORCE_SCRIPT_NAME = "/site"
    mcp.call_tool("greet_post")
    assert catalog_for(registry.tools()).plan(registry.get_tool("greet_post")) is plan
    assert plan.request_template.attributes["path"] == "/site/t/greet/"


def test_the_plans_view_is_wrapped_once_for_atomic_requests(atomic_requests, mcp, monkeypatch):
    wrapped = []
    original = BaseHandler.make_view_atomic

    def counting(self, view):
        wrapped.append(view)
        return original(self, view)

    monkeypatch.setattr(BaseHandler, "make_view_atomic", counting)
    for label in ("one", "two", "three"):
        result = mcp.call_tool("entry_write", {"label": label})
        # Each call in its own outermost transaction, as Django's handler runs the view.
        assert result["structuredContent"]["atomic"] is True
    # Django's handler wraps the /mcp view for each request; the tool's view was wrapped once.
    view = registry.get_tool("entry_write").route.callback
    assert [each for each in wrapped if each is view] == [view]
    assert Entry.objects.count() == 3


def test_a_call_without_arguments_reads_the_plans_split_and_never_writes_it(mcp):
    assert CallPlan(registry.get_tool("echo")).unargued is None  # echo needs its word
    plan = catalog_for(registry.tools()).plan(registry.get_tool("greet_post"))
    assert plan.unargued is not None
    assert (plan.unargued.path, plan.unargued.query, plan.unargued.body) == ({}, {}, {})
    for _ in range(2):
        assert mcp.call_tool("greet_post")["isError"] is False
    assert (plan.unargued.path, plan.unargued.query, plan.unargued.body) == ({}, {}, {})
