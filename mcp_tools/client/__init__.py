"""Use the tools of any MCP server as plain Python callables.

An adapted tool returns what a plain (non-MCP) tool returns: a string, or a list of parts
when the result holds images. See ``docs/client.md`` for the rules.

Importing this package needs neither Django settings nor, until a client is adapted, the
``mcp`` package.
"""

from ._adapter import AdaptedTool, adapt_tools
from ._artifacts import ArtifactStore, directory_store, store_artifacts
from ._blocking import SyncAdaptedTool, adapt_tools_sync
from ._bounding import Processor, compose, redact, truncate
from ._errors import InputRequiredError, McpToolError, UnsupportedContentError
from ._input import INPUT_METHODS, InputHandler, input_callbacks
from ._output import FilePart, Part, TextPart, ToolOutput, to_tool_output

__all__ = [
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
    "compose",
    "directory_store",
    "input_callbacks",
    "redact",
    "store_artifacts",
    "to_tool_output",
    "truncate",
]
