"""``resources/list``, ``resources/templates/list`` and ``resources/read`` (docs/resources.md).

Handlers as the endpoint's table holds them: one ``Call`` in, a result out, or a
``JSONRPCError``. Who sees a resource is the tools' rule (``catalog.visibility``) over the
resource's own admin row; a read is a ``Reading``, the tools' ``Invocation``.
"""

from __future__ import annotations

import re
import time
from typing import Any

from ..catalog.admin_state import Catalog
from ..conf import mcp_settings
from ..pipeline.formatters import response_too_large
from ..pipeline.invocation import send_refused
from ..protocol.cursors import decode_cursor, encode_cursor
from ..protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    THROTTLED,
    JSONRPCError,
    clip,
    encode,
)
from ..protocol.results import ToolResult
from ..tools.tool import Tool
from .contents import contents_of
from .reading import Reading
from .registry import RoutedResources, capabilities, served_resources
from .resource import Resource
from .state import resource_catalog

__all__ = [
    "capabilities",
    "list_resources",
    "list_templates",
    "read_contents",
    "read_resource",
    "served",
    "served_at",
]

#: Resource not found, before 2026-07-28 (its spec's own code).
RESOURCE_NOT_FOUND = -32002
#: The most characters of a URI a not-found error repeats in its ``data``.
MAX_URI_IN_ERROR = 200
#: The HTTP statuses of a view that mean "no such resource", for this caller: a resource
#: it may not read is answered as one that does not exist (docs/resources.md).
NOT_FOUND_STATUSES = frozenset({401, 403, 404, 410})
#: An integer URI variable: digits a Python int reads, never an unbounded string of them.
INTEGER = re.compile(r"-?[0-9]{1,18}")


def served(call: Any) -> tuple[RoutedResources, Catalog] | None:
    """Return the resources this request's endpoint serves and their catalog, or None: a
    toolset's or tags' endpoint serves tools alone (docs/resources.md)."""
    return served_at(call.exchange)


def served_at(exchange: Any) -> tuple[RoutedResources, Catalog] | None:
    """``served()`` of an exchange (an HTTP request to the endpoint)."""
    resources = served_resources(exchange)
    if resources is None:
        return None
    return resources, resource_catalog(resources)


def visible(call: Any) -> tuple[list[tuple[Resource, Tool]], Catalog | None, int]:
    """Return the resources this caller may see and read, each with its catalog's tool,
    their catalog, and how many the endpoint serves whoever asks."""
    found = served(call)
    if found is None:
        return [], None, 0
    resources, catalog = found
    visibility = call.exchange.visibility
    visibility.read_groups(catalog)  # the same reads whatever is asked (docs/security.md)
    seen = []
    for resource in resources:
        tool = catalog.tools[resource.name]
        if visibility.sees(tool, catalog):
            seen.append((resource, tool))
    return seen, catalog, len(resources)


def _listing(call: Any, key: str, templates: bool) -> dict[str, Any]:
    seen, catalog, total = visible(call)
    listed = []
    for resource, _tool in seen:
        if resource.is_template is templates:
            assert catalog is not None
            rule = catalog.rule(resource.name)
            listed.append(resource.definition(rule.title, rule.description))
    private = call.caller.is_authenticated or len(seen) < total
    size = mcp_settings.PAGE_SIZE
    cursor = call.message.params.get("cursor")
    start = decode_cursor(cursor, len(listed)) if cursor is not None else 0
    end = start + size if size else len(listed)
    page: dict[str, Any] = {key: listed[start:end]}
    if end < len(listed):
        page["nextCursor"] = encode_cursor(end)
    return {
        **page,
        # As tools/list: a list that depends on who asks is the caller's alone.
        "cacheScope": "private" if private else "public",
        "ttlMs": mcp_settings.CACHE_TTL_MS,
    }


def list_resources(call: Any) -> dict[str, Any]:
    return _listing(call, "resources", templates=False)


def list_templates(call: Any) -> dict[str, Any]:
    return _listing(call, "resourceTemplates", templates=True)


def not_found(call: Any, uri: str) -> JSONRPCError:
    """Return the era's resource-not-found error: -32602 with ``data.uri`` at 2026-07-28
    (SEP-2164), -32002 before."""
    clipped = clip(uri, MAX_URI_IN_ERROR)
    code = INVALID_PARAMS if call.era.modern else RESOURCE_NOT_FOUND
    return JSONRPCError(code, f"Resource not found: {clipped}", {"uri": clipped})


def find(call: Any, uri: str) -> tuple[Resource, Tool, Catalog, dict[str, Any]] | None:
    """Return the resource ``uri`` names among those this caller may read, its tool, its
    catalog and its arguments; None: no such resource, or hidden from this caller (the same
    answer). Groups and the view's permissions are asked before the view runs."""
    seen, catalog, _ = visible(call)
    for resource, tool in seen:
        variables = resource.match(uri)
        if variables is not None:
            assert catalog is not None
            return resource, tool, catalog, typed(tool, variables)
    return None


def among_served(call: Any, uri: str) -> tuple[Tool, dict[str, Any]] | None:
    """Return the tool and arguments of the served resource ``uri`` names whatever the
    caller may see, or None: a URI no resource answers."""
    found = served(call)
    if found is None:
        return None
    resources, catalog = found
    for resource in resources:
        variables = resource.match(uri)
        if variables is not None:
            tool = catalog.tools[resource.name]
            return tool, typed(tool, variables)
    return None


def typed(tool: Tool, variables: dict[str, str]) -> dict[str, Any]:
    """Return a URI's variables as the tool's arguments: an integer parameter an integer."""
    properties = tool.input_schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for name, value in variables.items():
        kind = properties.get(name, {}).get("type")
        if kind == "integer" and INTEGER.fullmatch(value):
            arguments[name] = int(value)
        else:
            arguments[name] = value
    return arguments


def read_resource(call: Any) -> dict[str, Any]:
    started = time.perf_counter()
    uri = call.message.params.get("uri")
    if not isinstance(uri, str):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: uri must be a string")
    found = find(call, uri)
    try:
        call.exchange.count_call()  # a batch's further reads count as requests
    except JSONRPCError as error:
        if found is not None and error.code == THROTTLED:
            report_throttled(call, found[1], found[3], started, error)
        raise
    if found is None:
        raise unseen(call, uri, started)
    return read(call, found, uri)


def unseen(call: Any, uri: str, started: float) -> JSONRPCError:
    """Return the not-found error of a URI no resource this caller sees answers, the read
    logged as refused where a resource hidden from the caller answers it (as a hidden
    tool's call is)."""
    error = not_found(call, uri)
    hidden = among_served(call, uri)
    if hidden is not None:
        tool, arguments = hidden
        message = error.message
        send_refused(
            call, tool.view_class, tool.name, arguments, started, message, "hidden", "resource"
        )
    return error


def read_contents(call: Any, uri: str) -> list[dict[str, Any]]:
    """Return the contents ``resources/read`` of ``uri`` gives this caller, read and logged
    as such a read is, or raise the error it answers (not found where the resource is
    hidden from this caller or none): a prompt's resource of this site (docs/prompts.md).
    Not counted against the endpoint's throttles: the request that asks is, and the view's
    own throttles refuse as in any read."""
    started = time.perf_counter()
    found = find(call, uri)
    if found is None:
        raise unseen(call, uri, started)
    contents: list[dict[str, Any]] = read(call, found, uri)["contents"]
    return contents


def read(
    call: Any, found: tuple[Resource, Tool, Catalog, dict[str, Any]], uri: str
) -> dict[str, Any]:
    """Run the view of the resource ``find`` found for ``uri`` as this caller; return its
    ``ReadResourceResult`` or raise its error (``answer``)."""
    resource, tool, catalog, arguments = found
    reading: Reading[Any] = Reading(call, catalog.plan(tool), arguments)
    ended = reading.start()
    reading.stay_inline()  # a read answers on its thread: a view that asks is told it can't
    result = ended if isinstance(ended, ToolResult) else reading.run()
    assert isinstance(result, ToolResult), "a read asks nothing of its client"
    return answer(call, reading, result, resource, uri)


def answer(
    call: Any, reading: Reading[Any], result: ToolResult, resource: Resource, uri: str
) -> dict[str, Any]:
    """Return the ``ReadResourceResult`` of a finished read, reported in the call log, or
    raise its error: not found (a 404), a redirect not followed, a failed view."""
    sent = result
    contents = contents_of(result, uri, resource.mime_type or reading.media_type)
    if not result.is_error and len(encode(contents)) > mcp_settings.MAX_RESPONSE_BYTES:
        sent = response_too_large()
    reading.answered(result, sent)
    status = reading.status
    if status in NOT_FOUND_STATUSES or reading.refusal == "invalid_arguments":
        # Refused, or a URI whose variables the view can't take: no resource of the caller's.
        raise not_found(call, uri)
    if sent.is_error:
        message = "\n".join(sent.texts()) or "The resource could not be read"
        data = {"uri": clip(uri, MAX_URI_IN_ERROR)}
        if status == 429:  # the view's own throttles: answered as the endpoint's are
            raise JSONRPCError(THROTTLED, message, data)
        code = INVALID_PARAMS if status is not None and 300 <= status < 400 else INTERNAL_ERROR
        if sent.error_reference is not None:
            data["errorRef"] = sent.error_reference
        raise JSONRPCError(code, message, data)
    return {
        "contents": contents,
        # What a read answers depends on its caller, like a tool call's result.
        "cacheScope": "private",
        "ttlMs": mcp_settings.CACHE_TTL_MS,
    }


def report_throttled(
    call: Any, tool: Tool, arguments: dict[str, Any], started: float, error: JSONRPCError
) -> None:
    """Log a read the endpoint's throttles refused, as a refused tool call is."""
    send_refused(
        call, tool.view_class, tool.name, arguments, started, error.message, "throttled", "resource"
    )
