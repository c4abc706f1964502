"""Projects built as in DRF's own tutorial and quickstart make complete tools (tests/tutorial).

Each project is a fresh Django project (its own settings, URLconf and database), set up as
the README's quickstart says, served by gunicorn and driven by the official MCP client: the
test builds it, lists its tools and calls them.
"""

import asyncio
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conformance_app.server import REPO, free_port, wait_for_port
from tests.processes import stop
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

STANDARD = ("list", "create", "retrieve", "update", "partial_update", "destroy")

MAKE_USER = """
import django
django.setup()
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
user = User.objects.create_user("ada", password="ada-password")
print(Token.objects.create(user=user).key)
"""


def project_env(project: str, folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.tutorial.settings",
        "MCP_TUTORIAL_PROJECT": project,
        "MCP_TESTS_DATABASE": str(folder / "db.sqlite3"),
        "MCP_TESTS_CACHE": str(folder / "cache"),
    }


def run(env, *command):
    done = subprocess.run(
        [sys.executable, *command], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@contextmanager
def built(project: str, folder: Path):
    """Migrate the project, make a user with a token, serve it; yield (url, token, checks)."""
    env = project_env(project, folder)
    run(env, "manage.py", "migrate", "--noinput", "-v", "0")
    checks = run(env, "manage.py", "check", "--tag", "mcp_tools")
    token = run(env, "-c", MAKE_USER).strip()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "tests.tutorial.wsgi:application"]
        + ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--log-level", "warning"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, server, time.monotonic() + 30)
        yield f"http://127.0.0.1:{port}/mcp", token, checks
    finally:
        stop(server)


def session(url, token, calls):
    """List every tool, then make ``calls`` (each a function of the results so far)."""
    wire = Wire()

    async def scenario():
        async with connect(url, token=token, mode="auto", wire=wire) as client:
            tools = await all_tools(client)  # every page (PAGE_SIZE)
            results = []
            for call in calls:
                name, arguments = call(results)
                results.append(await client.call_tool(name, arguments))
            return tools, results

    tools, results = asyncio.run(asyncio.wait_for(scenario(), timeout=90))
    for message, status, _, body in wire.posts():
        validate_exchange("2026-07-28", message, status, body)
    return tools, results


def assert_complete(tools, viewsets):
    """Complete input schemas, integer pks, and a description of its own for every tool."""
    for name, tool in tools.items():
        schema = tool.input_schema
        if "pk" in schema["properties"]:
            assert schema["properties"]["pk"]["type"] == "integer", name
        if name.endswith(("_create", "_update")):  # every body tool lists its fields
            assert set(schema["properties"]) - {"pk"}, (name, schema)
        if name.endswith(("_create", "_update")) and not name.endswith("_partial_update"):
            assert set(schema.get("required", [])) - {"pk"}, (name, schema)
    for basename, actions in viewsets.items():
        texts = [tools[f"{basename}_{action}"].description for action in actions]
        assert len(set(texts)) == len(texts), texts
    assert len({tool.description for tool in tools.values()}) == len(tools)


@pytest.mark.django_db(transaction=True)
def test_the_tutorials_snippets_project(tmp_path):
    with built("snippets", tmp_path) as (url, token, checks):
        tools, results = session(
            url,
            token,
            [
                lambda r: ("snippet_create", {"title": "hi", "code": 'print("hi")'}),
                lambda r: ("snippet_retrieve", {"pk": r[0].structured_content["id"]}),
                lambda r: ("snippet_highlight", {"pk": r[0].structured_content["id"]}),
                lambda r: ("my_snippet_retrieve", {"pk": r[0].structured_content["id"]}),
                lambda r: ("preview", {"code": "x = 1", "language": "python"}),
                lambda r: ("snippet_destroy", {"pk": r[0].structured_content["id"]}),
            ],
        )
    assert "System check identified no issues" in checks
    assert sorted(tools) == sorted(
        [f"snippet_{action}" for action in (*STANDARD, "highlight")]
        + ["user_list", "user_retrieve", "my_snippet_list", "my_snippet_retrieve", "preview"]
    )
    assert_complete(
        tools,
        {"snippet": (*STANDARD, "highlight"), "my_snippet": ("list", "retrieve")},
    )
    create = tools["snippet_create"].input_schema
    assert sorted(create["properties"]) == ["code", "language", "linenos", "style", "title"]
    assert create["required"] == ["code"]  # the model gives the rest their defaults
    assert len(create["properties"]["language"]["enum"]) > 100  # Pygments' lexers
    assert tools["snippet_list"].description == (
        "List snippets. Code snippets, highlighted; everyone may read them, their owners "
        "change them."
    )
    assert sorted(tools["preview"].input_schema["properties"]) == ["code", "language"]
    created, fetched, highlighted, mine, preview, deleted = results
    assert created.is_error is False and created.structured_content["owner"] == "ada"
    assert fetched.structured_content["code"] == 'print("hi")'
    assert highlighted.is_error is False and "<html" in highlighted.content[0].text
    assert mine.structured_content["id"] == created.structured_content["id"]
    assert '<span class="n">x</span>' in preview.structured_content["html"]
    assert deleted.is_error is False


@pytest.mark.django_db(transaction=True)
def test_the_quickstart_project(tmp_path):
    with built("quickstart", tmp_path) as (url, token, checks):
        tools, results = session(
            url,
            token,
            [
                lambda r: ("group_create", {"name": "editors"}),
                lambda r: ("group_retrieve", {"pk": 1}),
                lambda r: (
                    "user_create",
                    {"username": "grace", "groups": [r[0].structured_content["url"]]},
                ),
                lambda r: ("user_list", {}),
            ],
        )
    assert "System check identified no issues" in checks
    assert sorted(tools) == sorted(f"{b}_{a}" for b in ("user", "group") for a in STANDARD)
    assert_complete(tools, {"user": STANDARD, "group": STANDARD})
    groups = tools["user_create"].input_schema["properties"]["groups"]
    assert (groups["type"], groups["items"]["type"], groups["items"]["format"]) == (
        "array",
        "string",
        "uri",
    )
    group, fetched, user, users = results
    assert fetched.structured_content["name"] == "editors"
    assert user.is_error is False, user.content
    assert user.structured_content["groups"] == [group.structured_content["url"]]
    assert [u["username"] for u in users.structured_content["results"]] == ["grace", "ada"]
