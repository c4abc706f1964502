"""A pytest-django session of one streamed call on PostgreSQL (run by
tests/endpoint/test_call_threads.py, never collected on its own: its name is not test_*)."""

import pytest

from tests.wire import sse_messages


@pytest.mark.django_db(transaction=True)
def test_a_streamed_call_that_writes(mcp):
    request = mcp.message(
        "tools/call",
        {"name": "entry_write", "arguments": {"label": "x"}, "_meta": {"progressToken": 1}},
    )
    response = mcp.send(request)
    messages = sse_messages(b"".join(response.streaming_content))
    assert messages[-1]["result"]["isError"] is False, messages
