"""The MCP Inspector CLI finds every tool schema portable (``--strict``), over real HTTP."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)

#: The one finding the contract accepts: nullable is written as a type list (docs/tools.md,
#: portability), which the Inspector flags as a warning (never an error) for single-type dialects.
ACCEPTED_WARNINGS = {"type-union"}


def inspector() -> Path:
    """Locate the Inspector of `make node-tools`; fail under CI, skip locally, when missing."""
    root = Path(os.environ.get("MCP_TOOLS_NODE_DIR") or REPO / ".mcp-tools")
    binary = root / "node_modules" / ".bin" / "mcp-inspector"
    if not (binary.exists() and (root / "node_modules" / ".bin" / "node").exists()):
        message = f"MCP Inspector missing in {root}: run `make node-tools`"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


def list_strict(url: str, token: str, home: Path) -> subprocess.CompletedProcess:
    binary = inspector()
    command = [str(binary), "--cli", url, "--transport", "http", "--format", "json"]
    command += ["--header", f"Authorization: Token {token}", "--method", "tools/list", "--strict"]
    # The Inspector writes a settings folder under HOME; its launcher needs node on PATH.
    env = {**os.environ, "HOME": str(home), "PATH": f"{binary.parent}:{os.environ['PATH']}"}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=90)


def test_every_tool_schema_passes_the_inspectors_strict_lint(
    live_server, alice, tmp_path, settings
):
    # One page holds every tool, so every schema is linted whatever the client does with cursors.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "PAGE_SIZE": 1000}
    completed = list_strict(f"{live_server.url}/mcp", alice.token, tmp_path)
    assert completed.returncode == 0, completed.stderr
    envelope = json.loads(completed.stdout)
    names = {tool["name"] for tool in envelope["result"]["tools"]}
    assert {"todo_list", "todo_create", "s_every", "s_node", "s_gadget_list"} <= names
    rules = {
        finding["rule"]
        for tool in envelope.get("schemaFindings", [])
        for finding in tool["findings"]
    }
    assert rules <= ACCEPTED_WARNINGS, completed.stderr


def test_a_tagged_endpoint_serves_only_its_tools_to_the_inspector(live_server, alice, tmp_path):
    completed = list_strict(f"{live_server.url}/s/mcp-forms", alice.token, tmp_path)
    assert completed.returncode == 0, completed.stderr
    tools = json.loads(completed.stdout)["result"]["tools"]
    assert sorted(tool["name"] for tool in tools) == ["s_every", "s_node"]


def test_the_discovery_tools_pass_the_inspectors_strict_lint(
    live_server, alice, tmp_path, settings
):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "auto"}  # 193 tools: over 40
    completed = list_strict(f"{live_server.url}/mcp", alice.token, tmp_path)
    assert completed.returncode == 0, completed.stderr
    envelope = json.loads(completed.stdout)
    assert [tool["name"] for tool in envelope["result"]["tools"]] == ["search_tools", "call_tool"]
    assert envelope.get("schemaFindings", []) == [], completed.stderr
