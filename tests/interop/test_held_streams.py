"""Silent askers against gunicorn (gthread), through the official Python SDK (2025-11-25):
a caller holds at most its share of the process's held streams, the next ask is refused at
once, and another client is still served while the share is held
(docs/deployment.md#held-streams)."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.conformance_app.server import serve
from tests.sdk import connect

pytestmark = pytest.mark.e2e

#: MAX_STREAMS_PER_CALLER: every client here is the same anonymous caller, 127.0.0.1.
SHARE = 2
BUSY = (
    "This tool asked the user for input, and this server already holds as many unanswered "
    f"questions as it allows (MAX_STREAMS_PER_CALLER: {SHARE}); try again once one is answered"
)


@pytest.fixture
def url():
    # One worker of four threads; at most three streams, so one thread is always left.
    env = {"MCP_TOOLS_MAX_STREAMS": "3", "MCP_TOOLS_MAX_STREAMS_PER_CALLER": str(SHARE)}
    with serve("gunicorn", env=env, workers=1, threads=4) as base:
        yield f"{base}/mcp"


async def silent_askers(url: str) -> tuple[object, float, object, float]:
    """Hold SHARE asks unanswered; return the next asker's result and how long it took,
    then another client's ``tools/list`` and how long that took."""
    asked: asyncio.Queue[str] = asyncio.Queue()

    async def silent(context, params):
        await asked.put(params.message)
        await asyncio.Event().wait()  # a user who never answers

    async def ask():
        async with connect(url, mode="legacy", elicitation_callback=silent) as client:
            return await client.call_tool("test_streaming_elicitation", {})

    holding = [asyncio.create_task(ask()) for _ in range(SHARE)]
    try:
        for _ in range(SHARE):
            await asyncio.wait_for(asked.get(), 30)  # each question is out, unanswered
        started = time.monotonic()
        refused = await asyncio.wait_for(ask(), 10)  # held (and timed out) without the bound
        refused_in = time.monotonic() - started
        async with connect(url, mode="legacy") as other:
            started = time.monotonic()
            listed = await other.list_tools()
            listed_in = time.monotonic() - started
    finally:
        for task in holding:
            task.cancel()
        await asyncio.gather(*holding, return_exceptions=True)
    return refused, refused_in, listed, listed_in


def test_past_its_share_a_silent_asker_is_refused_at_once_and_others_are_served(url):
    refused, refused_in, listed, listed_in = asyncio.run(silent_askers(url))
    assert refused.is_error
    assert [block.text for block in refused.content] == [BUSY]
    assert refused_in < 2  # its initialize and its call: nothing waited
    assert any(tool.name == "test_streaming_elicitation" for tool in listed.tools)
    assert listed_in < 1
