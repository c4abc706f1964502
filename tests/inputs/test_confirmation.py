"""``@mcp_tool(confirm=...)`` and ``CONFIRM_DESTRUCTIVE``: ask the user before the view runs."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from mcp_tools import mcp_tool
from mcp_tools.inputs.asks import CONFIRM_KEY, confirmation_message
from mcp_tools.tools.registry import ToolRegistry
from tests.inputs.test_asks import client_for, result, texts
from tests.testapp.models import Entry

pytestmark = pytest.mark.django_db

CONFIRM_FORM = {"type": "object", "properties": {}}


@pytest.fixture
def entry():
    return Entry.objects.create(label="keep me?")


@pytest.fixture
def asking(alice):
    return client_for(alice, {"elicitation": {}})


def test_the_view_never_runs_until_the_user_accepts(asking, entry):
    first = result(asking, "entry_remove", {"pk": entry.pk})
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {
        CONFIRM_KEY: {
            "method": "elicitation/create",
            "params": {
                # The decorator's message, formatted with the arguments; {missing} stays.
                "message": f"Remove entry {entry.pk} ({{missing}})?",
                "requestedSchema": CONFIRM_FORM,
            },
        }
    }
    assert Entry.objects.filter(pk=entry.pk).exists()
    done = result(
        asking,
        "entry_remove",
        {"pk": entry.pk},
        inputResponses={CONFIRM_KEY: {"action": "accept"}},
        requestState=first["requestState"],
    )
    assert done["structuredContent"] == {"deleted": 1}
    assert not Entry.objects.filter(pk=entry.pk).exists()


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_or_cancelled_confirmation_is_cancelled_by_the_user(asking, entry, action):
    first = result(asking, "entry_remove", {"pk": entry.pk})
    done = result(
        asking,
        "entry_remove",
        {"pk": entry.pk},
        inputResponses={CONFIRM_KEY: {"action": action}},
        requestState=first["requestState"],
    )
    assert done["isError"] is True
    assert texts(done) == ["Cancelled by the user"]
    assert Entry.objects.filter(pk=entry.pk).exists()


def test_a_client_that_cannot_elicit_is_refused_unless_confirm_unaskable_says_run(alice, entry):
    client = client_for(alice, {"sampling": {}})
    refused = result(client, "entry_remove", {"pk": entry.pk})
    assert refused["isError"] is True
    assert texts(refused) == [
        "This tool needs the user's confirmation, which this client cannot ask for"
    ]
    assert Entry.objects.filter(pk=entry.pk).exists()
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "CONFIRM_UNASKABLE": "run"}):
        done = result(client, "entry_remove", {"pk": entry.pk})
    assert done["structuredContent"] == {"deleted": 1}


def test_the_default_message_names_the_tool_and_the_confirmation_is_carried(asking):
    first = result(asking, "ask_confirmed")
    assert first["inputRequests"][CONFIRM_KEY]["params"]["message"] == "Run ask_confirmed?"
    second = result(
        asking,
        "ask_confirmed",
        inputResponses={CONFIRM_KEY: {"action": "accept"}},
        requestState=first["requestState"],
    )
    # Confirmed: now the view itself asks; the retry need not confirm again.
    assert list(second["inputRequests"]) == ["name"]
    done = result(
        asking,
        "ask_confirmed",
        inputResponses={"name": {"action": "accept", "content": {"name": "Ann"}}},
        requestState=second["requestState"],
    )
    assert done["structuredContent"] == {"name": "Ann"}


def test_confirm_destructive_asks_before_every_destructive_tool_but_those_that_opt_out(asking):
    assert result(asking, "entry_purge")["resultType"] == "complete"
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "CONFIRM_DESTRUCTIVE": True}):
        purge = result(asking, "entry_purge")
        assert purge["inputRequests"][CONFIRM_KEY]["params"]["message"] == "Run entry_purge?"
        assert result(asking, "entry_trim")["resultType"] == "complete"  # confirm=False
        assert result(asking, "greet_get")["resultType"] == "complete"  # GET: not destructive


def test_an_admin_annotation_override_decides_what_is_destructive(asking):
    from mcp_tools.models import ExposedTool

    ExposedTool.objects.update_or_create(
        name="entry_purge", defaults={"annotations": {"destructiveHint": False}}
    )
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "CONFIRM_DESTRUCTIVE": True}):
        assert result(asking, "entry_purge")["resultType"] == "complete"


def test_the_default_message_shows_each_argument_bounded():
    class Named:
        name = "todo_destroy"

    assert confirmation_message("", Named, {}) == "Run todo_destroy?"
    assert confirmation_message("", Named, {"pk": 3, "why": "done"}) == (
        'Run todo_destroy with pk=3, why="done"?'
    )
    long = confirmation_message("", Named, {"text": "x" * 500})
    assert long.endswith("…?") and len(long) < 260
    # A template that can't be formatted with these arguments is shown as written.
    assert confirmation_message("Delete {pk:d}?", Named, {"pk": "three"}) == "Delete {pk:d}?"


@pytest.mark.parametrize("value", [3, "", "   ", ["yes"], "Delete {pk"])
def test_confirm_takes_true_false_or_a_message(value):
    with pytest.raises(ImproperlyConfigured, match="confirm"):
        mcp_tool("x", confirm=value, registry=ToolRegistry())


# An accepted confirmation runs the view once -------------------------------------------------

ACCEPT = {CONFIRM_KEY: {"action": "accept"}}
ANN = {"name": {"action": "accept", "content": {"name": "Ann"}}}


def confirmed_round(asking):
    """Ask ask_then_act's confirmation and accept it: return the round that asks the name."""
    first = result(asking, "ask_then_act")
    second = result(
        asking, "ask_then_act", inputResponses=ACCEPT, requestState=first["requestState"]
    )
    assert list(second["inputRequests"]) == ["name"]
    return first, second


def test_a_replayed_round_after_the_confirmation_acts_once(asking):
    _, second = confirmed_round(asking)
    answers = {"inputResponses": ANN, "requestState": second["requestState"]}
    assert result(asking, "ask_then_act", **answers)["structuredContent"] == {"entries": 1}
    for _ in range(3):  # the same state, within INPUT_STATE_MAX_AGE: the user is asked again
        again = result(asking, "ask_then_act", **answers)
        assert list(again["inputRequests"]) == [CONFIRM_KEY]
    assert Entry.objects.count() == 1


def test_a_replayed_acceptance_branches_into_one_run(asking):
    first, second = confirmed_round(asking)
    # Accepting the first round's question again gives another name round ...
    branch = result(
        asking, "ask_then_act", inputResponses=ACCEPT, requestState=first["requestState"]
    )
    assert list(branch["inputRequests"]) == ["name"]
    for state in (second["requestState"], branch["requestState"]):
        result(asking, "ask_then_act", inputResponses=ANN, requestState=state)
    # ... but the one acceptance ran the view to its end once.
    assert Entry.objects.count() == 1


def test_a_later_decline_overrides_the_acceptance_the_state_carries(asking):
    _, second = confirmed_round(asking)
    declined = result(
        asking,
        "ask_then_act",
        inputResponses={**ANN, CONFIRM_KEY: {"action": "decline"}},
        requestState=second["requestState"],
    )
    assert texts(declined) == ["Cancelled by the user"]
    assert Entry.objects.count() == 0


def test_an_unsolicited_acceptance_is_no_confirmation(asking, entry):
    # Never asked: the accept in the first call's inputResponses is ignored, the user asked.
    unasked = result(asking, "entry_remove", {"pk": entry.pk}, inputResponses=ACCEPT)
    assert list(unasked["inputRequests"]) == [CONFIRM_KEY]
    assert Entry.objects.filter(pk=entry.pk).exists()


def test_an_acceptance_older_than_a_states_lifetime_is_asked_again(alice):
    # A fresh state may carry an acceptance from many rounds ago: past INPUT_STATE_MAX_AGE
    # from its question, no state that asked it is alive, and no hold remembers it.
    import time

    from mcp_tools.auth.caller import Caller
    from mcp_tools.inputs.asks import receive
    from mcp_tools.inputs.request_state import Binding, Confirmation, issue

    binding = Binding.of("ask_then_act", {}, Caller(alice, None, ()))
    for age, kept in ((10.0, True), (901.0, False)):  # INPUT_STATE_MAX_AGE: 900 s
        old = Confirmation("asked-long-ago", time.time() - age)
        state = issue(binding, {**ACCEPT}, ["name"], old)
        inputs = receive({"requestState": state}, {"elicitation": {}}, binding)
        assert (CONFIRM_KEY in inputs.answers) is kept
        assert (inputs.confirmation == old) is kept


def test_the_demo_refuses_an_unaskable_confirmation_unless_told_to_run_it(monkeypatch):
    import importlib

    import demo_project.settings as demo

    try:
        monkeypatch.delenv("DEMO_CONFIRM_UNASKABLE", raising=False)
        assert importlib.reload(demo).MCP_TOOLS["CONFIRM_UNASKABLE"] == "refuse"
        monkeypatch.setenv("DEMO_CONFIRM_UNASKABLE", "run")
        assert importlib.reload(demo).MCP_TOOLS["CONFIRM_UNASKABLE"] == "run"
    finally:
        monkeypatch.delenv("DEMO_CONFIRM_UNASKABLE", raising=False)
        importlib.reload(demo)
