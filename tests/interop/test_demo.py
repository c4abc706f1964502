"""The demo as `make demo` leaves it: its users, a staff-only tool, a few logged calls."""

import asyncio
import base64
import contextlib
import html
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from tests.conformance_app.server import REPO, free_port, wait_for_port
from tests.processes import stop
from tests.sdk import connect

CHECK = """
import django, json
django.setup()
from django.contrib.auth.models import User
from django.test import RequestFactory
from mcp_tools.models import ExposedTool, ToolCall
from mcp_tools.views import MCPView

from mcp_tools.endpoint.exchange import Exchange
from rest_framework.authtoken.models import Token

def names_for(username, keyword="Token"):
    # The tools a token caller sees: the endpoint's own rule, as tools/list applies it.
    token, _ = Token.objects.get_or_create(user=User.objects.get(username=username))
    request = RequestFactory().post(
        "/mcp", HTTP_HOST="127.0.0.1:8000", HTTP_AUTHORIZATION=f"{keyword} {token.key}"
    )
    caller = MCPView().authenticate(request)
    return sorted(tool.name for tool in Exchange(request, caller, MCPView()).tools()[0])

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


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """`make demo` as it runs: migrated, seeded, runserver with DEBUG on and its task worker
    beside it; (url, token, log)."""
    folder = tmp_path_factory.mktemp("demo")
    database = folder / "demo.sqlite3"
    manage(database, "migrate", "--noinput", "-v", "0")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    token = re.search(r"Token:\s+(\w+)", manage(database, "seed_demo", "--url", url)).group(1)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "demo_project.settings"}
    env.update(DEMO_DATABASE=str(database), DJANGO_DEBUG="1")
    log = folder / "runserver.log"
    with log.open("w") as stderr, (folder / "worker.log").open("w") as worker_log:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.2"],
            cwd=REPO,
            env=env,
            stdout=worker_log,
            stderr=worker_log,
        )
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=env,
            stdout=stderr,
            stderr=stderr,
        )
        try:
            wait_for_port(port, server, time.monotonic() + 60)
            yield url, token, log
        finally:
            stop(server)
            stop(worker)


def test_make_demo_serves_the_showcase_as_it_promises(demo):
    """`make demo`'s server (runserver, DEBUG on): masking on, the PDF a resource, no noise."""
    url, token, log = demo

    async def scenario():
        async with connect(url, token=token, mode="legacy") as client:
            return (
                await client.call_tool("todo_export_pdf", {}),
                await client.call_tool("todo_sync", {}),
            )

    pdf, sync = asyncio.run(asyncio.wait_for(scenario(), timeout=60))
    # The GET a client opens after initialize: runserver is threaded, so it is the stream of
    # notifications (docs/subscriptions.md), open at once with a comment, closed by the client.
    headers = {"Accept": "text/event-stream", "Authorization": f"Token {token}"}
    with httpx2.stream("GET", url, headers=headers, timeout=10) as probe:
        first = next(probe.iter_bytes())
    assert pdf.is_error is False
    (block,) = pdf.content
    assert block.type == "resource" and block.resource.mime_type == "application/pdf"
    assert str(block.resource.uri) == url.replace("/mcp", "/showcase/export.pdf")
    assert base64.b64decode(block.resource.blob).startswith(b"%PDF-")
    # DEBUG is on, and the failing view's error is masked all the same.
    assert sync.is_error is True
    assert [b.text for b in sync.content] == ["Internal server error"]
    assert "django-mcp-tools/errorRef" in (sync.meta or {})
    assert (probe.status_code, probe.headers["Content-Type"]) == (200, "text/event-stream")
    assert first == b": keep-alive\n\n"
    assert "Method Not Allowed" not in log.read_text()


# todo_export: a task for a client that can take one, inline for any other ---------------------

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


def post(url, token, client, method, params=None):
    """Send one 2026-07-28 request as ``client`` (an ``MCPClient``) writes it, over HTTP."""
    message = client.message(method, params)
    headers = {**client.headers_for(message), "Authorization": f"Token {token}"}
    answer = httpx2.post(url, json=message, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    if answer.headers["Content-Type"].startswith("text/event-stream"):
        from tests.wire import sse_messages

        return sse_messages(answer.content)[-1]
    return answer.json()


def modern_client(capabilities):
    from mcp_tools.test import MCPClient

    return MCPClient(protocol_version="2026-07-28", client_capabilities=capabilities)


def test_todo_export_runs_as_a_task_on_the_demo_s_worker(demo):
    url, token, _ = demo
    client = modern_client({"extensions": {TASKS_EXTENSION: {}}})
    created = post(url, token, client, "tools/call", {"name": "todo_export", "arguments": {}})
    handle = created["result"]
    assert (handle["resultType"], handle["status"]) == ("task", "working")
    task = {"taskId": handle["taskId"]}
    seen = set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        polled = post(url, token, client, "tasks/get", task)["result"]
        seen.add(polled.get("statusMessage"))
        if polled["status"] != "working":
            break
        time.sleep(0.2)
    assert polled["status"] == "completed", polled
    exported = polled["result"]["structuredContent"]
    assert exported["count"] == len(exported["todos"]) >= 1  # seed_demo's todos
    assert any(message and message.startswith("Exporting: ") for message in seen), seen


def test_todo_export_runs_inline_for_a_client_without_the_extension(demo):
    url, token, _ = demo
    started = time.monotonic()
    answer = post(
        url,
        token,
        modern_client({}),
        "tools/call",
        {"name": "todo_export", "arguments": {"seconds": 1}},
    )
    assert time.monotonic() - started >= 1  # the view's time, waited for inline
    result = answer["result"]
    assert "resultType" not in result or result["resultType"] == "complete"
    assert result["isError"] is False and result["structuredContent"]["count"] >= 1


def session_processes(session, word):
    """The PIDs of the processes of ``session`` whose command line has ``word``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # ended meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == session and word.encode() in command:
            found.append(int(entry.name))
    return found


def test_make_demo_starts_a_task_worker_and_stops_it_with_the_server(tmp_path):
    """`make demo` itself: one command, the server and the worker beside it; when the
    server stops, however it stops, the worker is stopped by its PID."""
    import signal

    venv = Path(sys.prefix)
    port = free_port()
    env = {**os.environ, "DEMO_DATABASE": str(tmp_path / "demo.sqlite3")}
    env.pop("DJANGO_SETTINGS_MODULE", None)  # manage.py's own: the demo's settings
    output = tmp_path / "make.log"
    with output.open("w") as log:
        make = subprocess.Popen(
            # -o: the test's venv is installed already; make must not reinstall into it.
            ["make", "-o", f"{venv}/.installed", f"VENV={venv}", f"PORT={port}", "demo"],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own session: its processes are found by it
        )
        try:
            wait_for_port(port, make, time.monotonic() + 120)
            worker = int(re.search(r"Task worker: .* PID (\d+)", output.read_text()).group(1))
            assert session_processes(make.pid, "db_worker") == [worker]
            # The server ends, not by the terminal's Ctrl-C (which db_worker hears too).
            servers = session_processes(make.pid, "runserver")
            assert servers
            for pid in servers:  # runserver's reloader and its child: one may take the other
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            make.wait(timeout=30)
        finally:
            if make.poll() is None:
                os.killpg(make.pid, signal.SIGKILL)
                make.wait(timeout=10)
            left = session_processes(make.pid, "manage.py")
            for pid in left:  # what a failure left running, by its PID
                os.kill(pid, signal.SIGKILL)
    assert left == []
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)


# The landing page at / ------------------------------------------------------------------------


def listed_names(url, token):
    """The tools the official SDK lists with this token, sent as most clients send it."""

    async def listing():
        async with connect(url, token=token, scheme="Bearer") as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

    return asyncio.run(asyncio.wait_for(listing(), 30))


def test_the_landing_page_shows_an_anonymous_visitor_what_the_endpoint_shows_them(demo):
    from demo_project.clients import configurations

    url, _, _ = demo
    page = httpx2.get(url.removesuffix("mcp"), timeout=10)
    refused = httpx2.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
        timeout=10,
    )
    assert page.status_code == 200
    assert (refused.status_code, refused.headers["WWW-Authenticate"]) == (401, "Token")
    assert 'id="tools"' not in page.text  # no tools: an anonymous client lists none either
    assert "answers <strong>401</strong>" in page.text and "WWW-Authenticate: Token" in page.text
    assert f'<code id="mcp-url">{url}</code>' in page.text
    assert "drf_create_token" in page.text
    # Every client's configuration, from the source seed_demo prints, a placeholder for the key.
    for config in configurations(url, "<your-token>"):
        assert html.escape(config.text) in page.text


def sign_in(browser, base, username, password):
    """Sign in from the landing page's link; return the tool names it lists and the token."""
    from selenium.webdriver.common.by import By

    from tests.interop.test_browser import fill_login_form

    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
    browser.get(f"{base}/")
    browser.find_element(By.LINK_TEXT, "Sign in").click()
    fill_login_form(browser, username, password, "#sign-in", "tools")
    names = browser.find_elements(By.CSS_SELECTOR, "#tools td:first-child code")
    return sorted(name.text for name in names), browser.find_element(By.ID, "token").text


def test_a_signed_in_visitor_sees_the_tools_their_token_lists(demo, chromium, tmp_path):
    from tests.interop.test_browser import save_screenshot

    url, token, _ = demo
    base = url.removesuffix("/mcp")
    try:
        names, shown = sign_in(chromium, base, "demo", "demo")
        assert shown == token  # seed_demo's token, the one `make demo` prints
        assert names == listed_names(url, token)
        assert "todo_list" in names and "todo_stats" not in names  # staff only
        assert f"Bearer {token}" in chromium.page_source  # the configurations carry it
        save_screenshot(chromium, tmp_path, "demo-landing", size=(1280, 2200))

        names, admin_token = sign_in(chromium, base, "admin", "admin")
        assert "todo_stats" in names and names == listed_names(url, admin_token)
    finally:
        chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
        chromium.get("about:blank")
