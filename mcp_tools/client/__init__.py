"""Use the tools of any MCP server as plain Python callables.

An adapted tool returns what a plain (non-MCP) tool returns: a string, or a list of parts
when the result holds images. See ``docs/client.md`` for the rules.

Importing this package needs neither Django settings nor, until a client is adapted, the
``mcp`` package (nor ``httpx2``, which ``bounded_http_client`` loads on first access).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._adapter import AdaptedTool, adapt_tools
from ._artifacts import ArtifactStore, directory_store, store_artifacts
from ._blocking import DEFAULT_MAX_RESPONSE_BYTES, SyncAdaptedTool, adapt_tools_sync
from ._bounding import Processor, compose, redact, truncate
from ._errors import InputRequiredError, McpToolError, UnsupportedContentError
from ._input import INPUT_METHODS, InputHandler, input_callbacks
from ._output import FilePart, Part, TextPart, ToolOutput, to_tool_output

if TYPE_CHECKING:
    from ._http import bounded_http_client

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "AdaptedTool",
    "ArtifactStore",
    "FilePart",
    "INPUT_METHODS",
    "InputHandler",
    "InputRequiredError",
    "McpToolError",
    "Part",
    "Processor",
    "SyncAdaptedTool",
    "TextPart",
    "ToolOutput",
    "UnsupportedContentError",
    "adapt_tools",
    "adapt_tools_sync",
    "bounded_http_client",
    "compose",
    "directory_store",
    "input_callbacks",
    "redact",
    "store_artifacts",
    "to_tool_output",
    "truncate",
]


def __getattr__(name: str) -> Any:
    if name == "bounded_http_client":
        from ._http import bounded_http_client

        globals()[name] = bounded_http_client
        return bounded_http_client
    raise AttributeError(f"module 'mcp_tools.client' has no attribute {name!r}")
