"""JSON-RPC method handlers, dispatched from one table as the MCP SDK's lowlevel server does."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from . import arguments, protocol
from .authentication import Caller
from .conf import mcp_settings
from .context import ToolCallContext
from .dispatch import call_view, release
from .inner_requests import build_inner_request
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONRPCError, Message
from .registry import ToolRegistry
from .results import ToolResult, to_wire
from .tools import Tool

logger = logging.getLogger("mcp_tools")


@dataclass
class Call:
    """One JSON-RPC request to the endpoint, with what the handlers need to answer it."""

    message: Message
    request: HttpRequest
    caller: Caller
    version: str
    registry: ToolRegistry
    tags: frozenset[str] | None = None

    def tools(self) -> list[Tool]:
        toolset = self.registry.tools(getattr(self.request, "urlconf", None))
        return [tool for tool in toolset if self.serves(tool)]

    def serves(self, tool: Tool) -> bool:
        return self.tags is None or bool(self.tags & set(tool.options.tags))

    def get_tool(self, name: str) -> Tool | None:
        tool = self.registry.get_tool(name, getattr(self.request, "urlconf", None))
        return tool if tool is not None and self.serves(tool) else None


def initialize(call: Call) -> dict[str, Any]:
    server_info: dict[str, Any] = {
        "name": mcp_settings.SERVER_NAME,
        "version": mcp_settings.SERVER_VERSION,
    }
    if mcp_settings.SERVER_TITLE:
        server_info["title"] = mcp_settings.SERVER_TITLE
    result: dict[str, Any] = {
        "protocolVersion": call.version,
        "capabilities": {"tools": {"listChanged": False}, "logging": {}},
        "serverInfo": server_info,
    }
    if mcp_settings.INSTRUCTIONS:
        result["instructions"] = str(mcp_settings.INSTRUCTIONS)
    return result


def ping(call: Call) -> dict[str, Any]:
    return {}


def list_tools(call: Call) -> dict[str, Any]:
    return {"tools": [tool.definition() for tool in call.tools()]}


def call_tool(call: Call) -> dict[str, Any]:
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
    return to_wire(run_tool(call, tool, args))


def run_tool(call: Call, tool: Tool, args: dict[str, Any]) -> ToolResult:
    """Validate the arguments, run the view as the caller and format what it answered."""
    lines = arguments.problems(tool, args)
    if lines:
        return ToolResult.error("\n".join(lines))
    context = ToolCallContext(params=call.message.params, tool_name=tool.name)
    try:
        inner = build_inner_request(
            call.request,
            tool,
            arguments.split(tool, args),
            context,
            identity=call.caller.identity_for(tool.view_class),
        )
    except ValueError as exc:
        return ToolResult.error(f"Invalid arguments: $: {exc}")
    formatter = mcp_settings.FORMATTER_CLASS()
    try:
        response = call_view(tool, inner)
    except Exception as exc:
        return formatter.format_exception(exc, inner, tool)
    try:
        return formatter.format_response(response, inner, tool)
    finally:
        release(response)


def discard(call: Call) -> None:
    return None


Handler = Callable[[Call], Any]

#: method → handler. ``initialize`` negotiates the version itself; the rest use the header's.
REQUEST_HANDLERS: dict[str, Handler] = {
    "initialize": initialize,
    "ping": ping,
    "tools/list": list_tools,
    "tools/call": call_tool,
}


def handle(call: Call) -> Any:
    """Answer one request; raise ``JSONRPCError`` for protocol faults."""
    handler = REQUEST_HANDLERS.get(call.message.method or "")
    if handler is None:
        raise JSONRPCError(METHOD_NOT_FOUND, f"Method not found: {call.message.method}")
    return handler(call)


def version_of(message: Message, request: HttpRequest) -> str:
    if message.method == "initialize":
        return protocol.negotiate(message.params.get("protocolVersion"))
    return protocol.version_from_header(request.META.get(protocol.PROTOCOL_VERSION_HEADER))
