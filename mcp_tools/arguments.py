"""Tool arguments: checked against the tool's inputSchema, then split into path, query, body."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .tools import Tool


@dataclass
class SplitArguments:
    """Arguments sorted by where they go in the view's request."""

    path: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: dict[str, Any] | None = None


def problems(tool: Tool, arguments: dict[str, Any]) -> list[str]:
    """Return one ``Invalid arguments: <json path>: <message>`` line per problem."""
    errors = sorted(tool.validator.iter_errors(arguments), key=lambda e: (e.json_path, e.message))
    return [f"Invalid arguments: {error.json_path}: {error.message}" for error in errors]


def split(tool: Tool, arguments: dict[str, Any]) -> SplitArguments:
    """Path parameters fill the URL; the rest form the JSON body or, without one, the query."""
    result = SplitArguments(body={} if tool.has_body else None)
    for name, value in arguments.items():
        if name in tool.path_params:
            result.path[name] = value
        elif result.body is not None:
            result.body[name] = value
        else:
            result.query[name] = value
    return result


def query_value(value: Any) -> list[str]:
    """Return the query-string form of one argument (lists repeat the key)."""
    if value is None:
        return []
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, list | tuple):
        return [item for element in value for item in query_value(element)]
    if isinstance(value, dict):
        return [json.dumps(value, separators=(",", ":"))]
    return [str(value)]
