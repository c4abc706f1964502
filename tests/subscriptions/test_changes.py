"""What a new admin state changed, and who hears of it (``subscriptions.changes``,
``subscriptions.listeners``); a resource's stamp and ``updated_by``
(``resources.stamps``)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from demo_project.todos.models import Todo
from mcp_tools.catalog.admin_state import Rule
from mcp_tools.core import broadcast
from mcp_tools.models import ExposedResource, ExposedTool, Prompt, Toolset
from mcp_tools.resources.stamps import read_stamps, resource_updated, updated_by
from mcp_tools.subscriptions.changes import Change, diff, snapshot
from mcp_tools.subscriptions.listeners import Audience, Listener


def changed_kinds(old, new):
    return {change.kind: set(change.rules) for change in diff(old, new)}


@pytest.mark.django_db
def test_a_snapshot_differs_by_kind_and_by_name():
    ExposedTool.objects.create(name="one")
    ExposedResource.objects.create(name="res")
    before = snapshot("v1")
    assert diff(before, snapshot("v1b")) == []  # the same rows: nothing changed
    ExposedTool.objects.filter(name="one").update(enabled=False)
    Prompt.objects.create(name="plan", messages=[{"role": "user", "content": "x"}])
    after = snapshot("v2")
    assert changed_kinds(before, after) == {"tools": {"one"}, "prompts": {"plan"}}
    tools = next(change for change in diff(before, after) if change.kind == "tools")
    assert tools.rules["one"] == (Rule(), Rule(enabled=False))


@pytest.mark.django_db
def test_a_prompts_wording_and_a_toolsets_tools_are_changes_too():
    prompt = Prompt.objects.create(name="plan", messages=[{"role": "user", "content": "x"}])
    tool = ExposedTool.objects.create(name="one")
    toolset = Toolset.objects.create(name="set")
    before = snapshot("v1")
    prompt.description = "Plans a day"
    prompt.save()
    toolset.tools.add(tool)
    found = {change.kind: change for change in diff(before, snapshot("v2"))}
    assert set(found["prompts"].rules) == {"plan"}
    assert found["tools"].toolsets and not found["tools"].rules


def test_an_audience_hears_what_it_may_see_before_or_after():
    staff = 7
    alice = Audience(group_ids=frozenset(), kinds=frozenset({"tools", "prompts"}))
    member = Audience(group_ids=frozenset({staff}), kinds=frozenset({"tools"}))
    for_staff = Rule(group_ids=frozenset({staff}))
    hidden_then_shown = Change("tools", {"x": (Rule(enabled=False), Rule())})
    staff_only = Change("tools", {"x": (for_staff, Rule(enabled=False, group_ids={staff}))})
    assert alice.sees(hidden_then_shown) and member.sees(hidden_then_shown)
    assert not alice.sees(staff_only) and member.sees(staff_only)
    # A kind the endpoint does not serve, a tool it does not serve.
    assert not member.sees(Change("prompts", {"p": (None, Rule())}))
    tagged = Audience(frozenset(), frozenset({"tools"}), tools=frozenset({"y"}))
    assert not tagged.sees(hidden_then_shown)
    toolset = Audience(frozenset(), frozenset({"tools"}), tools=frozenset(), toolset=True)
    assert toolset.sees(Change("tools", {}, toolsets=True))
    assert not alice.sees(Change("tools", {}, toolsets=True))


def test_a_listener_hears_an_update_once_per_stamp_of_what_it_follows():
    sent = []
    listener = Listener(
        Audience(frozenset(), frozenset({"resources"})),
        frozenset(),
        lambda method, params: sent.append((method, params)) or True,
        {"a://1": None},
    )
    listener.updated("a://2", "s1")  # not followed
    listener.updated("a://1", None)  # the stamp it saw
    listener.updated("a://1", "s1")
    listener.updated("a://1", "s1")  # the same stamp again: heard already
    assert sent == [("notifications/resources/updated", {"uri": "a://1"})]
    listener.follow({"a://1": "s2", "a://3": None})  # a subscriber's set read again
    assert listener.stamps == {"a://1": "s1", "a://3": None}


@pytest.mark.django_db(transaction=True)
def test_resource_updated_stamps_after_the_commit_and_tells_this_process():
    heard = []
    broadcast.on_message(heard.append)
    try:
        before = read_stamps(["todo://1"])["todo://1"]
        from django.db import transaction

        with transaction.atomic():
            resource_updated("todo://1")
            assert read_stamps(["todo://1"])["todo://1"] == before  # not before the commit
        after = read_stamps(["todo://1"])["todo://1"]
        assert after is not None and after != before
        assert heard[-1] == {"uri": "todo://1", "stamp": after}
    finally:
        broadcast._local.remove(heard.append)
    with pytest.raises(TypeError, match="must be a string"):
        resource_updated(1)


@pytest.mark.django_db(transaction=True)
def test_updated_by_stamps_a_models_rows_on_save_and_delete(django_user_model):
    owner = django_user_model.objects.create_user("owner")
    undo = updated_by(Todo, "todo://{pk}", lambda todo: [f"owner://{todo.owner_id}/todos"])
    try:
        todo = Todo.objects.create(owner=owner, title="Tea")
        uris = [f"todo://{todo.pk}", f"owner://{owner.pk}/todos"]
        first = read_stamps(uris)
        assert all(first.values())
        todo.delete()
        second = read_stamps(uris)
        assert all(second[uri] != first[uri] for uri in uris)
    finally:
        undo()
    Todo.objects.create(owner=owner, title="Cake")  # undone: the owner's list stays put
    assert read_stamps(uris[1:]) == {uris[1]: second[uris[1]]}
    with pytest.raises(TypeError, match="has no field nope"):
        updated_by(Todo, "todo://{nope}")
    with pytest.raises(TypeError, match="at least one"):
        updated_by(Todo)


@pytest.mark.django_db
def test_a_groups_change_is_one_of_the_rule(django_user_model):
    staff = Group.objects.create(name="staff")
    ExposedTool.objects.create(name="one")
    before = snapshot("v1")
    ExposedTool.objects.get(name="one").allowed_groups.add(staff)
    (change,) = diff(before, snapshot("v2"))
    assert change.rules["one"][1].group_ids == frozenset({staff.pk})
