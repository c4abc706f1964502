"""The demo as `make demo` leaves it: its users, a staff-only tool, a few logged calls."""

import base64
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


def test_make_demo_serves_the_showcase_as_it_promises(tmp_path):
    """`make demo`'s server (runserver, DEBUG on): masking on, the PDF a resource, no noise."""
    import asyncio
    import re
    import time

    import httpx2

    from tests.conformance_app.server import free_port, wait_for_port
    from tests.processes import stop
    from tests.sdk import connect

    database = tmp_path / "demo.sqlite3"
    manage(database, "migrate", "--noinput", "-v", "0")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    token = re.search(r"Token:\s+(\w+)", manage(database, "seed_demo", "--url", url)).group(1)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "demo_project.settings"}
    env.update(DEMO_DATABASE=str(database), DJANGO_DEBUG="1")
    log = tmp_path / "runserver.log"
    with log.open("w") as stderr:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=env,
            stdout=stderr,
            stderr=stderr,
        )
        try:
            wait_for_port(port, server, time.monotonic() + 60)

            async def scenario():
                async with connect(url, token=token, mode="legacy") as client:
                    return (
                        await client.call_tool("todo_export_pdf", {}),
                        await client.call_tool("todo_sync", {}),
                    )

            pdf, sync = asyncio.run(asyncio.wait_for(scenario(), timeout=60))
            probe = httpx2.get(url, headers={"Accept": "text/event-stream"}, timeout=10)
        finally:
            stop(server)
    assert pdf.is_error is False
    (block,) = pdf.content
    assert block.type == "resource" and block.resource.mime_type == "application/pdf"
    assert str(block.resource.uri) == f"http://127.0.0.1:{port}/showcase/export.pdf"
    assert base64.b64decode(block.resource.blob).startswith(b"%PDF-")
    # DEBUG is on, and the failing view's error is masked all the same.
    assert sync.is_error is True
    assert [b.text for b in sync.content] == ["Internal server error"]
    assert "django-mcp-tools/errorRef" in (sync.meta or {})
    assert (probe.status_code, probe.headers["Allow"]) == (405, "POST")
    assert "Method Not Allowed" not in log.read_text()
