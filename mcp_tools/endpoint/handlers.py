"""JSON-RPC method handlers, dispatched from one table per era as the MCP SDK's server does.

A handler takes one ``Call`` (the parsed request and who made it) and returns its result,
or raises ``JSONRPCError``. It never builds an HTTP response: how the answer travels
(JSON or SSE, alone or in a batch) is the transport's choice (``mcp_tools.views``), and
projection onto the negotiated version happens once, in ``mcp_tools.endpoint.server``.

One ``Exchange`` per HTTP request is shared by its messages (the catalog, the visibility
answers); one ``Call`` per message. ``tools/call`` returns its ``Invocation`` when the view
is still to run: the transport runs it at once, or in a worker thread whose notifications
it streams.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from django.http import HttpRequest
from django.utils.translation import get_language

from ..authentication import Caller, insufficient_scope
from ..catalog.admin_state import Catalog, catalog_for
from ..catalog.visibility import Visibility
from ..conf import mcp_settings
from ..inputs.asks import receive
from ..inputs.request_state import Binding
from ..pipeline.formatters import BaseFormatter
from ..pipeline.invocation import Invocation, report_refusal
from ..pipeline.plans import CallPlan
from ..protocol import headers, mediatypes, versions
from ..protocol.cursors import decode_cursor, encode_cursor
from ..protocol.jsonrpc import INVALID_PARAMS, JSONRPCError, Message, RawJSON, clip, encode
from ..protocol.projection import project_tool
from ..protocol.results import InputRequiredResult, ToolResult
from ..protocol.versions import Era
from ..tasks import methods as task_calls
from ..tools.definitions import hide_listings
from ..tools.registry import ToolRegistry
from ..tools.tool import Tool
from . import tracing

CAPABILITIES = {"tools": {"listChanged": False}, "logging": {}}
EVENT_STREAM = "text/event-stream"


class Endpoint(Protocol):
    """What the handlers need of the endpoint that received the request (``MCPView``)."""

    registry: ToolRegistry | None
    tags: Iterable[str] | None

    def get_registry(self) -> ToolRegistry: ...

    def get_formatter(self) -> BaseFormatter: ...

    def get_resource_metadata_url(self, request: HttpRequest) -> str | None: ...

    def serves(self, tool: Tool) -> bool: ...

    def throttle_call(self) -> None: ...


@dataclass(eq=False)
class Exchange:
    """One HTTP request to the endpoint: who made it, to which endpoint, and what every
    message of it shares (a batch's items too): the catalog, the visibility answers."""

    request: HttpRequest
    caller: Caller
    endpoint: Endpoint
    #: The ``tools/call`` messages seen so far (a batch has several).
    calls: int = 0
    #: The media ranges the client accepts, where a tool call's answer may be an SSE
    #: stream; None for a batch, and for a call made in-process (docs/protocol.md).
    accepted: mediatypes.Ranges | None = None
    #: An operator's own call (Try it, ``mcp_call``): a confirmed tool runs unasked, as the
    #: operator chose to run it (docs/input.md).
    operator: bool = False

    @cached_property
    def streams(self) -> bool:
        """Whether a tool call's answer may be an SSE stream: the client reads it."""
        return self.accepted is not None and mediatypes.admits(self.accepted, EVENT_STREAM)

    @cached_property
    def asks(self) -> bool:
        """Whether a handshake-era call may ask its client on a stream: the client names
        ``text/event-stream`` (an MCP client does; a script that accepts ``*/*`` may read
        the stream, but would never answer what it asks)."""
        return self.accepted is not None and mediatypes.names(self.accepted, EVENT_STREAM)

    def count_call(self) -> None:
        """Count a ``tools/call`` against the endpoint's throttles: the request itself was
        counted once, so each further call of a batch is counted as a request of its own.
        Raises the endpoint's 429 refusal (-32029) when a throttle refuses it."""
        self.calls += 1
        if self.calls > 1:
            self.endpoint.throttle_call()

    @property
    def endpoint_path(self) -> str:
        """The path the endpoint answered at, its ``PATH_INFO`` (its OAuth resource,
        docs/oauth.md)."""
        return self.request.path_info

    @cached_property
    def catalog(self) -> Catalog:
        """The request's tools as admins configured them (the admin state's version read at
        most once per ``ADMIN_STATE_MAX_AGE``), of the URLconf Django's handler resolved the
        request with: the request's own (``request.urlconf``), else ``ROOT_URLCONF``."""
        urlconf = getattr(self.request, "urlconf", None) or mcp_settings.root_urlconf
        return catalog_for(self.endpoint.get_registry().tools(urlconf))

    @cached_property
    def visibility(self) -> Visibility:
        return Visibility(self.request, self.caller, self.endpoint)

    def served(self) -> int:
        """Return how many tools this endpoint serves, whoever asks."""
        if self.endpoint.tags is None:
            return len(self.catalog.tools)
        return sum(1 for tool in self.catalog if self.endpoint.serves(tool))

    def tools(self) -> tuple[list[Tool], Any]:
        """Return the tools this request may see, in URLconf order, and what the list
        depends on (equal keys, equal lists)."""
        tags = self.endpoint.tags
        endpoint = tuple(sorted(tags)) if tags is not None else None
        return self.visibility.visible_tools(self.catalog, self.endpoint.serves, endpoint)

    def plan(self, name: str) -> CallPlan | None:
        """Return the call plan of the tool ``name`` if this request may call it, else None
        (an unknown tool).

        The same rule as ``tools()``: a tool this request can't see can't be called.
        """
        # First, whatever the name: the caller's groups, read once per request when a rule
        # names any, so that an unknown name, a disabled tool and one hidden by its groups
        # take the same reads to refuse (docs/security.md).
        self.visibility.read_groups(self.catalog)
        catalog = self.catalog
        tool = catalog.tools.get(name)
        if tool is None or not self.endpoint.serves(tool):
            return None
        return catalog.plan(tool) if self.visibility.sees(tool, catalog) else None

    def refusal(self, name: str) -> JSONRPCError:
        """Answer a call of a tool this request may not call: an unknown tool, or, when the
        token lacks only scopes, 403 with an insufficient_scope challenge (step-up)."""
        tool = self.catalog.tools.get(name)
        if tool is not None and self.endpoint.serves(tool):
            scopes = self.visibility.missing_scopes(tool, self.catalog.rule(name))
            if scopes:
                return insufficient_scope(self.request, self.endpoint, scopes)
        return JSONRPCError(INVALID_PARAMS, f"Unknown tool: {clip(name)}")


@dataclass(eq=False)
class Call:
    """One JSON-RPC request of an exchange, with what the handlers need to answer it."""

    exchange: Exchange
    message: Message
    era: Era
    #: The request's span (a shared no-op without OpenTelemetry), ended once it is answered.
    trace: tracing.NoTrace = tracing.NO_TRACE
    #: The tool call this request is, once it is one (reported when it is answered).
    invocation: Invocation | None = None
    #: The ``ToolTask`` this call runs as, in a task worker (``task_runs``): reported with
    #: the call (``tool_called``'s ``task_id``), so that its logged row links to the task.
    task_id: str | None = None

    @property
    def version(self) -> str:
        return self.era.version

    @property
    def request(self) -> HttpRequest:
        return self.exchange.request

    @property
    def caller(self) -> Caller:
        return self.exchange.caller

    @property
    def endpoint(self) -> Endpoint:
        return self.exchange.endpoint

    @cached_property
    def client_name(self) -> str:
        """Name the client: its ``clientInfo`` (2026-07-28 ``_meta``), else its User-Agent."""
        info = self.message.meta.get(versions.CLIENT_INFO_META_KEY)
        name = info.get("name") if isinstance(info, dict) else None
        if not isinstance(name, str):
            name = self.request.META.get("HTTP_USER_AGENT", "")
        return name[:200]


def server_info() -> dict[str, Any]:
    """Return the ``Implementation`` object naming this server (``SERVER_*`` settings)."""
    info: dict[str, Any] = {
        "name": mcp_settings.SERVER_NAME,
        "version": mcp_settings.SERVER_VERSION,
    }
    if mcp_settings.SERVER_TITLE:
        info["title"] = str(mcp_settings.SERVER_TITLE)
    return info


def capabilities(call: Call) -> dict[str, Any]:
    """Return the server's capabilities at ``call``'s version: tasks where a tool has them."""
    served = [tool for tool in call.exchange.catalog if call.endpoint.serves(tool)]
    return {**CAPABILITIES, **task_calls.capabilities(call, served)}


def initialize(call: Call) -> dict[str, Any]:
    result: dict[str, Any] = {
        "protocolVersion": call.version,
        "capabilities": capabilities(call),
        "serverInfo": server_info(),
    }
    if mcp_settings.INSTRUCTIONS:
        result["instructions"] = str(mcp_settings.INSTRUCTIONS)
    return result


def discover(call: Call) -> dict[str, Any]:
    result: dict[str, Any] = {
        "supportedVersions": list(versions.SUPPORTED_VERSIONS),
        "capabilities": capabilities(call),
        # Nothing here depends on the caller: any cache may share it.
        "cacheScope": "public",
        "ttlMs": mcp_settings.CACHE_TTL_MS,
    }
    if mcp_settings.INSTRUCTIONS:
        result["instructions"] = str(mcp_settings.INSTRUCTIONS)
    return result


def ping(call: Call) -> dict[str, Any]:
    return {}


def set_level(call: Call) -> dict[str, Any]:
    # Stateless: no level outlives this request; a client picks one per request in _meta.
    if call.message.params.get("level") not in versions.LOG_LEVELS:
        levels = ", ".join(versions.LOG_LEVELS)
        raise JSONRPCError(INVALID_PARAMS, f"Invalid params: level must be one of {levels}")
    return {}


#: Pages of tools/list kept per catalog (each distinct visibility has its own).
MAX_CACHED_PAGES = 256


def list_tools(call: Call) -> dict[str, Any]:
    exchange = call.exchange
    catalog = exchange.catalog
    tools, visible = exchange.tools()
    size = mcp_settings.PAGE_SIZE
    cursor = call.message.params.get("cursor")
    start = decode_cursor(cursor, len(tools)) if cursor is not None else 0
    end = start + size if size else len(tools)
    # A page's bytes depend on nothing else than this key: the catalog is one admin version.
    key = (call.version, visible, start, end, get_language(), mcp_settings.generation)
    page = catalog.pages.get(key)
    if page is None:
        seen = {tool.name for tool in tools}  # its descriptions name no other tool
        definitions = [
            project_tool(hide_listings(tool.definition(), tool, seen), call.version)
            for tool in tools[start:end]
        ]
        page = catalog.pages[key] = RawJSON(encode(definitions))
        while len(catalog.pages) > MAX_CACHED_PAGES:
            catalog.pages.popitem(last=False)
    result: dict[str, Any] = {"tools": page}
    if end < len(tools):
        result["nextCursor"] = encode_cursor(end)
    # Private when the list depends on who asks: an authenticated caller, or tools hidden
    # from this one.
    private = call.caller.is_authenticated or len(tools) < exchange.served()
    result["cacheScope"] = "private" if private else "public"
    result["ttlMs"] = mcp_settings.CACHE_TTL_MS
    return result


def call_tool(call: Call) -> ToolResult | InputRequiredResult | Invocation:
    started = time.perf_counter()
    try:
        return _call_tool(call)
    except JSONRPCError as error:  # hidden, throttled, ...: the call log keeps a known tool's
        report_refusal(call, error, started)
        raise


def _call_tool(call: Call) -> ToolResult | InputRequiredResult | Invocation:
    call.exchange.count_call()  # before anything of the tool is looked at
    # Before the tool is looked up: the refusal is the same for every tool, known or not.
    call.message.check_progress_token()
    params = call.message.params
    name = params.get("name")
    if not isinstance(name, str):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: name must be a string")
    plan = call.exchange.plan(name)
    if plan is None:  # unknown, or hidden from this caller: the same answer
        raise call.exchange.refusal(name)
    tool = plan.tool
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: arguments must be an object")
    if call.era.modern and tool.headers:
        # Before anything runs: an intermediary may have routed on the headers (-32020).
        headers.check(tool.headers, arguments, call.request.META, repeated_headers(call.request))
    as_task = task_calls.decide(call, tool)  # before anything runs: -32021, -32601
    invocation = prepare(call, plan, arguments)
    if isinstance(invocation, Invocation) and as_task:
        return task_calls.start(call, invocation)  # a task, or its result within the window
    return invocation


def prepare(
    call: Call, plan: CallPlan, arguments: dict[str, Any]
) -> ToolResult | InputRequiredResult | Invocation:
    """Make the ``Invocation`` of a call of ``plan``'s tool and prepare it: returns what
    ended the call before its view runs, else the invocation, its view still to run (here,
    in a streaming worker, or in a task's worker)."""
    inputs = None
    if call.era.modern:  # only 2026-07-28 can ask the client for input (docs/input.md)
        capabilities = call.message.meta.get(versions.CLIENT_CAPABILITIES_META_KEY)
        binding = Binding.of(plan.tool.name, arguments, call.caller)
        inputs = receive(call.message.params, capabilities, binding)
    invocation = call.invocation = Invocation(call, plan, arguments, inputs)
    ended = invocation.prepare()
    if ended is not None:
        return ended  # refused, declined or asking before the view ran: nothing to stream
    return invocation


def repeated_headers(request: HttpRequest) -> frozenset[str]:
    """Return the ``Mcp-Param-*`` headers (lower-cased) the request carries more than once,
    where its raw headers say so: an ASGI request's scope. WSGI servers join repeated
    headers with commas before Django sees them (docs/protocol.md)."""
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return frozenset()
    seen: set[str] = set()
    repeated: set[str] = set()
    for name, _value in scope.get("headers", ()):
        lowered = name.decode("latin-1").lower()
        if lowered.startswith("mcp-param-"):
            (repeated if lowered in seen else seen).add(lowered)
    return frozenset(repeated)


Handler = Callable[[Call], Any]

#: method → handler, for requests of the handshake era (2024-11-05 to 2025-11-25).
HANDSHAKE_HANDLERS: dict[str, Handler] = {
    "initialize": initialize,
    "ping": ping,
    "logging/setLevel": set_level,
    "tools/list": list_tools,
    "tools/call": call_tool,
    # 2025-11-25's experimental tasks (other versions answer -32601).
    "tasks/get": task_calls.experimental_get,
    "tasks/result": task_calls.experimental_result,
    "tasks/list": task_calls.experimental_list,
    "tasks/cancel": task_calls.experimental_cancel,
}

#: method → handler, for requests of the modern era (2026-07-28): no handshake, no ping.
MODERN_HANDLERS: dict[str, Handler] = {
    "server/discover": discover,
    "tools/list": list_tools,
    "tools/call": call_tool,
    # The tasks extension (its tasks/result and tasks/list are gone: -32601).
    "tasks/get": task_calls.get_task,
    "tasks/update": task_calls.update_task,
    "tasks/cancel": task_calls.cancel_task,
}
