"""``warm_up()``: every tool built and the admin state read at a server's start-up, the same
definitions as a process that builds them at its first tools/list (docs/performance.md)."""

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import OperationalError

import mcp_tools
from mcp_tools.catalog import admin_state as catalog
from mcp_tools.catalog.admin_state import catalogs
from mcp_tools.endpoint import startup
from mcp_tools.endpoint.mounts import served_registries
from mcp_tools.protocol.jsonrpc import encode
from mcp_tools.protocol.projection import project_tool
from mcp_tools.protocol.versions import (
    CLIENT_CAPABILITIES_META_KEY,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    SUPPORTED_VERSIONS,
)
from mcp_tools.test import MCPClient
from mcp_tools.tools import definitions, registry
from tests.conformance_app.server import (
    DATABASE_ENV,
    REPO,
    free_port,
    migrated_database,
    wait_for_port,
)
from tests.processes import stop

pytestmark = pytest.mark.django_db

RECORDED = Path(__file__).with_name("recorded_definitions.json")
CONFORMANCE = "tests.conformance_app.settings"


@pytest.fixture
def new_process():
    """Forget what this process built, as a new process starts without it."""
    for each in served_registries():
        each.clear()
    catalogs.clear()
    yield
    for each in served_registries():
        each.clear()
    catalogs.clear()


def listing_bytes(token, version):
    """Return the raw bodies of every tools/list page, as alice's client gets them."""
    client = MCPClient(headers={"Authorization": f"Token {token}"}, protocol_version=version)
    bodies, params = [], None
    while True:
        response = client.send(client.message("tools/list", params))
        assert response.status_code == 200
        bodies.append(response.content)
        cursor = json.loads(response.content)["result"].get("nextCursor")
        if cursor is None:
            return bodies
        params = {"cursor": cursor}


def test_warm_up_is_public_api():
    assert "warm_up" in mcp_tools.__all__
    assert mcp_tools.warm_up is startup.warm_up


def test_a_prepared_process_builds_nothing_at_its_first_tools_list(
    new_process, alice, monkeypatch, django_assert_num_queries
):
    mcp_tools.warm_up()

    def refuse(*args, **kwargs):
        raise AssertionError("built at the first request, not at start-up")

    monkeypatch.setattr(registry, "build_tool", refuse)
    monkeypatch.setattr(catalog, "load_state", refuse)
    bodies = listing_bytes(alice.token, "2025-11-25")
    names = [tool["name"] for body in bodies for tool in json.loads(body)["result"]["tools"]]
    assert "todo_list" in names


def test_without_warm_up_the_first_tools_list_builds_the_tools(new_process, alice, monkeypatch):
    built = []
    build_tool = registry.build_tool
    monkeypatch.setattr(
        registry, "build_tool", lambda *a, **k: built.append(1) or build_tool(*a, **k)
    )
    listing_bytes(alice.token, "2025-11-25")
    assert len(built) >= len(registry.registry.tools())


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_prepared_and_lazy_processes_list_the_same_bytes(new_process, alice, version):
    lazy = listing_bytes(alice.token, version)
    for each in served_registries():
        each.clear()
    catalogs.clear()
    mcp_tools.warm_up()
    assert listing_bytes(alice.token, version) == lazy


def test_the_definitions_are_those_recorded_before_the_cold_path_changed(new_process):
    """Every tool's definition, in every protocol version, byte for byte as it was listed
    before the cold path changed (recorded at the commit in the file, by the same code),
    per Django major version: a few schemas follow Django's own parsers (Django 6 reads
    weeks in a duration).

    A deliberate change of a definition records them again, for the Django it runs on:
    ``MCP_TESTS_RECORD_DEFINITIONS=1 pytest tests/endpoint/test_startup.py``.
    """
    import django

    recorded = json.loads(RECORDED.read_text())
    assert recorded["versions"] == sorted(SUPPORTED_VERSIONS)
    major = str(django.VERSION[0])
    seen = {}
    for each in served_registries():
        for tool in each.tools():
            texts = [encode(project_tool(tool.definition(), v)) for v in recorded["versions"]]
            seen.setdefault(tool.name, hashlib.sha256("\n".join(texts).encode()).hexdigest())
    if os.environ.get("MCP_TESTS_RECORD_DEFINITIONS"):
        recorded["sha256"][major] = dict(sorted(seen.items()))
        RECORDED.write_text(json.dumps(recorded, indent=1) + "\n")
    digests = recorded["sha256"][major]
    changed = sorted(name for name in seen if digests.get(name) != seen[name])
    assert sorted(seen) == sorted(digests)
    assert changed == []


@pytest.mark.parametrize(
    "failure",
    [
        OperationalError("no such table: mcp_tools_exposedtool"),
        # The shared cache is read first: Redis restarting during a deploy.
        ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    ],
)
def test_an_admin_state_it_cannot_read_is_left_to_the_first_request(
    new_process, alice, monkeypatch, caplog, failure
):
    def unreadable(routed):
        raise failure

    monkeypatch.setattr(startup, "catalog_for", unreadable)
    mcp_tools.warm_up()  # no exception: the server still starts
    assert "the admin state is left to the first request" in caplog.text
    assert str(failure) in caplog.text
    monkeypatch.undo()
    assert listing_bytes(alice.token, "2025-11-25")


def test_a_tool_that_cant_be_built_fails_the_start_up(new_process, monkeypatch):
    def broken(cand, several):
        raise definitions.ToolDefinitionError(
            definitions.ToolProblem("mcp_tools.E002", None, {"name": "bad name", "where": "x"})
        )

    monkeypatch.setattr(registry, "build_tool", broken)
    with pytest.raises(Exception, match="bad name"):
        mcp_tools.warm_up()


SCRIPT = """
import django
django.setup()
from django.db import connections
import mcp_tools
mcp_tools.warm_up()
print(connections["default"].connection is None)
"""


def test_warm_up_closes_the_connection_it_opened(tmp_path):
    # A server that forks after warm_up() (gunicorn --preload) must not hand one database
    # connection to every worker.
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "MCP_TESTS_DATABASE": str(tmp_path / "empty.sqlite3"),
            "PYTHONPATH": ".",
        },
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True"


@contextmanager
def gunicorn(module, folder):
    """Yield the URL of one gunicorn worker of the conformance server, ``--preload``ed."""
    port = free_port()
    folder.mkdir()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": CONFORMANCE,
        DATABASE_ENV: str(migrated_database(CONFORMANCE, folder)),
        "MCP_TESTS_CACHE": str(folder / "cache"),
    }
    command = [sys.executable, "-m", "gunicorn", f"{module}:application", "--preload"]
    command += ["--workers", "1", "--bind", f"127.0.0.1:{port}", "--log-level", "warning"]
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process, time.monotonic() + 30)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def raw_listing(url, version):
    """Return the bodies of every tools/list page, as the server sent them."""
    bodies, params = [], {}
    while True:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": version,
        }
        if version in MODERN_VERSIONS:
            headers["Mcp-Method"] = "tools/list"
            params["_meta"] = {
                PROTOCOL_VERSION_META_KEY: version,
                CLIENT_CAPABILITIES_META_KEY: {},
            }
        data = json.dumps(message).encode()
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        bodies.append(body)
        cursor = json.loads(body)["result"].get("nextCursor")
        if cursor is None:
            return bodies
        params = {"cursor": cursor}


@pytest.mark.e2e
def test_a_server_prepared_before_its_workers_fork_serves_the_same_tools(tmp_path):
    from tests.sdk import all_tools, connect

    async def listed_and_called(url):
        async with connect(url, mode="legacy") as client:
            tools = await all_tools(client)
            called = await client.call_tool("test_simple_text")
            return {name: tool.model_dump() for name, tool in tools.items()}, called

    with (
        gunicorn("tests.conformance_app.wsgi", tmp_path / "lazy") as lazy,
        gunicorn("tests.conformance_app.prepared_wsgi", tmp_path / "prepared") as prepared,
    ):
        for version in SUPPORTED_VERSIONS:
            assert raw_listing(prepared, version) == raw_listing(lazy, version), version
        lazy_tools, _ = asyncio.run(asyncio.wait_for(listed_and_called(lazy), 60))
        tools, called = asyncio.run(asyncio.wait_for(listed_and_called(prepared), 60))
    assert tools == lazy_tools and "test_simple_text" in tools
    assert called.is_error is False  # the forked worker serves calls as any other


ASGI_SCRIPT = """
import asyncio
import django
django.setup()
from django.db import connections
import mcp_tools
from mcp_tools.catalog.admin_state import catalogs

async def importing_the_application():
    mcp_tools.warm_up()  # as an ASGI server that imports the app inside its event loop

asyncio.run(importing_the_application())
print(catalogs._state is not None, connections["default"].connection is None)
"""


def test_warm_up_reads_the_admin_state_inside_an_event_loop(tmp_path):
    database = migrated_database(CONFORMANCE, tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", ASGI_SCRIPT],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": CONFORMANCE,
            DATABASE_ENV: str(database),
            "MCP_TESTS_CACHE": str(tmp_path / "cache"),
            "PYTHONPATH": ".",
        },
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]
