"""Who a task's view runs as, and who may read the task (docs/tasks.md#who-runs-the-view).

A task's view sees exactly the user and ``request.auth`` the inline call would have given
it, resolved by the view's own authentication when the task is made; the worker finds the
credential again by reference (never a stored secret), and a credential revoked or expired
meanwhile fails the task. A task, and the ``requestState`` of its rounds, is read only with
a credential holding at least the scopes it was made with.

The worker's run is ``tasks.runs.run``, called where a worker would call it.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import path
from rest_framework.authentication import BaseAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool
from mcp_tools.auth.credentials import Revoked, Uncarried, covers, reference, restore
from mcp_tools.models import ToolTask
from mcp_tools.tasks import store as tasks
from mcp_tools.test import MCPClient, MCPError
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView
from tests.helpers import MODERN
from tests.tasks.test_store import (
    EXTENSION,
    RECORDED,
    client_for,
    run_enqueued,
)

pytestmark = pytest.mark.django_db

LEGACY = "2025-11-25"


@pytest.fixture(autouse=True)
def recorded(settings):
    settings.ROOT_URLCONF = RECORDED["ROOT_URLCONF"]
    settings.MCP_TOOLS = dict(RECORDED["MCP_TOOLS"])


def run_task(client, name, arguments=None, version=MODERN):
    """Call ``name`` as a task, run its job as the worker would; return its task's row."""
    if version == MODERN:
        handle = client.call_tool(name, arguments or {})
        task_id = handle["taskId"]
    else:
        params = {"name": name, "arguments": arguments or {}, "task": {}}
        task_id = client.rpc("tools/call", params)["task"]["taskId"]
    run_enqueued()
    return ToolTask.objects.get(pk=task_id)


def legacy_client(user):
    return client_for(user, {"tasks": {}}, version=LEGACY)


# -- The view's own authentication decides, as inline --------------------------------------


@pytest.mark.parametrize("version", [MODERN, LEGACY])
def test_a_session_only_view_sees_nobody_as_a_task_as_it_does_inline(alice, version):
    # alice calls with her token; the view reads sessions only, so inline it sees nobody.
    inline = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=version)
    assert inline.call_tool("session_whoami")["structuredContent"] == {
        "user": "AnonymousUser",
        "auth": None,
    }
    client = client_for(alice) if version == MODERN else legacy_client(alice)
    task = run_task(client, "session_whoami", version=version)
    assert task.status == "completed", task.error
    assert tasks.result_of(task)["structuredContent"] == {"user": "AnonymousUser", "auth": None}


@pytest.mark.parametrize("version", [MODERN, LEGACY])
def test_a_view_that_reads_the_token_sees_it_in_the_worker(alice, version):
    client = client_for(alice) if version == MODERN else legacy_client(alice)
    task = run_task(client, "token_whoami", version=version)
    assert task.status == "completed", task.error
    assert tasks.result_of(task)["structuredContent"] == {
        "user": "alice",
        "auth": "Token",
        "token_of": "alice",
    }
    # The key is DRF's token's primary key: the row names it by a digest, never by itself.
    stored = json.dumps([task.grant, task.environ, task.params])
    assert alice.token not in stored
    assert task.grant["auth"]["model"] == "authtoken.token" and "pk" not in task.grant["auth"]


def test_a_token_revoked_before_the_worker_runs_fails_the_task(alice):
    client = client_for(alice)
    handle = client.call_tool("token_whoami", {})
    Token.objects.filter(user=alice).delete()  # revoked, or regenerated: the key is gone
    Token.objects.create(user=alice)
    run_enqueued()
    task = ToolTask.objects.get(pk=handle["taskId"])
    assert task.status == "failed"
    assert task.error["code"] == -32001
    assert task.error["message"].startswith(
        "Unauthorized: the credential this task was made with was revoked or has expired"
    )


def test_a_user_who_can_no_longer_sign_in_fails_the_task(alice):
    handle = client_for(alice).call_tool("token_whoami", {})
    alice.is_active = False
    alice.save()
    run_enqueued()
    task = ToolTask.objects.get(pk=handle["taskId"])
    assert (task.status, task.error["code"]) == ("failed", -32001)
    assert task.error["message"] == "Unauthorized: the user this task runs as can't sign in"


# -- A credential no row stands for ----------------------------------------------------------


class SignedClaims(BaseAuthentication):
    """Reads ``X-Claims: <username>`` and returns a claims object, as JWT classes do."""

    def authenticate(self, request):
        name = request.META.get("HTTP_X_CLAIMS")
        if not name:
            return None
        user = get_user_model().objects.get(username=name)
        return user, {"sub": name}


CLAIMS = ToolRegistry()


class ClaimsView(APIView):
    """Name who the view sees, from its claims."""

    authentication_classes = [SignedClaims]
    permission_classes = [AllowAny]

    @mcp_tool("claims_optional", task="optional", registry=CLAIMS)
    def get(self, request):
        return Response({"user": str(request.user)})

    @mcp_tool("claims_required", task="required", registry=CLAIMS)
    def post(self, request):
        return Response({"user": str(request.user)})


urlpatterns = [
    path("c/", ClaimsView.as_view()),
    path(
        "mcp",
        MCPView.as_view(
            registry=CLAIMS, authentication_classes=[SignedClaims], permission_classes=[AllowAny]
        ),
    ),
]


@pytest.fixture
def claims_project(settings):
    settings.ROOT_URLCONF = __name__


def claims_client(version=MODERN):
    capabilities = EXTENSION if version == MODERN else {"tasks": {}}
    return MCPClient(
        mcp_path="/mcp",
        headers={"X-Claims": "alice"},
        protocol_version=version,
        client_capabilities=capabilities,
    )


@pytest.mark.usefixtures("claims_project")
def test_an_optional_task_runs_inline_for_a_credential_no_row_stands_for(alice):
    result = claims_client().call_tool("claims_optional")
    assert result["resultType"] == "complete"
    assert result["structuredContent"] == {"user": "alice"}
    assert not ToolTask.objects.exists()


@pytest.mark.usefixtures("claims_project")
@pytest.mark.parametrize("version", [MODERN, LEGACY])
def test_a_task_is_refused_for_a_credential_no_row_stands_for(alice, version):
    client = claims_client(version)
    with pytest.raises(MCPError) as refused:
        if version == MODERN:
            client.call_tool("claims_required")
        else:
            client.rpc("tools/call", {"name": "claims_required", "arguments": {}, "task": {}})
    assert refused.value.code == -32602
    assert "can't run as a task with this credential (dict)" in refused.value.message
    assert not ToolTask.objects.exists()


# -- The credential's references -------------------------------------------------------------


def test_a_reference_names_a_drf_key_by_digest_and_finds_it_again(alice):
    token = Token.objects.get(user=alice)
    ref = reference(token)
    assert token.key not in json.dumps(ref)
    assert restore(ref) == token
    token.delete()
    with pytest.raises(Revoked):
        restore(ref)


def test_a_credential_that_is_no_row_is_uncarried():
    with pytest.raises(Uncarried):
        reference("eyJhbGciOi.a-jwt.itself")
    assert reference(None) is None and restore(None) is None


@pytest.mark.parametrize(
    ("reader", "creator", "covered"),
    [
        (None, None, True),
        (None, ["a"], True),
        (["a"], None, False),
        (["a", "b"], ["a"], True),
        (["a"], ["a", "b"], False),
        ([], [], True),
    ],
)
def test_scopes_cover_as_documented(reader, creator, covered):
    assert covers(reader, creator) is covered
