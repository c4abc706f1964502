"""The demo's landing page: its tools as the visitor's MCP client would list them, and how to
connect one."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from rest_framework.authtoken.models import Token

from demo_project.clients import configurations
from mcp_tools.endpoint import local
from mcp_tools.endpoint.exchange import Exchange
from mcp_tools.protocol.jsonrpc import JSONRPCError

TOKEN_PLACEHOLDER = "<your-token>"


def visible_tools(request: HttpRequest) -> tuple[list[dict[str, Any]], JSONRPCError | None]:
    """Return the tools ``tools/list`` would answer for this visitor, or the endpoint's refusal.

    The visitor is authenticated by the endpoint's own policy (its session counts, as the
    demo's endpoint takes SessionAuthentication), and the one visibility rule of the
    endpoint decides, as for any client.
    """
    path, endpoint = local.mounted_endpoint()
    try:
        caller = endpoint.authenticate(local.endpoint_request(path, request))
    except JSONRPCError as refusal:
        return [], refusal
    exchange = Exchange(request, caller, endpoint)
    return [tool.definition() for tool in exchange.tools()[0]], None


def landing(request: HttpRequest) -> HttpResponse:
    url = request.build_absolute_uri(reverse("mcp_tools:endpoint"))
    tools, refusal = visible_tools(request)
    user = request.user
    key = Token.objects.get_or_create(user=user)[0].key if user.is_authenticated else None
    context = {
        "url": url,
        "tools": tools,
        "refusal": refusal,
        "challenge": refusal.headers.get("WWW-Authenticate") if refusal else None,
        "token": key,
        "configurations": configurations(url, key or TOKEN_PLACEHOLDER),
    }
    return render(request, "home/landing.html", context)
