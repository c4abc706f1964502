"""Django's default cache, one per process: every configuration is correct (docs/admin.md).

A site that adds the app and runs gunicorn without a shared cache: ``migrate`` goes through
(the warning ``mcp_tools.W032``, no error), and a tool disabled in admin through one process
is refused by another within ``ADMIN_STATE_MAX_AGE``, because each process reads the admin
state's version from the database where its cache can't carry it. The handshake era's
answers and the spent confirmations go through the database too (Django's database cache
on the table ``mcp_tools_cache``): an answer POSTed to the other process reaches the one
that asked, and an acceptance spent on one is spent on both.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time

import anyio
from mcp import MCPError

from tests.conformance_app.server import DATABASE_ENV, REPO, migrated_database, serve
from tests.helpers import admin_action
from tests.interop.test_scale_out import (
    CREATE_USER,
    destroy_a_todo_confirmed,
    destroy_asked_on_one_answered_on_the_other,
    django_run,
    modern_call,
)
from tests.sdk import Wire, listed_and_called
from tests.wire import validate_exchange

SETTINGS = "tests.local_cache_settings"


def create_user(environ, **fields):
    return django_run(environ, CREATE_USER, json.dumps(fields)).split()[1]


def test_migrate_passes_and_warns_what_a_per_process_cache_costs(tmp_path):
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, DATABASE_ENV: str(tmp_path / "db")}
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert migrated.returncode == 0, migrated.stderr
    assert "mcp_tools.W032" in migrated.stderr


def test_a_tool_disabled_through_one_process_is_refused_by_the_other(tmp_path):
    database = migrated_database(SETTINGS, tmp_path)
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, DATABASE_ENV: str(database)}
    token = create_user(environ, username="caller", password=secrets.token_hex(8))
    password = secrets.token_hex(8)
    create_user(environ, username="staff", password=password, is_staff=True, is_superuser=True)
    wire = Wire()

    def on(url):
        return anyio.run(listed_and_called, f"{url}/mcp", token, "todo_list", wire)

    with (
        serve("gunicorn", SETTINGS, database=database) as first,
        serve("gunicorn", SETTINGS, database=database) as second,
    ):
        names, listed = on(second)  # the second's admin state is warm
        assert "todo_list" in names and listed.is_error is False
        admin_action(first, "todo_list", "disable_tools", ("staff", password))
        disabled_at = time.monotonic()
        names, refused = on(first)  # the process that saved it: at once
        assert "todo_list" not in names
        time.sleep(max(0.0, 1.2 - (time.monotonic() - disabled_at)))  # ADMIN_STATE_MAX_AGE: 1 s
        names, refused = on(second)
        assert "todo_list" not in names
        assert isinstance(refused, MCPError) and refused.message == "Unknown tool: todo_list"
    for message, status, _, body in wire.posts():
        validate_exchange("2026-07-28", message, status, body)


def test_the_answers_and_the_confirmations_reach_the_other_process(tmp_path):
    from mcp_tools.inputs.asks import CONFIRM_KEY

    database = migrated_database(SETTINGS, tmp_path)
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, DATABASE_ENV: str(database)}
    token = create_user(environ, username="caller", password=secrets.token_hex(8))

    def call(url, name, **params):
        return modern_call(url, token, name, **params)

    with (
        serve("gunicorn", SETTINGS, database=database) as first,
        serve("gunicorn", SETTINGS, database=database) as second,
    ):
        # 2025-11-25: the answer reaches the process that asked through the database.
        destroy_asked_on_one_answered_on_the_other((first, second), token)

        # 2026-07-28: an acceptance spent on the second process is spent on the first.
        accepted = destroy_a_todo_confirmed(call, asking=first, accepting=second)
        again = call(first, "todo_destroy", **accepted)
        assert list(again["inputRequests"]) == [CONFIRM_KEY], again
