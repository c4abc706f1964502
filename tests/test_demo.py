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

def names_for(username, keyword="Token"):
    # The tools a token caller sees: the endpoint's own rule, as tools/list applies it.
    token, _ = Token.objects.get_or_create(user=User.objects.get(username=username))
    request = RequestFactory().post(
        "/mcp", HTTP_HOST="127.0.0.1:8000", HTTP_AUTHORIZATION=f"{keyword} {token.key}"
    )
    caller = authenticate(request, MCPView())
    message = parse_message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    call = Call(message, Era("2025-11-25"), request, caller, MCPView())
    return sorted(tool.name for tool in call.tools()[0])

print(json.dumps({
    "exposed": ExposedTool.objects.count(),
    "calls": sorted((c.tool_name, c.is_error) for c in ToolCall.objects.all()),
    "demo": names_for("demo"),
    "demo_bearer": names_for("demo", "Bearer"),
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
    assert state["demo_bearer"] == state["demo"]  # the same token, sent as Bearer
    # A second run keeps what is there.
    manage(database, "seed_demo")
    assert len(json.loads(manage(database, script=CHECK))["calls"]) == 5


def test_seed_demo_prints_a_configuration_for_each_client(tmp_path):
    database = tmp_path / "demo.sqlite3"
    manage(database, "migrate", "--noinput", "-v", "0")
    printed = manage(database, "seed_demo", "--url", "http://127.0.0.1:8000/mcp")
    key = printed.split("Token:", 1)[1].split()[0]
    blocks = printed.split("\n\n")

    def config(title):
        block = next(block for block in blocks if block.startswith(title))
        text = block.split("\n", 1)[1]
        return json.loads(text[: text.rindex("}") + 1])

    server = {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": f"Bearer {key}"}}
    assert config("Claude Code")["mcpServers"]["django-todos"] == {"type": "http", **server}
    assert config("Cursor")["mcpServers"]["django-todos"] == server
    assert config("VS Code")["servers"]["django-todos"] == {"type": "http", **server}
    assert f'--header "Authorization: Bearer {key}"' in printed.split("MCP Inspector")[1]
    assert "claude mcp add --transport http django-todos http://127.0.0.1:8000/mcp" in printed
