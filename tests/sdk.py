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


class _TeeStream(httpx2.AsyncByteStream):
    """A response body as the client reads it, kept whole for the record once it ends."""

    def __init__(self, stream: Any, done: Any) -> None:
        self.stream = stream
        self.done = done
        self.chunks: list[bytes] = []

    async def __aiter__(self):
        async for chunk in self.stream:
            self.chunks.append(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self.stream.aclose()
        self.done(b"".join(self.chunks))


class StreamingWire(httpx2.AsyncBaseTransport):
    """Record every exchange like ``Wire``, without reading a stream ahead of the client.

    ``Wire`` reads each body whole in a response hook, which would wait for ever on a stream
    that asks the client something (the handshake era's input requests): this transport
    records a body as the client reads it, once it has ended.
    """

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.exchanges: list[tuple[Any, int, str, bytes]] = []
        #: Each request and its status as soon as the answer's headers came (a body is
        #: recorded in ``exchanges`` only once the client has read it to its end).
        self.statuses: list[tuple[Any, int]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        body = request.content
        message = json.loads(body) if body else None
        content_type = response.headers.get("content-type", "")
        self.statuses.append((message, response.status_code))

        def done(content: bytes) -> None:
            self.exchanges.append((message, response.status_code, content_type, content))

        response.stream = _TeeStream(response.stream, done)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def posts(self) -> list[tuple[Any, int, str, bytes]]:
        return [exchange for exchange in self.exchanges if exchange[0] is not None]


@asynccontextmanager
async def connect(
    url: str,
    *,
    token: str | None = None,
    mode: str = "auto",
    wire: Wire | StreamingWire | None = None,
    scheme: str = "Token",
    **client_options: Any,
):
    """Yield a connected ``mcp.Client``; the token goes in ``Authorization: <scheme> ...``.

    ``client_options`` go to ``mcp.Client`` (its elicitation, sampling and roots callbacks).
    """
    headers = {"Authorization": f"{scheme} {token}"} if token else {}
    hooks = {"response": [wire.hook]} if isinstance(wire, Wire) else {}
    transport = wire if isinstance(wire, StreamingWire) else None
    http = httpx2.AsyncClient(headers=headers, event_hooks=hooks, timeout=30, transport=transport)
    mcp_transport = streamable_http_client(url, http_client=http)
    async with http, Client(mcp_transport, mode=mode, **client_options) as client:
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
