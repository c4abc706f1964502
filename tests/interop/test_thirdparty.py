"""Two packages' APIs the project did not write, djoser's and dj-rest-auth's, made tools
(tests/thirdparty): once with ``expose()``, once with ``EXPOSE_PATHS``.

Each run is a fresh project (its own settings, URLconf and database), checked with
``manage.py check``, served by gunicorn and driven by the official MCP client: an anonymous
client signs up and logs in on the public endpoint, then, with the token it got, reads and
changes its user through both packages' views.
"""

import asyncio
import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conformance_app.server import REPO
from tests.interop.test_inspector_strict import ACCEPTED_WARNINGS, list_strict
from tests.processes import gunicorn
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

#: The tools ``expose()`` declares (tests/thirdparty/urls_expose.py).
EXPOSED = [
    "user_create",
    "token_login",
    *(f"user_me_{method}" for method in ("get", "put", "patch", "delete")),
    "token_logout",
    *(f"rest_user_details_{method}" for method in ("get", "put", "patch")),
    "rest_password_change",
]
#: What ``EXPOSE_PATHS`` adds: every other view under auth/ and rest-auth/, less the
#: password resets ``EXCLUDE_PATHS`` leaves out; the router's index is no tool.
BY_PATH = [
    "user_list",
    "user_retrieve",
    "user_update",
    "user_partial_update",
    "user_destroy",
    "user_activation",
    "user_resend_activation",
    "user_set_password",
    "user_set_username",
    "rest_login",
    "rest_logout_get",
    "rest_logout_post",
]


def project_env(mode: str, folder: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.thirdparty.settings",
        "MCP_THIRDPARTY_MODE": mode,
        "MCP_TESTS_DATABASE": str(folder / "db.sqlite3"),
        "MCP_TESTS_CACHE": str(folder / "cache"),
        **extra,
    }


def run(env, *command):
    done = subprocess.run(
        [sys.executable, *command], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@contextmanager
def served(env):
    """Migrate the project, check it, serve it; yield (base URL, the checks' output)."""
    run(env, "manage.py", "migrate", "--noinput", "-v", "0")
    checks = run(env, "manage.py", "check")
    with gunicorn("tests.thirdparty.wsgi:application", env) as base:
        yield base, checks


def sign_up_and_use(base: str):
    """Sign up and log in anonymously on /mcp/public, then read and change the user on /mcp
    with the token the login gave. Return both endpoints' tools and every result."""
    wire = Wire()

    async def scenario():
        async with connect(f"{base}/mcp/public", wire=wire) as public:
            public_tools = await all_tools(public)
            account = {"username": "ada", "password": "a-long-passphrase-7", "email": "a@x.org"}
            signed_up = await public.call_tool("user_create", account)
            logged_in = await public.call_tool(
                "token_login", {"username": "ada", "password": account["password"]}
            )
        token = logged_in.structured_content["auth_token"]
        async with connect(f"{base}/mcp", token=token, wire=wire) as client:
            tools = await all_tools(client)
            calls = [
                ("user_me_get", {}),
                ("user_me_patch", {"email": "ada@example.org"}),
                ("rest_user_details_patch", {"first_name": "Ada", "last_name": "Lovelace"}),
                ("rest_user_details_get", {}),
            ]
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
        return public_tools, tools, [signed_up, logged_in, *results]

    public_tools, tools, results = asyncio.run(asyncio.wait_for(scenario(), timeout=90))
    for message, status, _, body in wire.posts():
        validate_exchange("2026-07-28", message, status, body)
    return public_tools, tools, results


def assert_used(public_tools, tools, results):
    assert sorted(public_tools) == ["token_login", "user_create"]
    signed_up, logged_in, me, patched, details_patched, details = results
    assert signed_up.is_error is False, signed_up.content
    assert signed_up.structured_content == {"email": "a@x.org", "username": "ada", "id": 1}
    assert logged_in.is_error is False, logged_in.content
    assert me.structured_content == {"email": "a@x.org", "id": 1, "username": "ada"}
    assert patched.structured_content["email"] == "ada@example.org"
    assert details_patched.is_error is False, details_patched.content
    assert details.structured_content == {
        "pk": 1,
        "username": "ada",
        "email": "ada@example.org",
        "first_name": "Ada",
        "last_name": "Lovelace",
    }


def assert_complete(public_tools, tools):
    """Every tool's input schema lists what its view reads: the fields, and which are needed."""
    create = public_tools["user_create"].input_schema
    assert sorted(create["properties"]) == ["email", "password", "username"]
    assert sorted(create["required"]) == ["password", "username"]
    assert create["properties"]["password"]["type"] == "string"
    login = public_tools["token_login"].input_schema
    # djoser adds its login field in the serializer's __init__: read from an instance.
    assert sorted(login["properties"]) == ["password", "username"]
    me = tools["user_me_patch"].input_schema
    assert sorted(me["properties"]) == ["email"]  # id and username are read-only
    assert "required" not in me  # PATCH: nothing is
    assert sorted(tools["user_me_put"].input_schema["properties"]) == ["email"]
    details = tools["rest_user_details_put"].input_schema
    assert sorted(details["properties"]) == ["first_name", "last_name", "username"]
    assert details["required"] == ["username"]
    change = tools["rest_password_change"].input_schema
    assert sorted(change["required"]) == ["new_password1", "new_password2"]
    for name in ("token_logout", "user_me_get", "rest_user_details_get"):
        assert tools[name].input_schema["properties"] == {}, name
    # djoser's delete reads current_password from a DELETE's body, which no tool sends.
    assert tools["user_me_delete"].input_schema["properties"] == {}
    assert tools["user_me_get"].annotations.read_only_hint is True
    assert tools["user_me_delete"].annotations.destructive_hint is True


@pytest.mark.django_db(transaction=True)
def test_expose_makes_tools_of_djoser_and_dj_rest_auth_views(tmp_path):
    with served(project_env("expose", tmp_path)) as (base, checks):
        public_tools, tools, results = sign_up_and_use(base)
    assert "System check identified no issues" in checks
    assert sorted(tools) == sorted(EXPOSED)
    assert_complete(public_tools, tools)
    assert_used(public_tools, tools, results)


def assert_portable(url, token, home):
    """The Inspector CLI's ``--strict`` lint finds nothing but the accepted warnings."""
    completed = list_strict(url, token, home)
    assert completed.returncode == 0, completed.stderr
    envelope = json.loads(completed.stdout)
    rules = {f["rule"] for tool in envelope.get("schemaFindings", []) for f in tool["findings"]}
    assert rules <= ACCEPTED_WARNINGS, completed.stderr
    return sorted(tool["name"] for tool in envelope["result"]["tools"])


@pytest.mark.django_db(transaction=True)
def test_expose_paths_makes_tools_of_every_view_under_them(tmp_path):
    with served(project_env("paths", tmp_path)) as (base, checks):
        public_tools, tools, results = sign_up_and_use(base)
        token = results[1].structured_content["auth_token"]
        assert assert_portable(f"{base}/mcp", token, tmp_path) == sorted(tools)
    assert "System check identified no issues" in checks
    assert sorted(tools) == sorted([*EXPOSED, *BY_PATH])
    assert_complete(public_tools, tools)
    assert_used(public_tools, tools, results)
    # expose(LogoutView, methods=["POST"], input_schema=...) wins for its method only.
    assert tools["rest_logout_post"].input_schema == {"type": "object", "properties": {}}
    assert tools["user_retrieve"].input_schema["required"] == ["id"]
