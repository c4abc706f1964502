"""The two tools of discovery mode, ``search_tools`` and ``call_tool``, and when it is on
(docs/tools.md#large-apis).

A large catalog listed whole costs a model its context before the first word of the task
(Nautobot's 1,193 tools: about 739,000 tokens) and its choice gets worse with every tool.
In discovery mode ``tools/list`` answers the pinned tools and these two: a model searches,
then calls what it found through ``call_tool``, or directly by name. ``call_tool`` is a
``tools/call`` of the named tool and nothing else: the endpoint unwraps it before the tool is
looked up, so visibility, validation, confirmations, input requests, tasks, the call log and
``tool_called`` are the named tool's own.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from django.utils.translation import get_language
from jsonschema import Draft202012Validator

from ..catalog.admin_state import Catalog
from ..conf import mcp_settings
from ..pipeline.arguments import validator_problems
from ..protocol.jsonrpc import encode
from ..protocol.projection import project_tool
from ..protocol.results import ToolResult, text_block
from ..tools.definitions import hide_listings
from ..tools.tool import Tool

if TYPE_CHECKING:
    from .ranking import SearchBackend

SEARCH_TOOLS = "search_tools"
CALL_TOOL = "call_tool"
#: The names discovery mode takes: no project tool may have one while it can turn on.
NAMES = (SEARCH_TOOLS, CALL_TOOL)

#: What ``DISCOVERY`` (and ``MCPView.as_view(discovery=...)``) takes.
MODES = ("auto", "always", "never")

#: How many tools a search returns by default, and at most.
DEFAULT_LIMIT = 5
MAX_LIMIT = 20

_TOOL_ENTRY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "inputSchema": {"type": "object"},
    },
    "required": ["name", "description", "inputSchema"],
}

SEARCH_DEFINITION: dict[str, Any] = {
    "name": SEARCH_TOOLS,
    "title": "Search the tools",
    "description": (
        "Find the tools for a task among the many this API has: pass query, a few words "
        'naming the objects and the action (for example "devices at a site" or "create a '
        'VLAN"). Returns the best matches you may call, best first, each with its name, '
        "title, description and input schema. Then call one with call_tool, or by its name. "
        "Search again with other words when none fits: only these and a few pinned tools "
        "are listed."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 500,
                "description": "What you want to do, in a few words: the objects and the action.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
                "description": f"How many tools to return, at most {MAX_LIMIT}.",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    "outputSchema": {
        "type": "object",
        "properties": {"tools": {"type": "array", "items": _TOOL_ENTRY}},
        "required": ["tools"],
    },
    "annotations": {
        "title": "Search the tools",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
}

CALL_DEFINITION: dict[str, Any] = {
    "name": CALL_TOOL,
    "title": "Call a tool",
    "description": (
        "Call a tool that search_tools found: pass its name and its arguments as its input "
        'schema says, for example {"name": "device_list", "arguments": {"status": '
        '"active"}}. It runs exactly as a direct call of that tool, with the same '
        "permissions and confirmations, and returns that tool's result. Search first for "
        "the name and the arguments: a tool you may not call is an unknown tool."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "description": "The tool's name, as search_tools returned it.",
            },
            "arguments": {
                "type": "object",
                "description": "The tool's arguments, as its input schema says; {} for none.",
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    },
    # The worst of what it may run: clients approve a call by the annotations it lists.
    "annotations": {
        "title": "Call a tool",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    },
}

_validators = {
    SEARCH_TOOLS: Draft202012Validator(SEARCH_DEFINITION["inputSchema"]),
    CALL_TOOL: Draft202012Validator(CALL_DEFINITION["inputSchema"]),
}


def mode_of(endpoint: object) -> str:
    """Return the discovery mode of ``endpoint``: its own (``as_view(discovery=...)``), else
    ``DISCOVERY``."""
    return getattr(endpoint, "discovery", None) or mcp_settings.DISCOVERY


def is_on(mode: str, visible: int) -> bool:
    """Return whether ``tools/list`` is in discovery mode for a caller who may call
    ``visible`` tools."""
    return mode == "always" or (mode == "auto" and visible > mcp_settings.DISCOVERY_THRESHOLD)


def discovery_definitions(version: str, tasks: bool = False) -> list[dict[str, Any]]:
    """Return the two tools' definitions as ``version`` carries them; ``tasks``: some tool
    of the endpoint runs as a task, so ``call_tool`` may (2025-11-25's ``execution``)."""
    call = dict(CALL_DEFINITION)
    if tasks:
        call["execution"] = {"taskSupport": "optional"}
    return [project_tool(SEARCH_DEFINITION, version), project_tool(call, version)]


def pinned(catalog: Catalog, visible: Iterable[Tool]) -> list[Tool]:
    """Return the tools of ``visible`` the admin pinned, in catalog order."""
    return [tool for tool in visible if catalog.rule(tool.name).pinned]


def argument_problems(name: str, arguments: object) -> list[str]:
    """Return one ``Invalid arguments`` line per problem of a discovery tool's arguments,
    bounded as a tool's are: a 50,000-character query is not echoed back."""
    return validator_problems(_validators[name], arguments)


def unwrapped(params: dict[str, Any]) -> dict[str, Any]:
    """Return the params of the ``tools/call`` a ``call_tool`` call stands for (its
    arguments valid: ``argument_problems``): every other param (``_meta``, ``task``, input
    responses) kept."""
    arguments = params.get("arguments") or {}
    return {**params, "name": arguments["name"], "arguments": arguments.get("arguments") or {}}


# Search ----------------------------------------------------------------------------------

_backends: WeakKeyDictionary[Catalog, dict[Hashable, SearchBackend]] = WeakKeyDictionary()
_lock = threading.Lock()


def backend_for(catalog: Catalog) -> SearchBackend:
    """Return the ranker of ``catalog``'s tools: built once per admin state version (and
    language, and settings), from the tools and their rules alone, so every worker builds
    the same."""
    key = (get_language(), mcp_settings.generation)
    backends = _backends.get(catalog) or {}
    backend = backends.get(key)
    if backend is None:
        with _lock:
            backends = _backends.setdefault(catalog, {})
            backend = backends.get(key)
            if backend is None:
                # Imported at the first search: a worker whose callers never search has no
                # use for the ranker's code and word lists.
                from .ranking import entries_of, load_backend

                backend_class = load_backend(mcp_settings.SEARCH_BACKEND)
                backend = backends[key] = backend_class(entries_of(catalog))
    return backend


def search(
    catalog: Catalog, visible: Sequence[Tool], arguments: dict[str, Any], version: str
) -> tuple[ToolResult, list[str]]:
    """Answer ``search_tools``: the best matches among ``visible`` (the tools the caller may
    call, searched among alone), each as the caller would list it; and their names."""
    limit = int(arguments.get("limit", DEFAULT_LIMIT))  # 5.0 is an integer to JSON Schema
    names = {tool.name for tool in visible}
    found = backend_for(catalog).search(arguments["query"], names, limit)
    tools = [catalog.tools[name] for name in found if name in names][:limit]
    entries = [described(tool, names, version) for tool in tools]
    value = {"tools": entries}
    return ToolResult(content=[text_block(encode(value))], structured=value), [
        tool.name for tool in tools
    ]


#: What a search returns of each tool it found: what a model needs to call it well (whether
#: it is destructive, whether it must run as a task).
ENTRY_KEYS = ("name", "title", "description", "inputSchema", "annotations", "execution")


def described(tool: Tool, seen: set[str], version: str) -> dict[str, Any]:
    """Return what a search says of ``tool``: its definition as this caller lists it."""
    definition = project_tool(hide_listings(tool.definition(), tool, seen), version)
    return {key: definition[key] for key in ENTRY_KEYS if key in definition}
