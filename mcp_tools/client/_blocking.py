"""Adapted tools with synchronous calls, over a connection that owns its event-loop thread."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from anyio.from_thread import start_blocking_portal

from ._adapter import AdaptedTool, adapt_tools, check_arguments
from ._bounding import Processor
from ._input import INPUT_METHODS, InputHandler, in_thread, input_callbacks
from ._output import ToolOutput

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal
    from mcp import Client
    from mcp_types import Tool

_T = TypeVar("_T")

DEFAULT_TIMEOUT = 30.0
DEFAULT_READ_TIMEOUT = 300.0
#: As the server side's ``MAX_RESPONSE_BYTES``: 10 MiB.
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SyncAdaptedTool:
    """One remote tool; ``tool.call(arguments)`` blocks and returns a plain tool output."""

    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    #: The tool as the server listed it (annotations, output schema, icons, _meta).
    definition: Tool = field(repr=False)
    _tool: AdaptedTool = field(repr=False, compare=False)
    _portal: BlockingPortal = field(repr=False, compare=False)

    def call(self, arguments: Mapping[str, Any] | None = None) -> ToolOutput:
        """Call the tool with ``arguments`` and return its output; see ``AdaptedTool.call``."""
        # Checked here too, so a bad value fails in the caller's thread, before any request.
        output: ToolOutput = self._portal.call(self._tool.call, check_arguments(arguments))
        return output

    __call__ = call


@contextmanager
def adapt_tools_sync(
    url: str,
    headers: Mapping[str, str] | None = None,
    *,
    processors: Iterable[Processor] = (),
    on_input_required: InputHandler | None = None,
    input_methods: Iterable[str] = INPUT_METHODS,
    timeout: float = DEFAULT_TIMEOUT,
    read_timeout: float = DEFAULT_READ_TIMEOUT,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    **client_options: Any,
) -> Iterator[list[SyncAdaptedTool]]:
    """Connect to the Streamable HTTP server at ``url`` and yield its tools, adapted.

    The connection runs on an event loop in a thread of its own, so this works in code
    that has no event loop (Django views, management commands, tests, the shell). Both are
    closed when the block ends, also on an exception. ``headers`` are sent with every
    request; ``timeout`` bounds connecting and sending, ``read_timeout`` each response.
    ``max_response_bytes`` bounds what is read of a response body, and of each event of
    a stream (``bounded_http_client``).
    ``client_options`` go to ``mcp.Client`` (for example ``mode="legacy"``).

    ``on_input_required`` (a plain function, run in a worker thread) answers the input a
    server asks for mid-call; the client declares the ``input_methods`` it answers
    (elicitation, sampling, roots: all three by default) as its capabilities.
    """
    steps = tuple(processors)
    handler = in_thread(on_input_required) if on_input_required is not None else None
    if handler is not None:
        client_options = {**input_callbacks(handler, input_methods), **client_options}
    with start_blocking_portal(name="mcp-tools-client") as portal:
        connection = portal.wrap_async_context_manager(
            _connect(
                url, dict(headers or {}), timeout, read_timeout, max_response_bytes, client_options
            )
        )
        client = _unwrapped(connection.__enter__)
        try:
            adapt = partial(adapt_tools, client, processors=steps, on_input_required=handler)
            tools = _unwrapped(partial(portal.call, adapt))
            yield [
                SyncAdaptedTool(
                    name=tool.name,
                    title=tool.title,
                    description=tool.description,
                    input_schema=tool.input_schema,
                    definition=tool.definition,
                    _tool=tool,
                    _portal=portal,
                )
                for tool in tools
            ]
        finally:
            # The block's own exception is not thrown into the connection: the SDK's task
            # groups would wrap it in an ExceptionGroup, and the caller must get it as is.
            _unwrapped(partial(connection.__exit__, None, None, None))


def _unwrapped(function: Callable[[], _T]) -> _T:
    """Call ``function``; re-raise a lone exception out of the task groups that wrap it."""
    try:
        return function()
    except BaseExceptionGroup as group:
        error: BaseException = group
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        if isinstance(error, BaseExceptionGroup):
            raise
        raise error from None


@asynccontextmanager
async def _connect(
    url: str,
    headers: dict[str, str],
    timeout: float,
    read_timeout: float,
    max_response_bytes: int,
    client_options: Mapping[str, Any],
) -> AsyncIterator[Client]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from ._http import bounded_http_client

    http = bounded_http_client(
        headers,
        httpx2.Timeout(timeout, read=read_timeout),
        max_response_bytes=max_response_bytes,
    )
    transport = streamable_http_client(url, http_client=http, max_sse_event_size=max_response_bytes)
    # The transport leaves a client it was given open, so this block closes it.
    client = Client(transport, read_timeout_seconds=read_timeout, **client_options)
    async with http, client:
        yield client
