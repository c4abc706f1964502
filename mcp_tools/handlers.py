"""JSON-RPC method handlers, dispatched from one table per era as the MCP SDK's server does."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import get_language

from . import protocol, streaming
from .authentication import Caller
from .conf import mcp_settings
from .context import attach_notifier
from .invocation import execute, prepare, run_tool
from .invocation import finish as finish_result
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONRPCError, Message, RawJSON, encode
from .output_schemas import advertised_schema
from .projection import project_common, project_result, project_tool
from .protocol import SERVER_INFO_META_KEY, Era
from .registry import ToolRegistry, ToolSet
from .tools import Tool

CAPABILITIES = {"tools": {"listChanged": False}, "logging": {}}
CURSOR_PREFIX = "offset:"


@dataclass
class Call:
    """One JSON-RPC request to the endpoint, with what the handlers need to answer it."""

    message: Message
    request: HttpRequest
    caller: Caller
    era: Era
    registry: ToolRegistry
    tags: frozenset[str] | None = None
    #: Whether the answer may be an SSE stream (the client accepts it; not in a batch).
    can_stream: bool = False

    @property
    def version(self) -> str:
        return self.era.version

    def toolset(self) -> ToolSet:
        """Return the tools of the request's URLconf (all of them, whatever the tags)."""
        return self.registry.tools(getattr(self.request, "urlconf", None))

    def serves(self, tool: Tool) -> bool:
        return self.tags is None or bool(self.tags & set(tool.options.tags))

    def get_tool(self, name: str) -> Tool | None:
        tool = self.registry.get_tool(name, getattr(self.request, "urlconf", None))
        return tool if tool is not None and self.serves(tool) else None


def server_info() -> dict[str, Any]:
    """Return the ``Implementation`` object naming this server (``SERVER_*`` settings)."""
    info: dict[str, Any] = {
        "name": mcp_settings.SERVER_NAME,
        "version": mcp_settings.SERVER_VERSION,
    }
    if mcp_settings.SERVER_TITLE:
        info["title"] = str(mcp_settings.SERVER_TITLE)
    return info


def initialize(call: Call) -> dict[str, Any]:
    result: dict[str, Any] = {
        "protocolVersion": call.version,
        "capabilities": CAPABILITIES,
        "serverInfo": server_info(),
    }
    if mcp_settings.INSTRUCTIONS:
        result["instructions"] = str(mcp_settings.INSTRUCTIONS)
    return result


def discover(call: Call) -> dict[str, Any]:
    result: dict[str, Any] = {
        "supportedVersions": list(protocol.SUPPORTED_VERSIONS),
        "capabilities": CAPABILITIES,
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
    if call.message.params.get("level") not in protocol.LOG_LEVELS:
        raise JSONRPCError(
            INVALID_PARAMS, f"Invalid params: level must be one of {', '.join(protocol.LOG_LEVELS)}"
        )
    return {}


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"{CURSOR_PREFIX}{offset}".encode()).decode()


def decode_cursor(cursor: Any, total: int) -> int:
    """Return the offset an opaque cursor stands for; raise -32602 for any other value."""
    invalid = JSONRPCError(INVALID_PARAMS, "Invalid params: invalid cursor")
    if not isinstance(cursor, str) or len(cursor) > 64:
        raise invalid
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
    except (binascii.Error, UnicodeError, ValueError) as exc:
        raise invalid from exc
    digits = text.removeprefix(CURSOR_PREFIX)
    if not text.startswith(CURSOR_PREFIX) or not digits.isdigit() or not 0 < int(digits) < total:
        raise invalid
    return int(digits)


def list_tools(call: Call) -> dict[str, Any]:
    toolset = call.toolset()
    tools = [tool for tool in toolset if call.serves(tool)]
    size = mcp_settings.PAGE_SIZE
    cursor = call.message.params.get("cursor")
    start = decode_cursor(cursor, len(tools)) if cursor is not None else 0
    end = start + size if size else len(tools)
    # A page's bytes are built once per version, tags, page, language and settings: the
    # definitions depend on nothing else (every caller sees every tool for now).
    key = (call.version, call.tags, start, end, get_language(), mcp_settings.generation)
    page = toolset.pages.get(key)
    if page is None:
        definitions = [project_tool(tool.definition(), call.version) for tool in tools[start:end]]
        page = toolset.pages[key] = RawJSON(encode(definitions))
    result: dict[str, Any] = {"tools": page}
    if end < len(tools):
        result["nextCursor"] = encode_cursor(end)
    # Who sees which tool can depend on the caller's identity (permissions, groups).
    result["cacheScope"] = "private" if call.caller.is_authenticated else "public"
    result["ttlMs"] = mcp_settings.CACHE_TTL_MS
    return result


def progress_token(message: Message) -> str | int | None:
    token = message.meta.get("progressToken")
    if isinstance(token, str | int) and not isinstance(token, bool):
        return token
    return None


def call_tool(call: Call) -> dict[str, Any] | HttpResponseBase:
    params = call.message.params
    name = params.get("name")
    if not isinstance(name, str):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: name must be a string")
    tool = call.get_tool(name)
    if tool is None:
        raise JSONRPCError(INVALID_PARAMS, f"Unknown tool: {name}")
    args = params.get("arguments")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: arguments must be an object")
    token = progress_token(call.message)
    # Past MAX_STREAMS worker threads the call runs inline: the result, without notifications.
    if call.can_stream and (token is not None or tool.options.stream) and streaming.slots.acquire():
        try:
            return stream_tool(call, tool, args, token)
        except BaseException:
            streaming.slots.release()  # the worker, which releases it, never started
            raise
    result = run_tool(call.request, call.caller, tool, params, args)
    return project_result(result, call.version, advertised_schema(tool))


def save_session(inner: HttpRequest) -> None:
    """Save what a streamed view wrote to its session.

    SessionMiddleware saved the session when the streamed response left, before the view
    ran. The session key (and so the cookie) can't change any more: a view that logs in or
    out must not stream.
    """
    session = getattr(inner, "session", None)
    if session is not None and getattr(session, "modified", False) and session.session_key:
        session.save()


def stream_tool(
    call: Call, tool: Tool, args: dict[str, Any], token: str | int | None
) -> HttpResponseBase | dict[str, Any]:
    """Run the tool in a worker thread and answer with its notifications, then its result."""
    timeout = mcp_settings.CALL_TIMEOUT
    inner, refused = prepare(call.request, call.caller, tool, call.message.params, args)
    if inner is None:
        streaming.slots.release()
        return project_result(refused, call.version)  # nothing to stream: answer at once

    def run(notifier: streaming.Notifier) -> dict[str, Any]:
        attach_notifier(inner, notifier)
        try:
            result = execute(tool, inner)
        finally:
            save_session(inner)
        return finish(call, project_result(result, call.version, advertised_schema(tool)))

    # Built now, on the request thread: under ASGI the timeout fires in the event loop,
    # where result processors (user code, maybe touching the database) must not run.
    timeout_result = finish_result(streaming.timeout_result(timeout), tool, None)
    timeout_payload = finish(call, project_result(timeout_result, call.version))

    def timed_out() -> dict[str, Any]:
        return timeout_payload

    spec = streaming.StreamSpec(
        request_id=call.message.id,
        era=call.era,
        progress_token=token,
        logger=tool.name,
        timeout=timeout,
        on_timeout=timed_out,
    )
    return streaming.stream_call(call.request, run, spec)


Handler = Callable[[Call], Any]

#: method → handler, for requests of the handshake era (2024-11-05 to 2025-11-25).
HANDSHAKE_HANDLERS: dict[str, Handler] = {
    "initialize": initialize,
    "ping": ping,
    "logging/setLevel": set_level,
    "tools/list": list_tools,
    "tools/call": call_tool,
}

#: method → handler, for requests of the modern era (2026-07-28): no handshake, no ping.
MODERN_HANDLERS: dict[str, Handler] = {
    "server/discover": discover,
    "tools/list": list_tools,
    "tools/call": call_tool,
}


def finish(call: Call, result: dict[str, Any]) -> dict[str, Any]:
    """Stamp a modern result (``resultType``, server info), or drop the modern-only fields."""
    if not call.era.modern:
        return project_common(result, call.version)
    meta = result.get("_meta")
    meta = {**(meta if isinstance(meta, dict) else {}), SERVER_INFO_META_KEY: server_info()}
    return {**result, "resultType": "complete", "_meta": meta}


def handle(call: Call) -> Any:
    """Answer one request; raise ``JSONRPCError`` for protocol faults.

    Returns the result, or a ready ``HttpResponse`` when the answer is an SSE stream.
    """
    table = MODERN_HANDLERS if call.era.modern else HANDSHAKE_HANDLERS
    handler = table.get(call.message.method or "")
    if handler is None:
        raise JSONRPCError(
            METHOD_NOT_FOUND,
            f"Method not found: {call.message.method}",
            # The modern era answers an unknown method at the HTTP layer too.
            status=404 if call.era.modern else 200,
        )
    result = handler(call)
    if isinstance(result, HttpResponseBase):
        return result
    return finish(call, result)
