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
def check_tools(
    app_configs: Any = None, registry: ToolRegistry | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Resolve every declared tool against the URLconf and report what can't become a tool."""
    registry = registry or default_registry
    toolset = registry.inspect()
    messages: list[checks.CheckMessage] = [
        (checks.Error if problem.error else checks.Warning)(
            problem.message, hint=problem.hint, obj=problem.obj, id=problem.id
        )
        for problem in toolset.problems
    ]
    messages.extend(
        checks.Warning(
            f"{_describe(obj)} is decorated with @mcp_tool but no URL pattern routes to it, "
            "so it is not a tool.",
            hint="Include the view (or its router) in the URLconf, or remove the decorator.",
            obj=obj,
            id="mcp_tools.W001",
        )
        for obj in registry.unrouted()
    )
    return messages


@checks.register("mcp_tools")
def check_output_schemas(
    app_configs: Any = None, registry: ToolRegistry | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Report output-schema switches that contradict each other or have no schema (§4.5)."""
    from .output_schemas import declared_structured_content, include_output_schema

    registry = registry or default_registry
    try:
        tools = list(registry.tools())
    except ImproperlyConfigured:
        return []  # reported by check_tools
    messages: list[checks.CheckMessage] = []
    for tool in tools:
        if not include_output_schema(tool):
            continue
        if not declared_structured_content(tool):
            messages.append(
                checks.Warning(
                    f"Tool {tool.name}: include_output_schema forces include_structured_content "
                    "on, although it is set to False.",
                    hint="Set include_structured_content=True with include_output_schema=True, "
                    "or turn include_output_schema off.",
                    obj=tool.declared_by,
                    id="mcp_tools.W020",
                )
            )
        try:
            schema = tool.output_schema
        except TypeError as exc:
            messages.append(
                checks.Error(
                    str(exc),
                    hint="Pass a JSON Schema dict or a Serializer class as output_schema.",
                    obj=tool.declared_by,
                    id="mcp_tools.E020",
                )
            )
            continue
        if schema is None:
            messages.append(
                checks.Warning(
                    f"Tool {tool.name}: include_output_schema is on, but no output schema is "
                    "known, so none is advertised.",
                    hint="Pass output_schema= to @mcp_tool, or give the view a serializer.",
                    obj=tool.declared_by,
                    id="mcp_tools.W021",
                )
            )
    return messages
