"""The MCP Python SDK's own server: a trivial tool beside a plain Starlette route, one process.

Runs in the bench venv (``mcp`` 2.x, the version mcp_tools depends on).
"""

from typing import Any

from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse

ANSWER = {"status": "ok", "count": 3, "items": ["a", "b"]}

# Warnings only, as every server here: at INFO it logs each stateless request's session.
server = MCPServer("sdk-bench", log_level="WARNING")


@server.tool()
async def trivial() -> dict[str, Any]:
    """Return a three-key object."""
    return ANSWER


@server.custom_route("/direct", methods=["GET"])
async def direct(request: Request) -> JSONResponse:
    return JSONResponse(ANSWER)


# Stateless JSON answers, as mcp_tools gives: no session to open before a call.
app = server.streamable_http_app(stateless_http=True, json_response=True)
