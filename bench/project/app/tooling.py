"""``mcp_tool`` for the bench views, or a no-op when the project runs without mcp_tools.

The resident-memory figure compares the project with and without mcp_tools: in the second
mode nothing of the package may be imported, so the views take the decorator from here.
"""

from collections.abc import Callable
from typing import Any

from django.conf import settings

if settings.BENCH_WITHOUT_MCP_TOOLS:

    def mcp_tool(*args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        """Return the view unchanged, as ``@mcp_tool`` does, without registering it."""
        return lambda view: view

else:
    from mcp_tools import mcp_tool  # noqa: F401
