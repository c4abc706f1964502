"""The endpoint's caller: challenges that tell the truth, refused headers, Bearer DRF tokens.

Through MCPClient for the table of bad headers; through the official Python SDK and the
Inspector CLI over real HTTP for the clients that send ``Bearer``.
"""

from __future__ import annotations

import json
import os
import subprocess
import types

import anyio
import pytest
from django.urls import path
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.authentication import (
    BasicAuthentication,
    SessionAuthentication,
    TokenAuthentication,
)
from rest_framework.permissions import AllowAny, IsAuthenticated

from mcp_tools.auth.refusals import MAX_AUTHORIZATION_BYTES
from mcp_tools.authentication import BearerTokenAuthentication
from mcp_tools.test import MCPClient
from mcp_tools.views import MCPView
from tests.interop.test_inspector_strict import inspector
from tests.sdk import Wire, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db

NOT_ACCEPTED = (
    "Invalid credentials: no authentication method of this endpoint accepts the "
    "Authorization header."
)


def endpoints(settings, **policies):
    module = types.ModuleType("auth_urls")
    module.urlpatterns = [
        path("api/", __import__("django.urls").urls.include("demo_project.todos.urls")),
        *(path(name, MCPView.as_view(**policy)) for name, policy in policies.items()),
    ]
    settings.ROOT_URLCONF = module


def answer(path, authorization=None):
    headers = {"Authorization": authorization} if authorization is not None else {}
    client = MCPClient(mcp_path=path, headers=headers)
    response = client.send(client.message("tools/list"))
    return response, MCPClient.answer_of(response)


@pytest.mark.parametrize(
    ("classes", "challenge"),
    [
        ([TokenAuthentication, SessionAuthentication], "Token"),
        ([BearerTokenAuthentication], "Bearer"),
        ([BasicAuthentication], 'Basic realm="api"'),
        # The first class without a challenge is passed over for the next that has one.
        ([SessionAuthentication, BasicAuthentication], 'Basic realm="api"'),
    ],
)
def test_the_challenge_is_the_first_classs_own(settings, classes, challenge):
    endpoints(settings, mcp={"authentication_classes": classes})
    response, body = answer("/mcp")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == challenge
    assert body["error"] == {
        "code": -32001,
        "message": "Authentication credentials were not provided.",
    }


def test_session_authentication_alone_answers_403_as_drf_does(settings):
    endpoints(settings, mcp={"authentication_classes": [SessionAuthentication]})
    response, body = answer("/mcp")
    assert response.status_code == 403
    assert not response.has_header("WWW-Authenticate")
    assert body["error"]["message"] == "Authentication credentials were not provided."


BAD_HEADERS = [
    # (Authorization, detail): none of them an anonymous call, none a 500.
    ("Token", "Invalid token header. No credentials provided."),
    ("Token a b", "Invalid token header. Token string should not contain spaces."),
    ("Token not-a-token", "Invalid token."),
    (
        "Token \u00e9t\u00e9",
        "Invalid token header. Token string should not contain invalid characters.",
    ),
    ("Bearer abc", "Invalid token."),
    ("Bearer", "Invalid token header. No credentials provided."),
    ("Basic Zm9vOmJhcg==", NOT_ACCEPTED),
    ("Negotiate", NOT_ACCEPTED),
    ("garbage", NOT_ACCEPTED),
    (
        "Token " + "x" * MAX_AUTHORIZATION_BYTES,
        "Invalid credentials: the Authorization header is longer than 8192 bytes.",
    ),
]


#: Header values as a WSGI server hands them over: ISO-8859-1 text, no CR or LF.
HEADER_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
    max_size=300,
)


@hypothesis_settings(
    max_examples=200,
    deadline=None,
    database=None,  # no example store in the work tree
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    scheme=st.sampled_from(["Token", "Bearer", "Basic", "", "token", "BEARER"]), rest=HEADER_TEXT
)
def test_no_authorization_header_is_a_500_or_an_anonymous_call(scheme, rest):
    authorization = f"{scheme} {rest}" if scheme else rest
    response, body = answer("/mcp", authorization)
    if authorization.strip() == "":
        assert response.status_code == 401  # no credentials at all
    else:
        assert response.status_code == 401, (authorization, body)
        assert response["WWW-Authenticate"] == "Token"
    assert body["error"]["code"] == -32001
    if len(rest) >= 8:
        assert rest not in body["error"]["message"]


@pytest.mark.parametrize(("authorization", "detail"), BAD_HEADERS)
def test_bad_authorization_headers_get_401_with_the_challenge(authorization, detail):
    response, body = answer("/mcp", authorization)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert body["error"] == {"code": -32001, "message": detail}


def test_an_empty_authorization_header_is_no_credentials(settings):
    response, body = answer("/mcp", "")
    assert response.status_code == 401
    assert body["error"]["message"] == "Authentication credentials were not provided."
    assert 'error="' not in response["WWW-Authenticate"]  # nothing was sent to refuse
    # On an endpoint that admits anonymous callers it is served as none (docs/security.md).
    endpoints(
        settings,
        mcp={
            "authentication_classes": [TokenAuthentication, BearerTokenAuthentication],
            "permission_classes": [AllowAny],
        },
    )
    assert answer("/mcp", "")[0].status_code == 200
    assert answer("/mcp", "Token nope")[0].status_code == 401


def test_an_open_endpoint_still_refuses_a_header_it_cannot_read(settings, alice):
    # The case: DRF's defaults, AllowAny, and "Token not-a-token" answered 200.
    endpoints(
        settings,
        mcp={
            "authentication_classes": [SessionAuthentication, BasicAuthentication],
            "permission_classes": [AllowAny],
        },
    )
    assert answer("/mcp")[0].status_code == 200  # anonymous, on purpose
    response, body = answer("/mcp", f"Token {alice.token}")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Basic realm="api"'
    assert body["error"]["message"] == NOT_ACCEPTED


def test_an_endpoint_that_reads_no_credentials_still_bounds_the_header(settings):
    # No authentication, permission or throttle classes: nothing of DRF runs per request,
    # but an Authorization header too long to be anyone's is refused all the same.
    endpoints(settings, mcp={"authentication_classes": [], "permission_classes": [AllowAny]})
    assert answer("/mcp")[0].status_code == 200
    assert answer("/mcp", "Token abc")[0].status_code == 200  # the views read it
    response, body = answer("/mcp", "Token " + "x" * MAX_AUTHORIZATION_BYTES)
    assert response.status_code == 403  # DRF's answer when no class has a challenge to send
    assert "longer than 8192 bytes" in body["error"]["message"]


def test_an_open_endpoint_follows_a_settings_change_at_once(settings):
    # Whether the policy admits anyone is worked out once per choice of classes: a change
    # of DRF's defaults or of MCP_TOOLS is a new choice, seen at the next request.
    allow_any, authenticated = (
        f"rest_framework.permissions.{name}" for name in ("AllowAny", "IsAuthenticated")
    )
    settings.MCP_TOOLS = {"AUTHENTICATION_CLASSES": []}
    settings.REST_FRAMEWORK = {"DEFAULT_PERMISSION_CLASSES": [allow_any]}
    assert answer("/mcp")[0].status_code == 200
    settings.REST_FRAMEWORK = {"DEFAULT_PERMISSION_CLASSES": [authenticated]}
    assert answer("/mcp")[0].status_code == 403
    settings.REST_FRAMEWORK = {"DEFAULT_PERMISSION_CLASSES": [allow_any]}
    assert answer("/mcp")[0].status_code == 200
    settings.MCP_TOOLS = {"AUTHENTICATION_CLASSES": [], "PERMISSION_CLASSES": [authenticated]}
    assert answer("/mcp")[0].status_code == 403


def test_a_subclass_choosing_its_policy_per_request_is_asked_per_request(settings):
    class ByHeader(MCPView):
        authentication_classes = []

        def get_permissions(self):
            if self.request.headers.get("X-Closed"):
                return [IsAuthenticated()]
            return [AllowAny()]

    module = types.ModuleType("auth_urls")
    module.urlpatterns = [path("mcp", ByHeader.as_view())]
    settings.ROOT_URLCONF = module
    assert answer("/mcp")[0].status_code == 200
    client = MCPClient(mcp_path="/mcp", headers={"X-Closed": "1"})
    assert client.send(client.message("tools/list")).status_code == 403
    assert answer("/mcp")[0].status_code == 200


def test_errors_never_echo_the_credentials(alice):
    secret = "s3cr3t-" + alice.token[::-1]
    for authorization in (f"Token {secret}", f"Bearer {secret}", f"Basic {secret}"):
        response, _ = answer("/mcp", authorization)
        assert secret not in response.content.decode()
        assert secret not in response["WWW-Authenticate"]


def test_the_oauth_challenge_only_with_oauth_metadata(settings):
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "OAUTH_AUTHORIZATION_SERVERS": ["https://as.example"],
        "PUBLIC_URL": "http://testserver/mcp",
    }
    response, _ = answer("/mcp")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        'Bearer resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
    )
    refused, _ = answer("/mcp", "Token nope")
    assert refused["WWW-Authenticate"].startswith(
        'Bearer error="invalid_token", resource_metadata='
    )


def test_bearer_drf_tokens(settings, alice):
    endpoints(settings, mcp={"authentication_classes": [BearerTokenAuthentication]})
    assert answer("/mcp", f"Bearer {alice.token}")[0].status_code == 200
    response, body = answer("/mcp", "Bearer nope")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert body["error"]["message"] == "Invalid token."
    # "Token <key>" is not this class's: refused, never anonymous.
    assert answer("/mcp", f"Token {alice.token}")[1]["error"]["message"] == NOT_ACCEPTED


# -- real clients over HTTP ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_python_sdk_with_a_bearer_drf_token(live_server, alice, mode):
    wire = Wire()

    async def run():
        url = f"{live_server.url}/mcp"
        async with connect(url, token=alice.token, scheme="Bearer", mode=mode, wire=wire) as client:
            created = await client.call_tool("todo_create", {"title": "From the SDK"})
            assert created.is_error is False
            listed = (await client.call_tool("todo_list", {})).structured_content
            items = listed["items"] if isinstance(listed, dict) else listed  # 2026-07-28: the array
            assert [todo["title"] for todo in items] == ["From the SDK"]

    anyio.run(run)
    version = "2025-11-25" if mode == "legacy" else "2026-07-28"
    calls = [
        post
        for post in wire.posts()
        if isinstance(post[0], dict) and post[0].get("method") == "tools/call"
    ]
    assert len(calls) == 2
    for request, status, _, body in calls:
        validate_exchange(version, request, status, body)


def run_inspector(url, home, *arguments):
    binary = inspector()
    command = [str(binary), "--cli", url, "--transport", "http", "--format", "json", *arguments]
    env = {**os.environ, "HOME": str(home), "PATH": f"{binary.parent}:{os.environ['PATH']}"}
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL
    )


@pytest.mark.django_db(transaction=True)
def test_the_inspector_with_a_bearer_header(live_server, alice, tmp_path):
    url = f"{live_server.url}/mcp"
    header = ["--header", f"Authorization: Bearer {alice.token}"]
    listed = run_inspector(url, tmp_path, *header, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert "todo_list" in {tool["name"] for tool in json.loads(listed.stdout)["result"]["tools"]}
    called = run_inspector(
        url,
        tmp_path,
        *header,
        "--method",
        "tools/call",
        "--tool-name",
        "todo_create",
        "--tool-arg",
        "title=From the Inspector",
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["result"]["structuredContent"]["title"] == "From the Inspector"


@pytest.mark.django_db(transaction=True)
def test_the_inspector_without_a_token_reports_the_401(live_server, tmp_path):
    # Inspector 2.12 starts its interactive OAuth on any 401, whatever the challenge says;
    # --stored-auth-only makes it exit 3 (auth) with the endpoint's own message instead.
    completed = run_inspector(
        f"{live_server.url}/mcp", tmp_path, "--stored-auth-only", "--method", "tools/list"
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 3, output
    message = json.loads(output.strip().splitlines()[-1])["error"]["message"]
    assert "Authentication credentials were not provided." in message


def test_an_endpoint_without_authentication_classes_leaves_credentials_to_the_views(alice):
    from django.test import override_settings

    from mcp_tools.test import MCPClient as Client

    # The bench's pattern: the endpoint reads no credentials; each view reads its own.
    drf = {"DEFAULT_AUTHENTICATION_CLASSES": [], "DEFAULT_PERMISSION_CLASSES": []}
    with override_settings(REST_FRAMEWORK=drf):
        caller = Client(headers={"Authorization": f"Token {alice.token}"})
        assert caller.call_tool("todo_list")["isError"] is False
