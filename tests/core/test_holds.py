"""The process's budget of held streams: MAX_STREAMS in all, MAX_STREAMS_PER_CALLER each."""

from __future__ import annotations

import os

import pytest

from mcp_tools.core.holds import Holds, NoRoom, holds


def test_a_caller_holds_its_share_and_another_caller_still_holds_one(settings):
    settings.MCP_TOOLS = {"MAX_STREAMS": 3, "MAX_STREAMS_PER_CALLER": 2}
    budget = Holds()
    budget.acquire("alice")
    budget.acquire("alice")
    with pytest.raises(NoRoom) as refused:
        budget.acquire("alice")
    assert (refused.value.setting, refused.value.limit) == ("MAX_STREAMS_PER_CALLER", 2)
    budget.acquire("bob")
    with pytest.raises(NoRoom) as refused:
        budget.acquire("carol")  # the process's budget is spent
    assert (refused.value.setting, refused.value.limit) == ("MAX_STREAMS", 3)
    assert (budget.held(), budget.held("alice"), budget.held("carol")) == (3, 2, 0)
    budget.release("alice")
    budget.acquire("carol")
    assert budget.held("carol") == 1


def test_a_hold_is_given_back_however_its_block_ends(settings):
    settings.MCP_TOOLS = {"MAX_STREAMS": 1}
    budget = Holds()
    with pytest.raises(RuntimeError), budget.hold("alice"):
        assert budget.held("alice") == 1
        raise RuntimeError("the client left")
    assert budget.held() == 0
    with budget.hold("alice"):
        with pytest.raises(NoRoom), budget.hold("bob"):
            pass  # never runs: nothing is held past the budget
        assert budget.held() == 1
    assert budget.held() == 0


@pytest.mark.parametrize(
    ("config", "held"),
    [
        ({"MAX_STREAMS": 0}, 0),  # no stream is held: every ask is refused
        ({"MAX_STREAMS": 5, "MAX_STREAMS_PER_CALLER": None}, 5),  # no share: the total
        ({}, 4),  # the defaults: 32 in all, 4 per caller
    ],
)
def test_how_many_one_caller_may_hold(settings, config, held):
    settings.MCP_TOOLS = config
    budget = Holds()
    for _ in range(held):
        budget.acquire("alice")
    with pytest.raises(NoRoom):
        budget.acquire("alice")


def test_a_forked_child_holds_nothing_of_its_parent_s(settings):
    settings.MCP_TOOLS = {"MAX_STREAMS": 1}
    with holds.hold("alice"):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its parent's hold is not its own
            os.write(write, str(holds.held()).encode())
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(read, 10) == b"0"
        os.close(read)
        os.close(write)
