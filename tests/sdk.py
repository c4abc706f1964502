"""Drive the endpoint with the official MCP Python SDK over real HTTP, capturing the wire."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
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
        #: Each request as it is sent, with its status once that came (None until then: a
        #: client may close before the answer to its last POST arrives).
        self.sent: list[list[Any]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.content
        message = json.loads(body) if body else None
        entry: list[Any] = [message, None]
        self.sent.append(entry)
        response = await self.inner.handle_async_request(request)
        content_type = response.headers.get("content-type", "")
        self.statuses.append((message, response.status_code))
        entry[1] = response.status_code

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


def call_answering(
    url: str,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    answer: Callable[[Any], Any],
    token: str | None = None,
    mode: str = "auto",
    wire: Wire | StreamingWire | None = None,
) -> tuple[Any, list[Any]]:
    """Call ``name`` once with the official SDK, answering every elicitation with
    ``answer(params)`` (an ``ElicitResult``); return the call's result and the params of
    each question, in the order asked. Bounded to 60 s."""
    asked: list[Any] = []

    async def elicitation(context: Any, params: Any) -> Any:
        asked.append(params)
        return answer(params)

    async def scenario() -> Any:
        async with connect(
            url, token=token, mode=mode, wire=wire, elicitation_callback=elicitation
        ) as client:
            return await client.call_tool(name, arguments or {})

    return asyncio.run(asyncio.wait_for(scenario(), timeout=60)), asked


def destroy_confirmed(url: str, pk: int, action: str, **options: Any) -> tuple[Any, list[Any]]:
    """Call the demo's ``todo_destroy`` on ``pk``, answering its confirmation with
    ``action``; return the result and each question as ``(message, requestedSchema)``.
    ``options`` go to ``call_answering`` (token, mode, wire)."""
    import mcp_types

    def answer(params: Any) -> Any:
        return mcp_types.ElicitResult(action=action)

    done, asked = call_answering(url, "todo_destroy", {"pk": pk}, answer=answer, **options)
    return done, [(params.message, params.requested_schema) for params in asked]


def answering_everything(greeting: str) -> dict[str, Any]:
    """``mcp.Client`` callbacks that answer a form with the name Ann, a sampling with
    ``greeting`` and ``roots/list`` with ``file:///work``."""
    import mcp_types

    async def sampling(context: Any, params: Any) -> Any:
        content = mcp_types.TextContent(type="text", text=greeting)
        return mcp_types.CreateMessageResult(role="assistant", content=content, model="m")

    async def elicitation(context: Any, params: Any) -> Any:
        return mcp_types.ElicitResult(action="accept", content={"name": "Ann"})

    async def roots(context: Any) -> Any:
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri="file:///work")])

    return {
        "sampling_callback": sampling,
        "elicitation_callback": elicitation,
        "list_roots_callback": roots,
    }


def name_then_colour(params: Any) -> Any:
    """Answer the test project's ``ask_word`` and ``ask_on_stream``: Alice, then blue."""
    import mcp_types

    field = next(iter(params.requested_schema["properties"]))
    value = {"name": "Alice", "color": "blue"}[field]
    return mcp_types.ElicitResult(action="accept", content={field: value})


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
