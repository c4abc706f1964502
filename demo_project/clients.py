"""How each MCP client connects to a site: the one source of every configuration we print.

``manage.py seed_demo`` prints them, the demo's landing page shows them, and
``docs/clients.md`` shows them for a placeholder URL and token (a test holds the page to
what ``configurations()`` returns). Each format was checked against its client's own
documentation: Claude Code's ``.mcp.json`` and ``claude mcp add``, Cursor's ``mcp.json``, VS
Code's ``.vscode/mcp.json``, Claude Desktop's ``claude_desktop_config.json`` (local servers
only, hence the ``mcp-remote`` bridge for a header), and the MCP Inspector CLI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

SERVER = "django-todos"


@dataclass(frozen=True)
class Configuration:
    """One client's set-up: where it goes, and the text to paste there."""

    client: str
    where: str
    text: str
    language: str  # "json" (a file's content) or "console" (a command to run)

    @property
    def data(self) -> object:
        """The configuration as JSON data (``json`` ones only)."""
        return json.loads(self.text)


def _dump(value: object) -> str:
    return json.dumps(value, indent=2)


def configurations(
    url: str, key: str | None = None, *, name: str = SERVER, scheme: str = "Bearer"
) -> list[Configuration]:
    """Return every client's configuration for the endpoint at ``url``.

    With ``key``, the clients send ``Authorization: <scheme> <key>`` (a DRF token; ``Bearer``
    needs ``BearerTokenAuthentication`` on the endpoint, ``Token`` is DRF's own keyword).
    Without it they send no header and sign in through OAuth, discovering the
    authorization server from the endpoint's 401 (docs/oauth.md).
    """
    header = f"{scheme} {key}" if key is not None else None
    headers = {"headers": {"Authorization": header}} if header else {}
    flag = f' --header "Authorization: {header}"' if header else ""
    found = [
        Configuration(
            "Claude Code",
            ".mcp.json at the root of your project",
            _dump({"mcpServers": {name: {"type": "http", "url": url, **headers}}}),
            "json",
        ),
        Configuration(
            "Claude Code",
            "a terminal, in your project",
            f"claude mcp add --transport http {name} {url}{flag}",
            "console",
        ),
        Configuration(
            "Cursor",
            "~/.cursor/mcp.json, or .cursor/mcp.json in your project",
            _dump({"mcpServers": {name: {"url": url, **headers}}}),
            "json",
        ),
        Configuration(
            "VS Code",
            ".vscode/mcp.json in your workspace",
            _dump({"servers": {name: {"type": "http", "url": url, **headers}}}),
            "json",
        ),
    ]
    if header:
        # Claude Desktop's file starts local servers only: mcp-remote (npm) bridges to the
        # URL and adds the header. The header goes through env: a space inside args is
        # split on some platforms.
        desktop = {
            "command": "npx",
            "args": ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"],
            "env": {"AUTH_HEADER": header},
        }
        found.append(
            Configuration(
                "Claude Desktop",
                "claude_desktop_config.json (Settings → Developer → Edit Config)",
                _dump({"mcpServers": {name: desktop}}),
                "json",
            )
        )
    inspector = "npx @modelcontextprotocol/inspector@2.12.0 --cli"
    found.append(
        Configuration(
            "MCP Inspector",
            "a terminal",
            f"{inspector} {url} --transport http{flag} --method tools/list",
            "console",
        )
    )
    return found
