"""Each tool call runs under the transaction rules Django would apply to its view."""

import pytest

from mcp_tools.views import MCPView
from tests.testapp.models import Entry

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_successful_write_persists_in_its_own_outermost_transaction(atomic_requests, mcp):
    result = mcp.call_tool("entry_write", {"label": "kept"})
    assert result["isError"] is False
    # The /mcp view is not atomic itself: the view's block is the outermost, not a savepoint.
    assert result["structuredContent"] == {"count": 1, "atomic": True, "savepoints": 0}
    assert list(Entry.objects.values_list("label", flat=True)) == ["kept"]


def test_a_write_is_rolled_back_when_the_view_raises_after_it(atomic_requests, mcp, http):
    result = mcp.call_tool("entry_write", {"label": "lost", "fail": True})
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": "Internal server error"}]
    assert Entry.objects.count() == 0
    # The same as Django does for a direct HTTP call (its 500, not the view's exception).
    http.raise_request_exception = False
    assert (
        http.post(
            "/t/entries/", {"label": "lost", "fail": True}, content_type="application/json"
        ).status_code
        == 500
    )
    assert Entry.objects.count() == 0


def test_non_atomic_requests_is_honoured(atomic_requests, mcp):
    result = mcp.call_tool("entry_write_non_atomic", {"label": "kept", "fail": True})
    assert result["isError"] is True
    assert Entry.objects.count() == 1


def test_without_atomic_requests_a_write_before_a_failure_stays(mcp):
    mcp.call_tool("entry_write", {"label": "kept", "fail": True})
    assert Entry.objects.count() == 1


def test_the_endpoint_is_non_atomic_for_every_database():
    view = MCPView.as_view()
    assert "default" in view._non_atomic_requests
    assert "any-other-alias" in view._non_atomic_requests
