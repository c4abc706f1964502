"""An admin change reaches every worker within ADMIN_STATE_MAX_AGE: two server processes
sharing one database and one cache, the change made through one process's admin
(docs/admin.md)."""

import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from mcp import MCPError

from tests.conformance_app.server import DATABASE_ENV, REPO, migrated_database, serve
from tests.helpers import admin_action
from tests.sdk import connect

SETTINGS = "tests.settings"
ROOT = ("root", "root-pw")

SEED = """
import django; django.setup()
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
User.objects.create_superuser("root", "root@example.com", "root-pw")
alice = User.objects.create_user("alice", password="alice-pw")
print(Token.objects.create(user=alice).key)
"""


@pytest.fixture(scope="module")
def two_workers():
    """Two gunicorn processes over one SQLite file and one file cache; alice's token."""
    folder = Path(tempfile.mkdtemp(prefix="mcp-tools-consistency-"))
    database = migrated_database(SETTINGS, folder)
    env = {
        DATABASE_ENV: str(database),
        "MCP_TESTS_CACHE": str(folder / "cache"),
        "MCP_TESTS_URLCONF": "tests.admin_urls",
    }
    seeded = subprocess.run(
        [sys.executable, "-c", SEED],
        cwd=REPO,
        env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": SETTINGS, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    token = seeded.stdout.strip()
    try:
        with (
            serve("gunicorn", SETTINGS, env, database) as first,
            serve("gunicorn", SETTINGS, env, database) as second,
        ):
            yield first, second, token, folder / "cache"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def change_in_admin(url, tool, action):
    """Run an admin action through the worker at ``url``, then wait ADMIN_STATE_MAX_AGE (1 s):
    the time every worker may trust the version stamp it read before."""
    admin_action(url, tool, action, ROOT)
    time.sleep(1.1)


def tool_names(url, token):
    async def listing():
        async with connect(f"{url}/mcp", token=token, mode="legacy") as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return asyncio.run(asyncio.wait_for(listing(), 30))


def call(url, token, name):
    async def calling():
        async with connect(f"{url}/mcp", token=token, mode="legacy") as client:
            try:
                return await client.call_tool(name, {})
            except MCPError as error:
                return error

    return asyncio.run(asyncio.wait_for(calling(), 30))


def test_an_admin_change_on_one_worker_reaches_the_other(two_workers):
    first, second, token, _ = two_workers
    assert "todo_list" in tool_names(second, token)  # the second worker's catalog is warm
    change_in_admin(first, "todo_list", "disable_tools")
    assert "todo_list" not in tool_names(second, token)
    outcome = call(second, token, "todo_list")
    assert isinstance(outcome, MCPError) and outcome.message == "Unknown tool: todo_list"
    change_in_admin(second, "todo_list", "enable_tools")
    assert "todo_list" in tool_names(first, token)


def test_without_the_cache_the_database_keeps_the_workers_consistent(two_workers):
    first, second, token, cache = two_workers
    change_in_admin(first, "todo_create", "disable_tools")
    assert "todo_create" not in tool_names(second, token)
    shutil.rmtree(cache, ignore_errors=True)  # the shared cache lost every key
    change_in_admin(first, "todo_create", "enable_tools")
    shutil.rmtree(cache, ignore_errors=True)  # and again, right after the change
    assert "todo_create" in tool_names(second, token)
