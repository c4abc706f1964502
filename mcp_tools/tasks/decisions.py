"""Whether a ``tools/call`` runs as a task, and what the server advertises of tasks.

What every tool call and every ``initialize`` ask, apart from the task store
(``tasks.store``) and the ``tasks/*`` methods (``tasks.methods``): a worker whose calls
run no task never imports them (docs/performance.md#memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..protocol.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    MISSING_CAPABILITY,
    JSONRPCError,
    clip,
)
from ..protocol.versions import CLIENT_CAPABILITIES_META_KEY

if TYPE_CHECKING:
    from ..endpoint.exchange import Call
    from ..tools.tool import Tool

#: The extension's identifier, declared by the client per request and by the server in
#: ``server/discover``.
EXTENSION = "io.modelcontextprotocol/tasks"
#: The version whose experimental tasks this serves besides the extension.
EXPERIMENTAL_VERSION = "2025-11-25"


def declares_extension(meta: Mapping[str, object]) -> bool:
    """Return whether a 2026-07-28 request's ``_meta`` declares the tasks extension."""
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY)
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


def missing_extension(what: str) -> JSONRPCError:
    """Return -32021 for a request that needs the tasks extension its client did not declare."""
    return JSONRPCError(
        MISSING_CAPABILITY,
        f"Missing required client capability: {what} needs the {EXTENSION} extension",
        data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


def decide(call: Call, tool: Tool) -> bool:
    """Return whether this call of ``tool`` may be answered with a task; raise the error of
    one that can't be served: a ``"required"`` task tool for a client that can't take a
    task (-32021 in 2026-07-28, -32601 before), a 2025-11-25 task for a tool that has none."""
    support = tool.options.task
    if call.exchange.operator:
        return False  # mcp_call, the admin's Try it: an operator waits for the answer inline
    params = call.message.params
    if call.era.modern:
        # A legacy ``task`` param means nothing here: the server alone decides.
        if support is not None and declares_extension(call.message.meta):
            return True
        if support == "required":
            raise missing_extension(f"Tool {tool.name}")
        return False
    asked = "task" in params
    if call.version == EXPERIMENTAL_VERSION:
        if asked and not isinstance(params["task"], dict):
            raise JSONRPCError(INVALID_PARAMS, "Invalid params: task must be an object")
        if asked and support is None:
            raise JSONRPCError(METHOD_NOT_FOUND, f"Tool {clip(tool.name)} does not run as a task")
        if not asked and support == "required":
            raise JSONRPCError(METHOD_NOT_FOUND, f"Tool {clip(tool.name)} must be called as a task")
        return asked
    if support == "required":
        raise JSONRPCError(
            METHOD_NOT_FOUND,
            f"Tool {clip(tool.name)} runs only as a task, which protocol version "
            f"{call.version} can't carry",
        )
    return False


def capabilities(call: Call, served: list[Tool]) -> dict[str, Any]:
    """Return what the server advertises of tasks at ``call``'s version, when a tool it
    serves declares one: 2025-11-25's ``tasks`` capability, 2026-07-28's extension."""
    if not any(tool.options.task is not None for tool in served):
        return {}
    if call.era.modern:
        return {"extensions": {EXTENSION: {}}}
    if call.version == EXPERIMENTAL_VERSION:
        return {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
    return {}
