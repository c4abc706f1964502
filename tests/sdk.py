"""Drive the endpoint with the official MCP Python SDK over real HTTP, capturing the wire."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


@dataclass
class Wire:
    """Every HTTP exchange the SDK client made: (request JSON, status, response bytes)."""

    exchanges: list[tuple[Any, int, str, bytes]] = field(default_factory=list)

    async def hook(self, response: httpx2.Response) -> None:
        await response.aread()
        request = response.request
        body = request.content
        message = json.loads(body) if body else None
        self.exchanges.append(
            (
                message,
                response.status_code,
                response.headers.get("content-type", ""),
                response.content,
            )
        )

    def posts(self) -> list[tuple[Any, int, str, bytes]]:
        return [exchange for exchange in self.exchanges if exchange[0] is not None]


@asynccontextmanager
async def connect(
    url: str,
    *,
    token: str | None = None,
    mode: str = "auto",
    wire: Wire | None = None,
    scheme: str = "Token",
    **client_options: Any,
):
    """Yield a connected ``mcp.Client``; the token goes in ``Authorization: <scheme> ...``.

    ``client_options`` go to ``mcp.Client`` (its elicitation, sampling and roots callbacks).
    """
    headers = {"Authorization": f"{scheme} {token}"} if token else {}
    hooks = {"response": [wire.hook]} if wire is not None else {}
    http = httpx2.AsyncClient(headers=headers, event_hooks=hooks, timeout=30)
    transport = streamable_http_client(url, http_client=http)
    async with http, Client(transport, mode=mode, **client_options) as client:
        yield client


async def all_tools(client: Client) -> dict[str, Any]:
    """Return every tool the client lists, by name, following ``nextCursor`` page by page."""
    tools: dict[str, Any] = {}
    cursor = None
    while True:
        listed = await client.list_tools(cursor=cursor)
        tools.update((tool.name, tool) for tool in listed.tools)
        cursor = listed.next_cursor
        if cursor is None:
            return tools


async def listed_and_called(url: str, token: str, tool: str, wire: Wire | None = None):
    """Connect to ``url`` as the token's user: return the names it lists, and what calling
    ``tool`` gives (its result, or the ``MCPError`` it raised)."""
    from mcp import MCPError

    async with connect(url, token=token, mode="auto", wire=wire) as client:
        names = {listed.name for listed in (await client.list_tools()).tools}
        try:
            outcome: Any = await client.call_tool(tool)
        except MCPError as error:
            outcome = error
        return names, outcome
