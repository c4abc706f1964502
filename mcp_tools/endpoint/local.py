"""Tool calls made in-process, through a mounted endpoint: the admin's "Try it", ``mcp_call``.

They go through the endpoint the URLconf mounts (``mcp_tools:endpoint``, the one that
serves the tool, or the one the operator names), with that endpoint's policy, registry and
tags, and through the same handlers as its HTTP calls: the visibility rule, argument
checks, the view as the caller, the result contract, the call log. They answer the
projected result, or raise the ``JSONRPCError`` the endpoint would answer; never streamed.
"""

from __future__ import annotations

import io
import json
from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest
from django.urls import NoReverseMatch, get_script_prefix, reverse

from ..auth.caller import Caller
from ..pipeline.inner_requests import carried_attributes, client_environ
from ..pipeline.invocation import Invocation
from ..protocol.jsonrpc import JSONRPCError, parse_message
from ..protocol.versions import LATEST_HANDSHAKE_VERSION, Era
from . import server
from .exchange import Call, Exchange
from .handlers import call_tool as handle_call
from .mounts import endpoint_at, endpoint_paths
from .view import MCPView

DEFAULT_ENDPOINT = "mcp_tools:endpoint"


class NoEndpoint(LookupError):
    """No mounted MCP endpoint fits: none is mounted, or the URL name is not one."""


def mounted_endpoint(
    url_name: str | None = None, *, tool: str | None = None
) -> tuple[str, MCPView]:
    """Return the path and the instance (made with its ``as_view()`` arguments) of an endpoint.

    ``url_name`` names it (``"billing-mcp"``); without one, the first of
    ``mcp_tools:endpoint`` and the other mounted endpoints that serves tool ``tool``, else
    the first of them (which then answers that the tool is unknown). Raises ``NoEndpoint``.
    """
    if url_name is not None:
        try:
            path = path_info(reverse(url_name))
        except NoReverseMatch:
            raise NoEndpoint(f"No URL named {url_name!r}.") from None
        endpoint = endpoint_at(path)
        if endpoint is None:
            raise NoEndpoint(f"The URL {url_name!r} ({path}) is not an MCP endpoint.")
        return path, endpoint
    mounted = endpoint_paths()
    try:
        default = path_info(reverse(DEFAULT_ENDPOINT))
    except NoReverseMatch:
        default = None
    # mcp_tools:endpoint first; an endpoint narrowed to a toolset last (it may not hold it).
    mounted.sort(key=lambda found: (found[0] != default, found[1].toolset is not None))
    if not mounted:
        raise NoEndpoint("No MCP endpoint is mounted: include mcp_tools.urls in the URLconf.")
    serving = (found for found in mounted if tool is None or found[1].serves_name(tool))
    return next(serving, mounted[0])


def path_info(url: str) -> str:
    """Return the ``PATH_INFO`` of a path ``reverse()`` made: without the script prefix."""
    prefix = get_script_prefix()
    return "/" + url[len(prefix) :] if url.startswith(prefix) else url


def endpoint_request(
    path: str, request: HttpRequest | None = None, *, host: str = "localhost", **meta: str
) -> HttpRequest:
    """Return a JSON POST to the endpoint at ``path``, as ``request``'s client would send it.

    Its headers are the client's (cookies, host, address), its user and session those the
    middleware set on ``request``; ``meta`` adds ``META`` keys (an ``HTTP_X_CSRFTOKEN``).
    ``request`` itself is never changed. Without it, a request from nobody to ``host``.
    """
    environ: dict[str, Any] = (
        client_environ(request.META)
        if request is not None
        else {"HTTP_HOST": host, "SERVER_NAME": host, "SERVER_PORT": "80"}
    )
    environ.update(meta)
    environ.update(
        {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": path,
            "SCRIPT_NAME": request.META.get("SCRIPT_NAME", "") if request is not None else "",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": "0",
            "wsgi.input": io.BytesIO(),
            "wsgi.url_scheme": request.scheme if request is not None else "http",
        }
    )
    endpoint_request = WSGIRequest(environ)
    if request is not None:
        endpoint_request.__dict__.update(carried_attributes(request, every=True))
    return endpoint_request


def call_tool(
    request: HttpRequest,
    caller: Caller,
    name: str,
    arguments: dict[str, Any] | None,
    *,
    endpoint: MCPView,
    protocol_version: str = LATEST_HANDSHAKE_VERSION,
) -> dict[str, Any]:
    """Call tool ``name`` as ``caller`` through ``endpoint`` and return the projected result.

    ``request`` is the /mcp request (``endpoint_request``): the view's request copies its
    headers. ``protocol_version`` is a handshake-era version. Raises ``JSONRPCError`` for
    what the endpoint answers as an error (an unknown tool, invalid params, a fault of the
    server, logged under its reference).
    """
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    message = parse_message({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    exchange = Exchange(request, caller, endpoint, operator=True)
    call = Call(exchange, message, Era(protocol_version))
    try:
        result = handle_call(call)
        if isinstance(result, Invocation):
            result = result.run(None)
        # Answered as the endpoint answers it: bounded, projected, and reported.
        answer = server.complete(call, result)
    except JSONRPCError:
        raise
    except Exception as exc:
        raise server.fault(exc, request) from exc
    return dict(json.loads(answer.body)["result"])
