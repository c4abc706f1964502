"""Every message the endpoint sends, for each protocol version, validates on the wire.

Over real TCP (live_server), each version lists every demo and test tool (all pages) and
calls each one, plus the streamed fixtures; the bytes received are validated against that
version's official schema (../shared/mcp-schema/<version>/schema.json).
"""

from __future__ import annotations

import itertools
import json
from concurrent.futures import ThreadPoolExecutor

import httpx2
import pytest

from mcp_tools.test import MCPClient
from tests.wire import validate_exchange, validate_stream

pytestmark = pytest.mark.django_db(transaction=True)

HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN = "2026-07-28"
#: Transport probes that wait for a second request or loop for seconds (endpoint/test_streaming.py).
SKIPPED = {"probe_gate", "probe_loop", "probe_flood"}
#: Calls that succeed, so that success results (not only validation errors) are checked.
CALLS = [
    ("todo_create", {"title": "Wire"}),
    ("todo_list", {}),
    ("test_simple_text", {}),
    ("test_image_content", {}),
    ("test_audio_content", {}),
    ("test_embedded_resource", {}),
    ("test_multiple_content_types", {}),
    ("test_error_handling", {}),
    ("json_schema_2020_12_tool", {"name": "n", "email": "e"}),
]
STREAMED = ["test_tool_with_progress", "test_tool_with_logging"]


class Session:
    """Send JSON-RPC over HTTP as one version's client; validate every answer.

    ``MCPClient`` writes each message and its headers as that version's client sends them
    (the modern era's ``_meta`` and ``Mcp-*`` headers); httpx2 carries them over TCP.
    """

    def __init__(self, http: httpx2.Client, url: str, version: str) -> None:
        self.http, self.url, self.version = http, url, version
        self.client = MCPClient(protocol_version=version)
        self.checked = itertools.count(1)

    def send(self, method: str, params: dict | None = None, *, notify: bool = False):
        if notify:
            message: dict = {"jsonrpc": "2.0", "method": method, "params": dict(params or {})}
        else:
            message = self.client.message(method, dict(params or {}))
        headers = self.client.headers_for(message)  # initialize: no version header yet
        with self.http.stream("POST", self.url, json=message, headers=headers) as response:
            next(self.checked)
            if response.headers.get("content-type") == "text/event-stream":
                return validate_stream(self.version, message, self.read_stream(response))[-1]
            content = response.read()
        validate_exchange(self.version, message, response.status_code, content)
        return json.loads(content) if content else None

    def read_stream(self, response: httpx2.Response) -> bytes:
        """Read an SSE answer; answer each request it carries as a client that declared no
        capability does (-32601), which the endpoint takes with 202."""
        body = b""
        for line in response.iter_lines():
            body += line.encode() + b"\n"
            if line.startswith("data:"):
                sent = json.loads(line[5:])
                if "method" in sent and "id" in sent:
                    error = {"code": -32601, "message": "Method not found"}
                    reply = {"jsonrpc": "2.0", "id": sent["id"], "error": error}
                    answered = self.http.post(
                        self.url, json=reply, headers=self.client.headers_for(reply)
                    )
                    validate_exchange(self.version, reply, answered.status_code, answered.content)
        return body

    def tools(self) -> list[dict]:
        tools, cursor = [], None
        while True:
            answer = self.send("tools/list", {"cursor": cursor} if cursor else {})
            tools += answer["result"]["tools"]
            cursor = answer["result"].get("nextCursor")
            if cursor is None:
                return tools


@pytest.mark.parametrize("version", [*HANDSHAKE, MODERN])
def test_every_message_sent_validates_against_its_versions_schema(live_server, alice, version):
    headers = {"Authorization": f"Token {alice.token}"}
    with httpx2.Client(headers=headers, timeout=30) as http:
        session = Session(http, f"{live_server.url}/mcp", version)
        if version == MODERN:
            discovered = session.send("server/discover")["result"]
            assert MODERN in discovered["supportedVersions"]
        else:
            started = session.send("initialize", {"protocolVersion": version, "capabilities": {}})
            assert started["result"]["protocolVersion"] == version
            session.send("notifications/initialized", notify=True)
            session.send("ping")
            session.send("logging/setLevel", {"level": "info"})
        tools = session.tools()
        assert {"todo_list", "test_simple_text", "probe_loop"} <= {tool["name"] for tool in tools}
        # Concurrently: each exchange over loopback costs a delayed-ACK wait, not CPU.
        with ThreadPoolExecutor(max_workers=6) as pool:
            calls = [
                pool.submit(session.send, "tools/call", {"name": tool["name"], "arguments": {}})
                for tool in tools
                if tool["name"] not in SKIPPED
            ]
            for call in calls:
                call.result()
        for name, arguments in CALLS:
            result = session.send("tools/call", {"name": name, "arguments": arguments})["result"]
            assert result["isError"] is (name == "test_error_handling")
        for name in STREAMED:
            params = {"name": name, "arguments": {}, "_meta": {"progressToken": name}}
            if version == MODERN:
                params["_meta"]["io.modelcontextprotocol/logLevel"] = "debug"
            assert session.send("tools/call", params)["result"]["isError"] is False
        session.send("tools/call", {"name": "no_such_tool"})
        session.send("no/such/method")
    assert next(session.checked) > len(tools) + 10
