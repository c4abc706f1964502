"""What the harness measures: the profiles, the requests of each case, the feature variants,
the peers.

A profile is a set-up of the bench project (bench/project/settings.py reads
``BENCH_PROFILE``): ``current``, on which every earlier figure was measured, and
``production``, as a production site runs it. A feature variant is one line of
``VARIANTS``: a name, the environment that turns the feature on (read by
bench/project/settings.py) and the case whose tools/call shows its price.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from bench.load import Load, Request

PROTOCOL_VERSION = "2025-11-25"
MCP_HEADERS = (
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
    ("MCP-Protocol-Version", PROTOCOL_VERSION),
)
JSON_ACCEPT = (("Accept", "application/json"),)
JSON_BODY = (("Content-Type", "application/json"),) + JSON_ACCEPT
#: The bench project's set-ups, in the order a run measures them.
PROFILES = ("current", "production")
#: What each profile is, for the report.
PROFILE_NOTES = {
    "current": (
        "LocMemCache, five of Django's middleware, anonymous callers at the endpoint "
        "(the item views authenticate the token themselves)"
    ),
    "production": (
        "DEBUG off, the MIDDLEWARE of `django-admin startproject`, Redis (Debian's "
        "redis-server) as the shared cache, DISPATCH at its default (`middleware`), token "
        "authentication by default at the endpoint and every view: every request carries "
        "the token"
    ),
}
NEW_ITEM = {"name": "bench", "quantity": 3, "active": True, "note": "created by wrk"}


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def rpc(method: str, params: dict[str, Any], request_id: int = 1) -> str:
    """Return the compact body of one JSON-RPC request."""
    return compact({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def tool_call(name: str, arguments: dict[str, Any], *, progress_token: bool = False) -> str:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if progress_token:
        params["_meta"] = {"progressToken": 1}
    return rpc("tools/call", params)


@dataclass(frozen=True)
class Case:
    """One view, called directly and as a tool."""

    name: str
    direct: Load
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    headers: tuple[tuple[str, str], ...] = ()

    def mcp(self, *, progress_token: bool = False) -> Load:
        body = tool_call(self.tool, self.arguments, progress_token=progress_token)
        return Load((Request("POST", "/mcp", body),), MCP_HEADERS + self.headers)


def our_cases(token: str, item: int, profile: str = "current") -> dict[str, Case]:
    """Return the bench project's cases, for the seeded token and item, in ``profile``."""
    auth = (("Authorization", f"Token {token}"),)
    # The production profile's endpoint takes token callers only; the direct GET carries the
    # same token, so both sides authenticate it.
    anyone = auth if profile == "production" else ()
    return {
        "trivial": Case(
            "trivial GET",
            Load((Request("GET", "/api/trivial/"),), JSON_ACCEPT + anyone),
            "trivial",
            headers=anyone,
        ),
        "retrieve": Case(
            "retrieve (token, 1 row)",
            Load((Request("GET", f"/api/items/{item}/"),), JSON_ACCEPT + auth),
            "item_retrieve",
            {"pk": item},
            auth,
        ),
        "create": Case(
            "create (4 fields)",
            Load((Request("POST", "/api/items/", compact(NEW_ITEM)),), JSON_BODY + auth),
            "item_create",
            NEW_ITEM,
            auth,
        ),
    }


def mcp_settings(**overrides: Any) -> dict[str, str]:
    """Return the environment that merges ``overrides`` over the bench's ``MCP_TOOLS``."""
    return {"BENCH_MCP_TOOLS": compact(overrides)}


@dataclass(frozen=True)
class Variant:
    """A feature turned on: its price is the ratio of tools/call with it to without it."""

    name: str
    env: dict[str, str]
    case: str
    #: Turned on by the request rather than by settings: a progress token asks for SSE.
    progress_token: bool = False
    #: The environment of the "off" side, when off is not the bench's default.
    off_env: dict[str, str] = field(default_factory=dict)
    #: The profiles where the feature is not already on.
    profiles: tuple[str, ...] = PROFILES


# One line per feature. Settings-level features name their environment (bench/README.md).
VARIANTS = [
    Variant("output schema", mcp_settings(INCLUDE_OUTPUT_SCHEMA=True), "retrieve"),
    Variant("streaming (progressToken)", {}, "trivial", progress_token=True),
    Variant(
        "result processor",
        mcp_settings(RESULT_PROCESSORS=["mcp_tools.pipeline.processors.truncate_text"]),
        "trivial",
    ),
    # The call log is written by a thread of the worker: its price is the worker's time.
    Variant(
        "call log all (vs off)",
        mcp_settings(CALL_LOG="all"),
        "trivial",
        off_env=mcp_settings(CALL_LOG="off"),
    ),
    # Without its queue, each request writes its own row after its response.
    Variant(
        "call log all, no queue (vs off)",
        mcp_settings(CALL_LOG="all", CALL_LOG_QUEUE_SIZE=0),
        "trivial",
        off_env=mcp_settings(CALL_LOG="off"),
    ),
    Variant(
        "call log all (vs off)",
        mcp_settings(CALL_LOG="all"),
        "retrieve",
        off_env=mcp_settings(CALL_LOG="off"),
    ),
    Variant(
        "endpoint token auth",
        mcp_settings(AUTHENTICATION_CLASSES=["rest_framework.authentication.TokenAuthentication"]),
        "retrieve",
        # The production profile authenticates tokens at the endpoint already.
        profiles=("current",),
    ),
]


@dataclass(frozen=True)
class Peer:
    """Another MCP server: its trivial route served directly and through its own tool."""

    name: str
    server: str
    app: str
    #: Whether it runs in the peers' venv (mcp<2) rather than the bench's.
    in_peers_venv: bool
    direct_path: str
    mcp_path: str = "/mcp"
    tool: str = "trivial"
    #: Whether a session must be opened (initialize) before a call.
    stateful: bool = False
    env: dict[str, str] = field(default_factory=dict)
    lifespan: str = "off"

    def direct(self) -> Load:
        return Load((Request("GET", self.direct_path),), JSON_ACCEPT)

    def mcp(self) -> Load:
        return Load((Request("POST", self.mcp_path, tool_call(self.tool, {})),), MCP_HEADERS)


PEERS = [
    Peer(
        "django-mcp-server 0.5.7",
        "gunicorn",
        "bench.peers.dms.wsgi:application",
        in_peers_venv=True,
        direct_path="/api/trivial/",
    ),
    Peer(
        "fastapi-mcp 0.4.0",
        "uvicorn",
        "bench.peers.fastapi_app:app",
        in_peers_venv=True,
        direct_path="/trivial",
        stateful=True,
    ),
    Peer(
        "MCP Python SDK (MCPServer)",
        "uvicorn",
        "bench.peers.sdk_app:app",
        in_peers_venv=False,
        direct_path="/direct",
        lifespan="on",
    ),
]


def initialize_body() -> str:
    params = {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mcp-tools-bench", "version": "1"},
    }
    return rpc("initialize", params, request_id=0)


def list_page(cursor: str | None) -> str:
    return rpc("tools/list", {"cursor": cursor} if cursor else {})
