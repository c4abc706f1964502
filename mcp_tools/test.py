"""``MCPClient``: a Django test client that speaks MCP to the project's own endpoint."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

from django.http import HttpResponseBase
from django.http.request import HttpHeaders
from django.test import Client
from django.urls import reverse

from .protocol import headers as argument_headers
from .protocol.versions import (
    CLIENT_CAPABILITIES_META_KEY,
    LATEST_HANDSHAKE_VERSION,
    MODERN_VERSIONS,
    NAME_BEARING_METHODS,
    PROTOCOL_VERSION_META_KEY,
)

__all__ = ["MCPClient"]

JSON = "application/json"
ACCEPT = "application/json, text/event-stream"
CLIENT_INFO = {"name": "mcp_tools.test.MCPClient", "version": "1"}


class MCPError(Exception):
    """A JSON-RPC error answered by the endpoint."""

    def __init__(self, code: int, message: str, data: Any = None, status: int = 200) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data
        self.status = status


class MCPClient(Client):
    """Initialize, list and call tools through ``/mcp`` and return parsed results.

    It speaks the handshake era (``protocol_version`` 2024-11-05 to 2025-11-25, the
    default) or the modern one (``"2026-07-28"``: every request carries the per-request
    ``_meta`` and the ``Mcp-*`` headers). ``send`` posts any body, for tests of bad input.
    As the official SDK does, a modern client mirrors the arguments of the tools it listed
    (``list_tools``) in their ``Mcp-Param-*`` headers.

    A handshake-era call may ask on its stream (``elicit``, ``request_input``, ``confirm``):
    ``on_request(method, params)`` returns the client's result (an ``ElicitResult``, ...);
    without it each request is answered -32601, as a client that can't answer does.

    A view's exception comes back as an ``isError`` result (``raise_request_exception``
    defaults to False). Authenticate as with any Django test client (``force_login``, or
    ``headers=`` such as ``{"Authorization": "Token ..."}``)::

        client = MCPClient(headers={"Authorization": f"Token {token.key}"})
        result = client.call_tool("todo_list")
        assert result["isError"] is False
    """

    def __init__(
        self,
        *args: Any,
        mcp_path: str | None = None,
        protocol_version: str = LATEST_HANDSHAKE_VERSION,
        client_capabilities: dict[str, Any] | None = None,
        on_request: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        # A view's exception is a tool result (isError), not a failure of the /mcp request,
        # even though it is reported through got_request_exception (docs/results.md).
        kwargs.setdefault("raise_request_exception", False)
        super().__init__(*args, **kwargs)
        self.mcp_path = mcp_path
        self.protocol_version = protocol_version
        self.client_capabilities = client_capabilities or {}
        self.on_request = on_request
        self._ids = itertools.count(1)
        #: The argument headers of each tool listed so far, by tool name.
        self.argument_headers: dict[str, tuple[argument_headers.ArgumentHeader, ...]] = {}

    @property
    def modern(self) -> bool:
        """Whether this client speaks the modern (2026-07-28, stateless) era."""
        return self.protocol_version in MODERN_VERSIONS

    # -- messages --------------------------------------------------------------------------

    def message(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Return a JSON-RPC request as this client sends it (the era's ``_meta`` added)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if self.modern:
            envelope = {
                PROTOCOL_VERSION_META_KEY: self.protocol_version,
                CLIENT_CAPABILITIES_META_KEY: self.client_capabilities,
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
            }
            params = {**(params or {})}
            params["_meta"] = {**envelope, **(params.get("_meta") or {})}
        if params is not None:
            message["params"] = params
        return message

    def headers_for(self, body: Any) -> dict[str, str]:
        """Return the headers this client sends with ``body`` (a message, a batch or raw)."""
        headers = {"Accept": ACCEPT}
        is_initialize = isinstance(body, dict) and body.get("method") == "initialize"
        if self.modern or not is_initialize:  # a handshake's initialize negotiates it
            headers["MCP-Protocol-Version"] = self.protocol_version
        if self.modern and isinstance(body, dict) and isinstance(body.get("method"), str):
            method = body["method"]
            headers["Mcp-Method"] = method
            params = body.get("params")
            if not isinstance(params, dict):
                params = {}
            key = NAME_BEARING_METHODS.get(method)
            named = params.get(key) if key else None
            if isinstance(named, str):
                headers["Mcp-Name"] = argument_headers.encode_value(named)
            arguments = params.get("arguments")
            if method == "tools/call" and isinstance(named, str) and isinstance(arguments, dict):
                mirrored = self.argument_headers.get(named, ())
                headers.update(argument_headers.mirror(mirrored, arguments))
        return headers

    def send(
        self,
        body: Any,
        *,
        headers: dict[str, str | None] | None = None,
        content_type: str = JSON,
    ) -> HttpResponseBase:
        """POST ``body`` to the endpoint and return the HTTP response as it came.

        A dict or list is sent as JSON, ``str`` and ``bytes`` as they are. ``headers`` are
        added to the MCP headers this client sends (``headers_for``); a header given as None
        is left out. Headers given to the constructor win over the MCP ones.
        """
        data = body if isinstance(body, str | bytes) else json.dumps(body)
        merged: dict[str, tuple[str, str | None]] = {
            name.lower(): (name, value)
            for name, value in self.headers_for(body).items()
            if HttpHeaders.to_wsgi_name(name) not in self.defaults
        }
        for name, value in (headers or {}).items():
            merged[name.lower()] = (name, value)
        sent = {name: value for name, value in merged.values() if value is not None}
        return self.post(self.path, data=data, content_type=content_type, headers=sent)

    @property
    def path(self) -> str:
        return self.mcp_path or reverse("mcp_tools:endpoint")

    @staticmethod
    def answer_of(response: HttpResponseBase) -> dict[str, Any]:
        """Return the JSON-RPC answer of a response: its body, or an SSE stream's last event."""
        if not response.streaming:
            content = response.content  # type: ignore[attr-defined]
            return json.loads(content) if content else {}
        body = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
        events = [
            line[len("data:") :].strip() for line in body.splitlines() if line.startswith("data:")
        ]
        return json.loads(events[-1])

    def read_answer(self, response: HttpResponseBase) -> dict[str, Any]:
        """Return the JSON-RPC answer of a response, answering each request its stream
        carries before it (``on_request``) as the stream goes."""
        if not response.streaming:
            return self.answer_of(response)
        answer: dict[str, Any] = {}
        pending = ""
        for chunk in response.streaming_content:  # type: ignore[attr-defined]
            pending += chunk.decode() if isinstance(chunk, bytes) else chunk
            *events, pending = pending.replace("\r\n", "\n").split("\n\n")
            for event in events:
                data = [line[5:].strip() for line in event.split("\n") if line.startswith("data:")]
                if not data:
                    continue
                message = json.loads("\n".join(data))
                if "method" in message and "id" in message:
                    self.answer_request(message)
                elif "method" not in message:
                    answer = message
        return answer

    def answer_request(self, request: dict[str, Any]) -> HttpResponseBase:
        """POST the answer to a request the server sent on a stream (``on_request``'s)."""
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
        if self.on_request is None:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        else:
            reply["result"] = self.on_request(request["method"], request.get("params") or {})
        return self.send(reply)

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send one JSON-RPC request; return its result or raise ``MCPError``."""
        response = self.send(self.message(method, params))
        payload = self.read_answer(response)
        if "error" in payload:
            error = payload["error"]
            raise MCPError(error["code"], error["message"], error.get("data"), response.status_code)
        return payload["result"]

    def notify(self, method: str, params: dict[str, Any] | None = None) -> HttpResponseBase:
        """Send a notification (no id); the endpoint answers 202 with no body."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self.send(message)

    # -- methods ---------------------------------------------------------------------------

    def initialize(self) -> dict[str, Any]:
        """Send ``initialize`` (the handshake era)."""
        return self.rpc(
            "initialize",
            {
                "protocolVersion": self.protocol_version,
                "capabilities": self.client_capabilities,
                "clientInfo": CLIENT_INFO,
            },
        )

    def discover(self) -> dict[str, Any]:
        """Send ``server/discover`` (the modern era)."""
        return self.rpc("server/discover")

    def list_tools(self) -> list[dict[str, Any]]:
        """Return every tool, following ``nextCursor`` through all pages."""
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            result = self.rpc("tools/list", params or None)
            tools.extend(result["tools"])
            for tool in result["tools"]:
                try:
                    declared = argument_headers.declared(tool.get("inputSchema"))
                except argument_headers.InvalidHeader:
                    declared = ()  # a tool a conforming client drops: nothing to mirror
                self.argument_headers[tool["name"]] = declared
            if "nextCursor" not in result:
                return tools
            params = {"cursor": result["nextCursor"]}

    def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        meta: dict[str, Any] | None = None,
        input_responses: dict[str, Any] | None = None,
        request_state: str | None = None,
    ) -> dict[str, Any]:
        """Call a tool and return its result (an ``isError`` result is returned, not raised).

        In 2026-07-28 the result may be input-required (``resultType``): retry with the
        answers as ``input_responses`` and its ``requestState`` as ``request_state``.
        """
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if meta is not None:
            params["_meta"] = meta
        if input_responses is not None:
            params["inputResponses"] = input_responses
        if request_state is not None:
            params["requestState"] = request_state
        return self.rpc("tools/call", params)
