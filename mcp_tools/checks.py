"""System checks: misconfiguration reported at start-up, each with an id and a hint.

Every message lives here, as Django admin keeps its own in ``contrib/admin/checks.py``: the
registry and the tool builder report problems as data (``ToolProblem``), and this module
words them. Documented one by one in docs/checks.md.
"""

from __future__ import annotations

from typing import Any

from django.core import checks

from .tools import ToolProblem

INPUT_SCHEMA_HINT = "declare the arguments with @mcp_tool(input_schema=...)"

#: id → (message, hint), formatted with the problem's params.
MESSAGES: dict[str, tuple[str, str]] = {
    "mcp_tools.E001": (
        "Tool name {name!r} is used by several views ({routes}); pass name= to @mcp_tool to "
        "tell them apart",
        "Give each tool a unique name of 1-64 characters of [A-Za-z0-9_.-] with "
        "@mcp_tool(name=...), or choose one route with path=.",
    ),
    "mcp_tools.E002": (
        "The tool name {name!r} derived for {where} is not 1-64 characters of [A-Za-z0-9_.-].",
        "Pass name= to @mcp_tool, or rename the URL pattern or the router basename.",
    ),
    "mcp_tools.E003": (
        "{view} {method} is mounted at several URLs ({routes}); pass path= to @mcp_tool to "
        "choose one",
        'Pass path= to @mcp_tool with the route to expose, e.g. path="/api/items/".',
    ),
    "mcp_tools.E004": (
        "Tool {name!r} ({where}): {clash}, so the arguments can't be told apart.",
        "Rename the URL parameter, the filter or the serializer field, or declare the "
        "arguments yourself with @mcp_tool(input_schema=...).",
    ),
    "mcp_tools.E005": (
        "The input_schema of tool {name!r} is not a valid JSON Schema: {problem}.",
        "Pass an object schema (type: object) that is valid JSON Schema 2020-12 and draft-07 "
        "to @mcp_tool(input_schema=...).",
    ),
    "mcp_tools.W001": (
        "{view} is decorated with @mcp_tool but no URL pattern routes to it, so it is not a tool.",
        "Include the view (or its router) in the URLconf, or remove the decorator.",
    ),
    "mcp_tools.W002": (
        "Tool {name!r} ({where}): the request serializer could not be read with a synthetic "
        "anonymous request ({error}), so the input schema lists no body fields.",
        "Make get_serializer_class() work for an anonymous request (check "
        "request.user.is_authenticated before using the user), or " + INPUT_SCHEMA_HINT + ".",
    ),
    "mcp_tools.W003": (
        "Tool {name!r} ({where}): the query parameters of the filter backends and the "
        "paginator could not be read ({error}), so the input schema lists none.",
        "Set queryset on the view (filter sets need its model), or " + INPUT_SCHEMA_HINT + ".",
    ),
    "mcp_tools.W004": (
        "Tool {name!r} ({where}): the field(s) {fields} take uploaded files, which JSON "
        "arguments can't carry; they are left out of the input schema.",
        "Expose a variant of the view whose serializer takes a URL or base64 text instead, "
        "or leave this method out with methods=/actions=.",
    ),
    "mcp_tools.E020": (
        "output_schema of tool {name} must be a JSON Schema dict or a Serializer class, not {type}",
        "Pass a JSON Schema dict or a Serializer class as output_schema.",
    ),
    "mcp_tools.W020": (
        "Tool {name}: include_output_schema forces include_structured_content on, although "
        "it is set to False.",
        "Set include_structured_content=True with include_output_schema=True, or turn "
        "include_output_schema off.",
    ),
    "mcp_tools.W021": (
        "Tool {name}: include_output_schema is on, but no output schema is known, so none is "
        "advertised.",
        "Pass output_schema= to @mcp_tool, or give the view a serializer.",
    ),
}


def describe(problem: ToolProblem) -> tuple[str, str]:
    """Return the message and the hint of ``problem``."""
    message, hint = MESSAGES[problem.id]
    return message.format(**problem.params), hint.format(**problem.params)


def check_message(problem: ToolProblem) -> checks.CheckMessage:
    """Return ``problem`` as a Django system check message."""
    message, hint = describe(problem)
    level = checks.Error if problem.error else checks.Warning
    return level(message, hint=hint, obj=problem.obj, id=problem.id)


def _describe_obj(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


@checks.register("mcp_tools")
def check_tools(
    app_configs: Any = None, registry: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Resolve every declared tool against the URLconf and report what can't become a tool."""
    from .registry import registry as default_registry

    registry = registry or default_registry
    messages = [check_message(problem) for problem in registry.inspect().problems]
    messages.extend(
        check_message(ToolProblem("mcp_tools.W001", obj, {"view": _describe_obj(obj)}))
        for obj in registry.unrouted()
    )
    return messages
