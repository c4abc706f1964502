"""System checks: misconfiguration reported at start-up, each with an id and a hint.

Documented one by one in docs/checks.md.
"""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from .registry import ToolRegistry
from .registry import registry as default_registry


def _describe(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


@checks.register("mcp_tools")
def check_tools(app_configs: Any = None, registry: ToolRegistry | None = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Resolve every declared tool against the URLconf and report what can't become a tool."""
    registry = registry or default_registry
    try:
        registry.tools()
    except ImproperlyConfigured as exc:
        return [
            checks.Error(
                str(exc),
                hint="Give each tool a unique name of 1-64 characters of [A-Za-z0-9_.-] "
                "with @mcp_tool(name=...), or choose one route with path=.",
                id="mcp_tools.E001",
            )
        ]
    return [
        checks.Warning(
            f"{_describe(obj)} is decorated with @mcp_tool but no URL pattern routes to it, "
            "so it is not a tool.",
            hint="Include the view (or its router) in the URLconf, or remove the decorator.",
            obj=obj,
            id="mcp_tools.W001",
        )
        for obj in registry.unrouted()
    ]
