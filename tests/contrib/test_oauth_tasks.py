"""Tasks and input rounds under django-oauth-toolkit's scoped tokens (docs/tasks.md).

A task's view reads ``request.auth`` (``TokenHasScope``) in the worker as it would inline;
an access token revoked or expired before the worker runs fails the task. A task, and a
``requestState``, made with a token is read only with a token of at least its scopes: a
refreshed token of the same grant carries on, a weaker token of the same user does not.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import path
from django.utils import timezone
from oauth2_provider.contrib.rest_framework.permissions import TokenHasScope
from oauth2_provider.models import get_access_token_model
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import elicit, mcp_tool
from mcp_tools.contrib.oauth.authentication import OAuth2ResourceAuthentication
from mcp_tools.models import ToolTask
from mcp_tools.tasks import store as tasks
from mcp_tools.test import MCPClient, MCPError
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView
from tests.contrib.conftest import RESOURCE
from tests.helpers import MODERN
from tests.tasks.test_store import EXTENSION, RecordingExecutor, run_enqueued

pytestmark = pytest.mark.django_db

LEGACY = "2025-11-25"
BOTH = "notes:read notes:write"
FORMAT_FORM = {"type": "object", "properties": {"format": {"type": "string"}}}

registry = ToolRegistry()


class NotesExportView(APIView):
    """Export the notes, as a task (scope notes:read): names the token's scopes."""

    authentication_classes = [OAuth2ResourceAuthentication]
    permission_classes = [TokenHasScope]
    required_scopes = ["notes:read"]

    @mcp_tool("notes_export", task="optional", registry=registry)
    def post(self, request):
        return Response({"user": request.user.username, "scope": request.auth.scope})


class NotesFormatView(APIView):
    """Ask which format, then name it (scope notes:read)."""

    authentication_classes = [OAuth2ResourceAuthentication]
    permission_classes = [TokenHasScope]
    required_scopes = ["notes:read"]

    @mcp_tool("notes_format", task="optional", registry=registry)
    def post(self, request):
        answer = elicit(request, "format", "Which format?", FORMAT_FORM)
        return Response({"format": answer["content"]["format"], "scope": request.auth.scope})


urlpatterns = [
    path("t/export", NotesExportView.as_view()),
    path("t/format", NotesFormatView.as_view()),
    path(
        "mcp",
        MCPView.as_view(
            registry=registry,
            authentication_classes=[OAuth2ResourceAuthentication],
            permission_classes=[IsAuthenticated],
        ),
    ),
]


@pytest.fixture(autouse=True)
def oauth_tasks(settings):
    settings.ROOT_URLCONF = __name__
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "OAUTH_AUTHORIZATION_SERVERS": ["/"],
        "PUBLIC_URL": RESOURCE,
        "TASK_EXECUTOR": "tests.tasks.test_store.RecordingExecutor",
        "TASK_IMMEDIATE_SECONDS": 0,
    }
    RecordingExecutor.enqueued = []
    tasks._executors.clear()
    yield
    tasks._executors.clear()


def agent(token, version=MODERN, capabilities=None):
    if capabilities is None:
        capabilities = {**EXTENSION} if version == MODERN else {"tasks": {}, "elicitation": {}}
    return MCPClient(
        mcp_path="/mcp",
        headers={"Authorization": f"Bearer {token}"},
        protocol_version=version,
        client_capabilities=capabilities,
    )


def token_row(key):
    return get_access_token_model().objects.get(token=key)


def test_a_task_view_reads_the_scoped_token_in_the_worker(mint):
    key = mint(scope=BOTH)
    handle = agent(key).call_tool("notes_export")
    assert handle["resultType"] == "task"
    task = ToolTask.objects.get(pk=handle["taskId"])
    assert key not in str(task.grant) and task.grant["scopes"] == ["notes:read", "notes:write"]
    run_enqueued()
    done = agent(key).rpc("tasks/get", {"taskId": handle["taskId"]})
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"] == {"user": "alice", "scope": BOTH}


@pytest.mark.parametrize("how", ["revoked", "expired"])
def test_a_token_revoked_or_expired_before_the_worker_runs_fails_the_task(mint, how):
    key = mint(scope=BOTH)
    handle = agent(key).call_tool("notes_export")
    row = token_row(key)
    if how == "revoked":
        row.revoke()  # DOT deletes the row
    else:
        row.expires = timezone.now() - timedelta(seconds=1)
        row.save()
    run_enqueued()
    task = ToolTask.objects.get(pk=handle["taskId"])
    assert task.status == "failed"
    assert task.error["code"] == -32001
    assert "was revoked or has expired" in task.error["message"]


@pytest.mark.parametrize("version", [MODERN, LEGACY])
def test_a_weaker_token_of_the_same_user_cannot_read_the_task(mint, version):
    strong, weak = mint(scope=BOTH), mint(scope="notes:read")
    if version == MODERN:
        task_id = agent(strong).call_tool("notes_export")["taskId"]
        method = "tasks/get"
    else:
        params = {"name": "notes_export", "arguments": {}, "task": {}}
        task_id = agent(strong, LEGACY).rpc("tools/call", params)["task"]["taskId"]
        method = "tasks/get"
    with pytest.raises(MCPError, match="Unknown task"):
        agent(weak, version).rpc(method, {"taskId": task_id})
    with pytest.raises(MCPError, match="Unknown task"):
        agent(weak, version).rpc("tasks/cancel", {"taskId": task_id})
    assert agent(strong, version).rpc(method, {"taskId": task_id})["status"] == "working"


def test_tasks_list_shows_a_weaker_token_none_of_the_stronger_ones_tasks(mint):
    strong, weak = mint(scope=BOTH), mint(scope="notes:read")
    params = {"name": "notes_export", "arguments": {}, "task": {}}
    made = agent(weak, LEGACY).rpc("tools/call", params)["task"]["taskId"]
    agent(strong, LEGACY).rpc("tools/call", params)
    listed = agent(weak, LEGACY).rpc("tasks/list", {})["tasks"]
    assert [task["taskId"] for task in listed] == [made]
    assert len(agent(strong, LEGACY).rpc("tasks/list", {})["tasks"]) == 2


def test_a_refreshed_token_carries_on_its_task_and_the_worker_runs_with_it(mint):
    first = mint(scope=BOTH)
    client = agent(first, capabilities={**EXTENSION, "elicitation": {}})
    task_id = client.call_tool("notes_format")["taskId"]
    run_enqueued()
    assert client.rpc("tasks/get", {"taskId": task_id})["status"] == "input_required"
    refreshed = mint(scope=BOTH)
    token_row(first).revoke()  # what DOT does to the old access token on a refresh
    answers = {"format": {"action": "accept", "content": {"format": "csv"}}}
    again = agent(refreshed, capabilities={**EXTENSION, "elicitation": {}})
    again.rpc("tasks/update", {"taskId": task_id, "inputResponses": answers})
    run_enqueued()
    done = again.rpc("tasks/get", {"taskId": task_id})
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"] == {"format": "csv", "scope": BOTH}


def test_a_weaker_token_cannot_carry_on_a_request_state(mint):
    strong, weak = mint(scope=BOTH), mint(scope="notes:read")
    plain = {"elicitation": {}}  # no tasks extension: the call runs inline, in rounds
    asked = agent(strong, capabilities=plain).call_tool("notes_format")
    assert asked["resultType"] == "input_required"
    answers = {"format": {"action": "accept", "content": {"format": "csv"}}}
    params = {
        "name": "notes_format",
        "arguments": {},
        "inputResponses": answers,
        "requestState": asked["requestState"],
    }
    with pytest.raises(MCPError, match="requestState was issued to another caller"):
        agent(weak, capabilities=plain).rpc("tools/call", params)
    same = agent(mint(scope=BOTH), capabilities=plain).rpc("tools/call", params)
    assert same["structuredContent"] == {"format": "csv", "scope": BOTH}
