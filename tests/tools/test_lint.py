"""``mcp_lint``: six components scored per tool, each smell named with a hint, and an exit
status for CI."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import path
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.lint import COMPONENTS, definition_tokens, lint_tool
from mcp_tools.tools.registry import ToolRegistry
from tests.tools.test_registry import urlconf


class Body(serializers.Serializer):
    code = serializers.CharField(help_text="The code to run.")
    level = serializers.IntegerField(required=False)


def one_tool(description=None, **attributes):
    registry = ToolRegistry()
    view = type("Runner", (APIView,), {"post": lambda self, request: Response(), **attributes})
    mcp_tool(registry=registry, description=description)(view)
    (tool,) = registry.tools(urlconf(path("run/", view.as_view(), name="run")))
    return tool


def smells(tool, definition=None):
    return {smell.code: smell for smell in lint_tool(tool, definition).smells}


def test_a_bare_definition_smells_on_every_component():
    tool = one_tool(description="Run", permission_classes=[permissions.IsAdminUser])
    definition = {
        **tool.definition(),
        "inputSchema": {
            "type": "object",
            "properties": {"code": {"type": "string"}},
            "required": ["code"],
        },
    }
    report = lint_tool(tool, definition)
    assert {smell.code: smell.component for smell in report.smells} == {
        "unclear-purpose": "purpose",
        "undescribed-parameter": "parameters",
        "no-usage": "usage",
        "unstated-limitations": "limitations",
        "too-short": "length",
        "no-return": "length",
        "no-examples": "examples",
    }
    assert all(smell.hint for smell in report.smells)
    assert report.scores == {
        "purpose": 0,
        "usage": 0,
        "limitations": 0,
        "parameters": 0,
        "length": 0,
        "examples": 1,
    }
    assert set(report.scores) == set(COMPONENTS)


def test_a_generated_definition_has_no_smell_above_info():
    tool = one_tool(
        serializer_class=Body,
        __doc__="Run a piece of code in the sandbox: returns what it printed.",
        permission_classes=[permissions.IsAdminUser],
    )
    found = smells(tool)
    assert [(code, smell.level) for code, smell in found.items()] == [("no-examples", "info")]
    assert lint_tool(tool).score == 11


def test_an_example_in_the_description_counts():
    tool = one_tool(
        serializer_class=Body,
        __doc__='Run a piece of code: returns its output. For example {"code": "print(1)"}.',
    )
    assert smells(tool) == {}


def test_definition_tokens_are_characters_over_four():
    assert definition_tokens({"name": "abcdefgh"}) == round(len('{"name":"abcdefgh"}') / 4)


@pytest.fixture
def smelly(settings):
    registry = ToolRegistry()

    @mcp_tool(registry=registry, description="Run it")
    class Runner(APIView):
        def get(self, request):
            return Response()

    settings.ROOT_URLCONF = urlconf(path("run/", Runner.as_view(), name="run"))
    return registry


def run_lint(monkeypatch, registry, *args):
    monkeypatch.setattr(
        "mcp_tools.management.commands.mcp_lint.served_registries", lambda: [registry]
    )
    out = io.StringIO()
    call_command("mcp_lint", *args, stdout=out)
    return out.getvalue()


def test_the_command_prints_scores_smells_hints_and_sizes(monkeypatch, smelly):
    text = run_lint(monkeypatch, smelly)
    lines = text.splitlines()
    assert lines[0].startswith("run: ")
    assert "  error unclear-purpose: the description does not say what the tool does" in lines
    assert any(line.startswith("    Hint: ") for line in lines)
    # unclear-purpose, then unstated-limitations (IsAuthenticated), too-short and no-return.
    assert lines[-1].startswith("1 tools, 4 smells at warning or above; definitions average ")
    assert "counted as characters / 4" in lines[-1]


def test_the_command_fails_at_its_fail_level(monkeypatch, smelly):
    run_lint(monkeypatch, smelly)  # no --fail-level: smells are reported, the exit is 0
    with pytest.raises(CommandError, match="^1 smells at error or above.$"):
        run_lint(monkeypatch, smelly, "--fail-level", "error")


def test_a_clean_project_passes_its_fail_level(monkeypatch, settings):
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class Runner(APIView):
        """Run a piece of code in the sandbox: returns what it printed."""

        def get(self, request):
            return Response()

    settings.ROOT_URLCONF = urlconf(path("run/", Runner.as_view(), name="run"))
    assert "0 smells at warning" in run_lint(monkeypatch, registry, "--fail-level", "warning")


def test_the_level_hides_the_smells_below_it(monkeypatch, smelly):
    assert "warning" not in run_lint(monkeypatch, smelly, "--level", "error").replace(
        "smells at error", ""
    )
