"""JSON-RPC method handlers, looked up in one table per era as the MCP SDK's server does.

A handler takes one ``Call`` (the parsed request and who made it) and returns its result,
or raises ``JSONRPCError``. It never builds an HTTP response: how the answer travels
(JSON or SSE, alone or in a batch) is the transport's choice (``endpoint.view``), and
projection onto the negotiated version happens once, in ``mcp_tools.endpoint.server``.

One ``Exchange`` per HTTP request is shared by its messages (the catalog, the visibility
answers); one ``Call`` per message. ``tools/call`` returns its ``Invocation`` when the view
is still to run: the transport runs it at once, or in a worker thread whose notifications
it streams.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Container, Hashable
from typing import Any

from django.http import HttpRequest
from django.utils.module_loading import import_string
from django.utils.translation import get_language

from ..conf import mcp_settings
from ..core.holds import holds_streams
from ..discovery import tools as discovery
from ..inputs.asks import receive
from ..inputs.request_state import Binding
from ..pipeline.invocation import Invocation, ending, send_refused, send_tool_called
from ..pipeline.plans import CallPlan
from ..prompts import registry as prompts
from ..protocol import headers, versions
from ..protocol.cursors import decode_cursor, encode_cursor
from ..protocol.jsonrpc import (
    INVALID_PARAMS,
    THROTTLED,
    UNAUTHORIZED,
    JSONRPCError,
    RawJSON,
    encode,
)
from ..protocol.projection import project_tool
from ..protocol.results import InputRequiredResult, ToolResult
from ..resources import registry as resources
from ..tasks import decisions as task_decisions
from ..tools.definitions import hide_listings
from ..tools.tool import Tool
from .exchange import Call


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
    """Return the server's capabilities at ``call``'s version: tasks where a tool has them;
    resources, prompts and completion where the endpoint serves its default catalog; lists
    that say when they change where the server holds listeners' streams."""
    served = [tool for tool in call.exchange.catalog if call.exchange.serves(tool)]
    live = holds_streams(call.request)
    return {
        "tools": {"listChanged": live},
        "logging": {},
        **resources.capabilities(call, live),
        **prompts.capabilities(call, live),
        **task_decisions.capabilities(call, served),
    }


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


logger = logging.getLogger("mcp_tools")

#: Pages of tools/list kept per catalog (each distinct visibility has its own).
MAX_CACHED_PAGES = 256


def list_tools(call: Call) -> dict[str, Any]:
    exchange = call.exchange
    catalog = exchange.catalog
    mode = discovery.mode_of(call.endpoint)
    # A catalog of at most DISCOVERY_THRESHOLD tools needs no one's visibility to decide.
    if discovery.is_on(mode, exchange.served()):
        tools, visible = exchange.tools()
        if discovery.is_on(mode, len(tools)):
            return list_discovery_tools(call, tools, visible)
    size = mcp_settings.PAGE_SIZE
    cursor = call.message.params.get("cursor")
    if size and exchange.visibility.asks_each_tool(catalog):
        return list_tools_asking_each(call, cursor, size)
    tools, visible = exchange.tools()
    start = decode_cursor(cursor, len(tools)) if cursor is not None else 0
    end = start + size if size else len(tools)
    # A page's bytes depend on nothing else than this key: the catalog is one admin version.
    key = (call.version, visible, start, end, get_language(), mcp_settings.generation)
    seen = {tool.name for tool in tools}  # its descriptions name no other tool
    result: dict[str, Any] = {"tools": written_page(call, key, tools[start:end], seen)}
    if end < len(tools):
        result["nextCursor"] = encode_cursor(end)
    # Private when the list depends on who asks: an authenticated caller, or tools hidden
    # from this one.
    private = call.caller.is_authenticated or len(tools) < exchange.served()
    result["cacheScope"] = "private" if private else "public"
    result["ttlMs"] = mcp_settings.CACHE_TTL_MS
    return result


def list_discovery_tools(call: Call, tools: list[Tool], visible: Hashable) -> dict[str, Any]:
    """``tools/list`` in discovery mode: the caller's pinned tools, then ``search_tools``
    and ``call_tool`` (docs/tools.md#large-apis). One page: a cursor starts it again."""
    exchange = call.exchange
    pinned = discovery.pinned(exchange.catalog, tools)
    seen = {tool.name for tool in tools}
    key = ("discovery", call.version, visible, get_language(), mcp_settings.generation)
    written = written_page(call, key, pinned, seen).text[1:-1]  # the pinned, as listed
    tasks = any(tool.options.task is not None for tool in tools)
    own = [encode(each) for each in discovery.discovery_definitions(call.version, tasks)]
    page = "[" + ",".join([written, *own] if written else own) + "]"
    private = call.caller.is_authenticated or len(tools) < exchange.served()
    return {
        "tools": RawJSON(page),
        "cacheScope": "private" if private else "public",
        "ttlMs": mcp_settings.CACHE_TTL_MS,
    }


class _Seen:
    """The names of the tools a request sees, asked name by name (``hide_listings``)."""

    def __init__(self, exchange: Any) -> None:
        self.exchange = exchange

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.exchange.sees(name)


def list_tools_asking_each(call: Call, cursor: object, size: int) -> dict[str, Any]:
    """A page of ``tools/list`` where some tool's permission classes must be asked for that
    tool alone (a project's own, NetBox's and Nautobot's): no list of the caller's tools
    can be kept, so a page asks the tools up to it, from the catalog position its cursor
    names, and no other. Before, each of a 1,193-tool catalog's 12 pages asked them all
    (docs/performance.md#a-listing-of-a-large-api)."""
    exchange = call.exchange
    catalog = exchange.catalog
    start = decode_cursor(cursor, len(catalog.tools)) if cursor is not None else 0
    tools, following = exchange.page(start, size)
    seen = _Seen(exchange)
    # The page's bytes depend on its tools, the listing tools its descriptions may name
    # (hidden from this caller or not), and nothing else of the caller.
    named = {lister for tool in tools for _, lister, _ in tool.listings}
    hidden = tuple(sorted(lister for lister in named if lister not in seen))
    names = tuple(tool.name for tool in tools)
    key = (call.version, names, hidden, get_language(), mcp_settings.generation)
    result: dict[str, Any] = {"tools": written_page(call, key, tools, seen)}
    if following is not None:
        result["nextCursor"] = encode_cursor(following)
    result["cacheScope"] = "private"  # who sees what can't be told without asking
    result["ttlMs"] = mcp_settings.CACHE_TTL_MS
    return result


def written_page(call: Call, key: Hashable, tools: list[Tool], seen: Container[str]) -> RawJSON:
    """Return the encoded page of ``tools``, built once per ``key`` (everything its bytes
    depend on) and kept in the catalog's page cache."""
    pages = call.exchange.catalog.pages
    page = pages.get(key)
    if page is None:
        written = (written_definition(tool, seen, call.version) for tool in tools)
        page = RawJSON("[" + ",".join(text for text in written if text is not None) + "]")
        pages[key] = page
        while len(pages) > MAX_CACHED_PAGES:
            pages.popitem(last=False)
    return page


def written_definition(tool: Tool, seen: Container[str], version: str) -> str | None:
    """Return the JSON of ``tool``'s definition as ``version`` has it; None, logged, for one
    that can't be written (a value JSON has no form for): that tool alone is left out."""
    try:
        return encode(project_tool(hide_listings(tool.definition(), tool, seen), version))
    except (TypeError, ValueError):
        logger.exception("Tool %s is left out of tools/list: its definition is no JSON", tool.name)
        return None


def call_tool(
    call: Call,
) -> ToolResult | InputRequiredResult | Invocation[Call] | dict[str, Any]:
    started = time.perf_counter()
    try:
        return _call_tool(call)
    except JSONRPCError as error:  # hidden, throttled, ...: the call log keeps a known tool's
        report_refusal(call, error, started)
        raise


def _call_tool(
    call: Call,
) -> ToolResult | InputRequiredResult | Invocation[Call] | dict[str, Any]:
    # A call_tool stands for the call of the tool it names, its throttling included.
    unwrap_call_tool(call)
    call.exchange.count_call()  # before anything of the tool is looked at
    # Before the tool is looked up: the refusal is the same for every tool, known or not.
    call.message.check_progress_token()
    params = call.message.params
    name = params.get("name")
    if not isinstance(name, str):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: name must be a string")
    if discovering(call, name):
        return answer_discovery_tool(call, name)
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
        if call.unwrapped:  # an intermediary routes on the headers of the tool it sees called
            raise JSONRPCError(
                INVALID_PARAMS,
                f"Tool {name} takes argument headers (Mcp-Param-*): call it by its name with "
                "tools/call, not through call_tool",
            )
        # Before anything runs: an intermediary may have routed on the headers (-32020).
        headers.check(tool.headers, arguments, call.request.META, repeated_headers(call.request))
    as_task = task_decisions.decide(call, tool)  # before anything runs: -32021, -32601
    invocation = start_call(call, plan, arguments)
    if isinstance(invocation, Invocation) and as_task:
        return start_task(call, invocation)  # a task, or its result within the window
    return invocation


def start_task(call: Call, invocation: Invocation[Call]) -> Any:
    """Start ``invocation`` as a task (``tasks.methods.start``). The task store loads with
    the process's first task: a worker whose calls run none never imports it."""
    from ..tasks.methods import start

    return start(call, invocation)


def discovering(call: Call, name: object) -> bool:
    """Return whether ``name`` is a discovery tool this call answers itself: one of the
    two, while discovery can turn on, not named by a ``call_tool`` (an unknown tool)."""
    return (
        name in discovery.NAMES
        and not call.unwrapped
        and discovery.mode_of(call.endpoint) != "never"
    )


def unwrap_call_tool(call: Call) -> None:
    """Make a ``call_tool`` call with valid arguments the ``tools/call`` it stands for, from
    here on in every respect (docs/tools.md#large-apis); leave any other call as it is."""
    params = call.message.params
    if params.get("name") != discovery.CALL_TOOL or not discovering(call, discovery.CALL_TOOL):
        return
    arguments = params.get("arguments")
    if discovery.argument_problems(discovery.CALL_TOOL, {} if arguments is None else arguments):
        return  # answered as call_tool's own refusal
    call.message = dataclasses.replace(call.message, params=discovery.unwrapped(params))
    call.unwrapped = True
    call.trace.tool(call.message.params["name"])  # its span is the named tool's


def answer_discovery_tool(call: Call, name: str) -> ToolResult:
    """Answer ``search_tools``, or a call of either discovery tool with invalid arguments
    (a valid ``call_tool`` was unwrapped: ``unwrap_call_tool``)."""
    began, started = time.time(), time.perf_counter()
    arguments: Any = call.message.params.get("arguments")
    arguments = {} if arguments is None else arguments
    problems = discovery.argument_problems(name, arguments)
    if problems:
        refused = ToolResult.error("\n".join(problems))
        report_discovery(call, name, arguments, (began, started), refused, "invalid_arguments")
        return refused
    tools, _ = call.exchange.tools()
    result, found = discovery.search(call.exchange.catalog, tools, arguments, call.version)
    report_discovery(call, name, arguments, (began, started), result, found=found)
    return result


def report_discovery(
    call: Call,
    name: str,
    arguments: object,
    began: tuple[float, float],
    result: ToolResult,
    refusal: str | None = None,
    *,
    found: list[str] | None = None,
) -> None:
    """Send ``tool_called`` for a discovery tool's own answer: a search, with the names it
    found (``found``: what the call log keeps of it where ``CALL_LOG_ARGUMENTS`` is on), or
    arguments it refused. Its ``sender`` is the endpoint's view class: it has no other."""
    send_tool_called(
        call,
        type(call.endpoint),
        name,
        arguments if isinstance(arguments, dict) else {},
        *began,
        result_type="complete",
        status=None,
        is_error=result.is_error,
        error_ref=None,
        found=found,
        **ending(result, refusal),
    )


def start_call(
    call: Call, plan: CallPlan, arguments: dict[str, Any]
) -> ToolResult | InputRequiredResult | Invocation[Call]:
    """Make the ``Invocation`` of a call of ``plan``'s tool and start it: returns what
    ended the call before its view runs, else the invocation, its view still to run (here,
    in a streaming worker, or in a task's worker)."""
    inputs = None
    if call.era.modern:  # only 2026-07-28 can ask the client for input (docs/input.md)
        capabilities = call.message.meta.get(versions.CLIENT_CAPABILITIES_META_KEY)
        binding = Binding.of(plan.tool.name, arguments, call.caller)
        inputs = receive(call.message.params, capabilities, binding)
    invocation = call.invocation = Invocation(call, plan, arguments, inputs)
    ended = invocation.start()
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


class Deferred:
    """A handler of ``mcp_tools.<path>``, imported at its first call: a worker that serves
    tools alone never loads prompts, completion, resources, subscriptions or the task store
    (docs/performance.md#memory)."""

    def __init__(self, path: str) -> None:
        self.path = f"mcp_tools.{path}"
        self._handler: Handler | None = None

    def __call__(self, call: Call) -> Any:
        handler = self._handler
        if handler is None:
            handler = self._handler = import_string(self.path)
        return handler(call)

    def __repr__(self) -> str:
        return f"Deferred({self.path!r})"


#: The methods whose every answer is the caller's alone (``Cache-Control: private``): a
#: resource read runs a view as its caller, as a tool call does (docs/resources.md), a
#: prompt may embed such a read (docs/prompts.md#embedded-resources), and a completion
#: offers values of the caller's own rows (docs/resources.md#completion).
PRIVATE_ANSWERS = frozenset({"resources/read", "prompts/get", "completion/complete"})

#: method → handler, for what both eras serve alike.
BOTH_ERAS: dict[str, Handler] = {
    "tools/list": list_tools,
    "tools/call": call_tool,
    "prompts/list": Deferred("prompts.methods.list_prompts"),
    "prompts/get": Deferred("prompts.methods.get_prompt"),
    "completion/complete": Deferred("completion.methods.complete"),
    "resources/list": Deferred("resources.methods.list_resources"),
    "resources/templates/list": Deferred("resources.methods.list_templates"),
    "resources/read": Deferred("resources.methods.read_resource"),
}

#: method → handler, for requests of the handshake era (2024-11-05 to 2025-11-25).
HANDSHAKE_HANDLERS: dict[str, Handler] = {
    "initialize": initialize,
    "ping": ping,
    "logging/setLevel": set_level,
    **BOTH_ERAS,
    "resources/subscribe": Deferred("subscriptions.methods.subscribe_resource"),
    "resources/unsubscribe": Deferred("subscriptions.methods.unsubscribe_resource"),
    # 2025-11-25's experimental tasks (other versions answer -32601).
    "tasks/get": Deferred("tasks.methods.experimental_get"),
    "tasks/result": Deferred("tasks.methods.experimental_result"),
    "tasks/list": Deferred("tasks.methods.experimental_list"),
    "tasks/cancel": Deferred("tasks.methods.experimental_cancel"),
}

#: method → handler, for requests of the modern era (2026-07-28): no handshake, no ping.
MODERN_HANDLERS: dict[str, Handler] = {
    "server/discover": discover,
    **BOTH_ERAS,
    "subscriptions/listen": Deferred("subscriptions.methods.listen"),
    # The tasks extension (its tasks/result and tasks/list are gone: -32601).
    "tasks/get": Deferred("tasks.methods.get_task"),
    "tasks/update": Deferred("tasks.methods.update_task"),
    "tasks/cancel": Deferred("tasks.methods.cancel_task"),
}


def report_refusal(call: Call, error: JSONRPCError, started: float) -> None:
    """Send ``tool_called`` for a call of a tool this endpoint serves that was refused
    with a JSON-RPC error before an ``Invocation`` was made: hidden from the caller (or
    short of scopes), throttled by the endpoint, or with arguments it could not take. A
    name that is no tool of the endpoint is not reported: it is the client's string. A
    discovery tool refused before it answered (throttled) is reported too, and a
    ``call_tool`` is by then the call of the tool it names (docs/tools.md#large-apis)."""
    if call.invocation is not None:
        return  # reported by the invocation
    params = call.message.params
    name = params.get("name")
    if discovering(call, name):  # refused before it answered (throttled): as itself
        sender: type = type(call.endpoint)
    else:
        tool = call.exchange.catalog.tools.get(name) if isinstance(name, str) else None
        if tool is None or not call.exchange.serves(tool):
            return
        sender, name = tool.view_class, tool.name
    if error.code == THROTTLED:
        refusal = "throttled"
    elif error.code == UNAUTHORIZED or error.message.startswith("Unknown tool"):
        refusal = "hidden"  # or the token lacks only scopes: step-up (docs/oauth.md)
    else:
        refusal = "invalid_arguments"
    args = params.get("arguments")
    arguments = args if isinstance(args, dict) else {}
    send_refused(call, sender, str(name), arguments, started, error.message, refusal)
