"""``MCPClient``: a Django test client that speaks MCP to the project's own endpoint."""

from __future__ import annotations

import itertools
import json
from typing import Any

from django.test import Client
from django.urls import reverse

from .protocol.versions import LATEST_HANDSHAKE_VERSION


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
        **kwargs: Any,
    ) -> None:
        # A view's exception is a tool result (isError), not a failure of the /mcp request,
        # even though it is reported through got_request_exception (docs/results.md).
        kwargs.setdefault("raise_request_exception", False)
        super().__init__(*args, **kwargs)
        self.mcp_path = mcp_path
        self.protocol_version = protocol_version
        self._ids = itertools.count(1)

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send one JSON-RPC request; return its result or raise ``MCPError``."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        response = self.post(
            self.mcp_path or reverse("mcp_tools:endpoint"),
            data=json.dumps(message),
            content_type="application/json",
            headers={
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": self.protocol_version,
            },
        )
        payload = self._final_message(response)
        if "error" in payload:
            error = payload["error"]
            raise MCPError(error["code"], error["message"], error.get("data"), response.status_code)
        return payload["result"]

    @staticmethod
    def _final_message(response: Any) -> dict[str, Any]:
        """Return the JSON-RPC answer: the body, or the last event of an SSE stream."""
        if not response.streaming:
            return json.loads(response.content) if response.content else {}
        body = b"".join(response.streaming_content).decode()
        events = [
            line[len("data:") :].strip() for line in body.splitlines() if line.startswith("data:")
        ]
        return json.loads(events[-1])

    def initialize(self) -> dict[str, Any]:
        return self.rpc(
            "initialize",
            {
                "protocolVersion": self.protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "mcp_tools.test.MCPClient", "version": "1"},
            },
        )

    def list_tools(self) -> list[dict[str, Any]]:
        return self.rpc("tools/list")["tools"]

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.rpc("tools/call", params)
