"""The demo as `make demo` leaves it: its users, a staff-only tool, a few logged calls."""

import json
import os
import subprocess
import sys

from tests.conformance_app.server import REPO

CHECK = """
import django, json
django.setup()
from django.contrib.auth.models import User
from django.test import RequestFactory
from mcp_tools.authentication import authenticate
from mcp_tools.models import ExposedTool, ToolCall
from mcp_tools.views import MCPView

from mcp_tools.handlers import Call
from mcp_tools.protocol.jsonrpc import parse_message
from mcp_tools.protocol.versions import Era
from rest_framework.authtoken.models import Token

def names_for(username):
    # The tools a token caller sees: the endpoint's own rule, as tools/list applies it.
    token, _ = Token.objects.get_or_create(user=User.objects.get(username=username))
    request = RequestFactory().post(
        "/mcp", HTTP_HOST="127.0.0.1:8000", HTTP_AUTHORIZATION=f"Token {token.key}"
    )
    caller = authenticate(request, MCPView())
    message = parse_message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    call = Call(message, Era("2025-11-25"), request, caller, MCPView())
    return sorted(tool.name for tool in call.tools()[0])

print(json.dumps({
    "exposed": ExposedTool.objects.count(),
    "calls": sorted((c.tool_name, c.is_error) for c in ToolCall.objects.all()),
    "demo": names_for("demo"),
    "admin": names_for("admin"),
}))
"""


def manage(database, *args, script=None):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "demo_project.settings"}
    env["DEMO_DATABASE"] = str(database)
    command = [sys.executable, "-c", script] if script else [sys.executable, "manage.py", *args]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_demo_seeds_users_tools_and_logged_calls(tmp_path):
    database = tmp_path / "demo.sqlite3"
    manage(database, "migrate", "--noinput", "-v", "0")
    printed = manage(database, "seed_demo")
    assert "Token:" in printed and "user 'admin', password 'admin'" in printed
    state = json.loads(manage(database, script=CHECK))
    assert state["exposed"] >= 10  # the admin shows every tool
    assert ["todo_list", False] in state["calls"] and ["todo_sync", True] in state["calls"]
    assert len(state["calls"]) == 5
    assert "todo_stats" in state["admin"]
    assert "todo_stats" not in state["demo"] and "todo_list" in state["demo"]
    # A second run keeps what is there.
    manage(database, "seed_demo")
    assert len(json.loads(manage(database, script=CHECK))["calls"]) == 5
