"""Adapted tools: the tools of a connected MCP client as plain async callables."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._bounding import Processor, compose
from ._errors import McpToolError, UnsupportedContentError
from ._input import InputHandler, call_with_input
from ._output import ToolOutput, to_tool_output

if TYPE_CHECKING:
    from mcp import Client, ClientSession
    from mcp_types import CallToolResult, ListToolsResult, Tool

CallTool = Callable[[str, "dict[str, Any] | None"], Awaitable["CallToolResult"]]

# A server whose cursors never end must not hang the listing.
MAX_LIST_PAGES = 1000


@dataclass(frozen=True, slots=True)
class AdaptedTool:
    """One remote tool; ``await tool.call(arguments)`` returns a plain tool output."""

    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    #: The tool as the server listed it (annotations, output schema, icons, _meta).
    definition: Tool = field(repr=False)
    _call_tool: CallTool = field(repr=False, compare=False)
    processors: tuple[Processor, ...] = field(default=(), repr=False)

    async def call(self, arguments: Mapping[str, Any] | None = None) -> ToolOutput:
        """Call the tool with ``arguments`` and return its output, processed.

        Raises ``TypeError`` before anything is sent when ``arguments`` is neither a
        mapping nor ``None``, ``McpToolError`` for an error result and
        ``UnsupportedContentError`` for content a plain output can't carry.
        """
        result = await self._call_tool(self.name, check_arguments(arguments))
        try:
            output = to_tool_output(result)
        except McpToolError as error:
            if not self.processors or isinstance(error, UnsupportedContentError):
                raise
            # The error text goes back to the model too, so it is bounded like an output.
            message = _processed_text(error.message, self.processors)
            raise McpToolError(message, result=result) from None
        return compose(*self.processors)(output)

    __call__ = call


async def adapt_tools(
    client: Client | ClientSession,
    *,
    processors: Iterable[Processor] = (),
    on_input_required: InputHandler | None = None,
) -> list[AdaptedTool]:
    """Return the tools of a connected ``mcp.Client`` or ``ClientSession``, adapted.

    Every page of ``tools/list`` is read. ``processors`` (see ``truncate``, ``redact``,
    ``store_artifacts``) run in order on every output; by default there are none.

    When a server asks for input mid-call (an input-required result), ``on_input_required``
    answers each round and the call is retried (docs/client.md). Without it, an
    ``mcp.Client`` answers through its own callbacks (the SDK's support), and a
    ``ClientSession`` raises ``InputRequiredError``.
    """
    from mcp import Client, ClientSession
    from mcp_types import PaginatedRequestParams

    list_page: Callable[[str | None], Awaitable[ListToolsResult]]
    if isinstance(client, Client):
        connected_client = client
        session = client.session

        def list_page(cursor: str | None) -> Awaitable[ListToolsResult]:
            return connected_client.list_tools(cursor=cursor)

    elif isinstance(client, ClientSession):
        session = client

        def list_page(cursor: str | None) -> Awaitable[ListToolsResult]:
            params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
            return session.list_tools(params=params)

    else:
        raise TypeError(
            f"adapt_tools() takes an mcp.Client or a ClientSession, not {type(client).__name__}"
        )
    call_tool: CallTool
    if isinstance(client, Client) and on_input_required is None:
        # The SDK drives input-required rounds itself, through the client's callbacks.
        call_tool = client.call_tool
    else:

        def call_tool(name: str, arguments: dict[str, Any] | None) -> Awaitable[CallToolResult]:
            return call_with_input(session, name, arguments, on_input_required)

    steps = tuple(processors)
    return [_adapt(tool, call_tool, steps) for tool in await _list_all(list_page)]


def check_arguments(arguments: object) -> dict[str, Any] | None:
    """Return ``arguments`` as a dict (``None`` stays ``None``) or raise ``TypeError``."""
    if arguments is None:
        return None
    if not isinstance(arguments, Mapping):
        raise TypeError(
            f"MCP tool arguments must be a dict or None, not {type(arguments).__name__}"
        )
    if not all(isinstance(key, str) for key in arguments):
        raise TypeError("MCP tool argument names must be strings")
    return dict(arguments)


async def _list_all(list_page: Callable[[str | None], Awaitable[ListToolsResult]]) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page = await list_page(cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise RuntimeError(f"tools/list did not end after {MAX_LIST_PAGES} pages")


def _adapt(tool: Tool, call_tool: CallTool, processors: tuple[Processor, ...]) -> AdaptedTool:
    # Servers on 2025-03-26 carry the title in the annotations only.
    title = tool.title or (tool.annotations.title if tool.annotations else None)
    return AdaptedTool(
        name=tool.name,
        title=title,
        description=tool.description,
        input_schema=tool.input_schema,
        definition=tool,
        _call_tool=call_tool,
        processors=processors,
    )


def _processed_text(text: str, processors: tuple[Processor, ...]) -> str:
    output = compose(*processors)(text)
    if isinstance(output, str):
        return output
    return "".join(part["text"] for part in output if part["type"] == "text")
