"""JSON-RPC method handlers, dispatched from one table as the MCP SDK's lowlevel server does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from . import protocol
from .authentication import Caller
from .conf import mcp_settings
from .invocation import run_tool
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONRPCError, Message
from .projection import project_result, project_tool
from .registry import ToolRegistry
from .tools import Tool

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
    return {"tools": [project_tool(tool.definition(), call.version) for tool in call.tools()]}


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
    result = run_tool(call.request, call.caller, tool, call.message.params, args)
    return project_result(result, call.version)


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
