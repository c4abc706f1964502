"""Tool calls made in-process, outside the endpoint: the admin's "Try it" and ``mcp_call``.

They go through the same server as the endpoint's calls (``server.prepare`` and
``server.finish``: the visibility rule, argument checks, the view as the caller, the
result contract, the call log), answered as JSON, never streamed.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest

from . import server
from .authentication import Caller
from .protocol.versions import LATEST_HANDSHAKE_VERSION, PROTOCOL_VERSION_HEADER
from .views import MCPView


def call_tool(
    request: HttpRequest,
    caller: Caller,
    name: str,
    arguments: dict[str, Any] | None,
    *,
    protocol_version: str = LATEST_HANDSHAKE_VERSION,
    endpoint: MCPView | None = None,
) -> dict[str, Any]:
    """Call tool ``name`` as ``caller`` and return the JSON-RPC answer (``result`` or ``error``).

    ``request`` stands for the /mcp request: its headers are those the view's request
    copies. ``protocol_version`` is a handshake-era version.
    """
    request.META[PROTOCOL_VERSION_HEADER] = protocol_version
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    outcome = server.prepare(
        message, request=request, caller=caller, endpoint=endpoint or MCPView()
    )
    if isinstance(outcome, server.Prepared):
        outcome = server.finish(outcome)
    assert outcome is not None  # a request, never a notification
    return json.loads(outcome.body)
