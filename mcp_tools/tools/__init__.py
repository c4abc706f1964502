"""What a tool is, and how one is built from a routed view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "RoutedTools",
    "Tool",
    "ToolOptions",
    "ToolProblem",
    "ToolRegistry",
    "expose",
    "lint_tool",
    "mcp_tool",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "expose": ".decorators",
        "mcp_tool": ".decorators",
        "Tool": ".tool",
        "ToolOptions": ".tool",
        "ToolProblem": ".tool",
        "RoutedTools": ".registry",
        "ToolRegistry": ".registry",
        "lint_tool": ".lint",
    },
)

if TYPE_CHECKING:
    from .decorators import expose, mcp_tool
    from .lint import lint_tool
    from .registry import RoutedTools, ToolRegistry
    from .tool import Tool, ToolOptions, ToolProblem
