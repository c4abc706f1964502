"""``MAX_TASKS_PER_CALLER``: whose room a task takes (docs/tasks.md#limits).

An authenticated caller's tasks count against the caller; an anonymous caller's against its
client address, as DRF's throttles read it, so that one anonymous client can't take every
other's room. In 2026-07-28, where the server decides, an optional task tool's call runs
inline once the room is full.
"""

import pytest
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool
from mcp_tools.models import ToolTask
from mcp_tools.tasks import runs
from mcp_tools.tasks import store as tasks
from mcp_tools.test import MCPClient, MCPError
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView
from tests.helpers import MODERN
from tests.tasks.test_store import EXTENSION, RecordingExecutor

pytestmark = pytest.mark.django_db

OPEN = ToolRegistry()


class OpenReportView(APIView):
    """Report that the work is done, for anyone."""

    permission_classes = [AllowAny]

    @mcp_tool("open_report", task="optional", registry=OPEN)
    def post(self, request):
        return Response({"done": True})


urlpatterns = [
    path("k/open/", OpenReportView.as_view()),
    path("mcp", MCPView.as_view(registry=OPEN, permission_classes=[AllowAny])),
]


@pytest.fixture(autouse=True)
def open_project(settings):
    settings.ROOT_URLCONF = __name__
    settings.MCP_TOOLS = {
        "TASK_EXECUTOR": "tests.tasks.test_store.RecordingExecutor",
        "TASK_IMMEDIATE_SECONDS": 0,
        "MAX_TASKS_PER_CALLER": 2,
    }
    RecordingExecutor.enqueued = []
    tasks._executors.clear()
    yield
    tasks._executors.clear()


def anonymous(address, version="2025-11-25"):
    """An anonymous client at ``address`` (never dialled: the test client sets it)."""
    capabilities = {"tasks": {}} if version == "2025-11-25" else EXTENSION
    return MCPClient(
        mcp_path="/mcp",
        protocol_version=version,
        client_capabilities=capabilities,
        REMOTE_ADDR=address,
    )


def ask_task(client):
    params = {"name": "open_report", "arguments": {}, "task": {"ttl": 60_000}}
    return client.rpc("tools/call", params)


def test_one_anonymous_client_does_not_take_another_ones_room():
    first, second = anonymous("127.0.0.2"), anonymous("127.0.0.3")
    ask_task(first)
    ask_task(first)
    with pytest.raises(MCPError) as refused:
        ask_task(first)
    assert refused.value.code == -32602 and "MAX_TASKS_PER_CALLER" in refused.value.message
    assert ask_task(second)["task"]["status"] == "working"
    quotas = sorted(ToolTask.objects.values_list("quota", flat=True))
    assert quotas == ["anonymous@127.0.0.2"] * 2 + ["anonymous@127.0.0.3"]


def test_an_anonymous_task_stays_its_clients_when_its_address_changes():
    """The quota is keyed by address; the task is found by its id (docs/tasks.md: an
    anonymous task is anyone's who holds its id), so a mobile client keeps its own."""
    task_id = ask_task(anonymous("127.0.0.2"))["task"]["taskId"]
    moved = anonymous("127.0.0.9")
    assert moved.rpc("tasks/get", {"taskId": task_id})["taskId"] == task_id


def test_a_full_room_runs_an_optional_task_inline_in_2026_07_28():
    first = anonymous("127.0.0.2")
    ask_task(first)
    ask_task(first)
    modern = anonymous("127.0.0.2", version=MODERN)
    answered = modern.call_tool("open_report", {})
    assert answered["resultType"] == "complete"
    assert answered["structuredContent"] == {"done": True}
    assert ToolTask.objects.count() == 2  # no third row
    assert modern.call_tool("open_report", {})["isError"] is False
    roomy = anonymous("127.0.0.3", version=MODERN)
    assert roomy.call_tool("open_report", {})["resultType"] == "task"


def test_anonymous_clients_each_keep_bytes_in_their_own_room(settings):
    """MAX_TASK_BYTES_PER_CALLER counts against the same key: an anonymous client's address."""
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_TASK_BYTES_PER_CALLER": 180}
    first, second = anonymous("127.0.0.2"), anonymous("127.0.0.3")

    task_id = ask_task(first)["task"]["taskId"]
    runs.run(task_id)
    assert 150 < ToolTask.objects.get(pk=task_id).size < 180  # its call and its result
    with pytest.raises(MCPError) as refused:
        ask_task(first)
    assert refused.value.code == -32602 and "MAX_TASK_BYTES_PER_CALLER" in refused.value.message
    assert ask_task(second)["task"]["status"] == "working"
