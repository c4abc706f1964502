"""The endpoints as OAuth 2.0 protected resources: identifiers and RFC 9728 metadata.

OAuth metadata is configured when ``MCP_TOOLS["OAUTH_AUTHORIZATION_SERVERS"]`` names at
least one issuer. Then every endpoint (each ``MCPView`` in the URLconf) is a protected
resource whose identifier is its own absolute URL (or ``OAUTH_RESOURCE``), described at the
RFC 9728 path form ``/.well-known/oauth-protected-resource/<endpoint path>``, which the 401
challenge names in ``resource_metadata``. Nothing here needs an OAuth library: the tokens
themselves are checked by the endpoint's authentication classes (``mcp_tools.contrib.oauth``
for django-oauth-toolkit).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from .conf import mcp_settings
from .context import get_context, http_request

WELL_KNOWN = "/.well-known/oauth-protected-resource"


def is_configured() -> bool:
    """Return whether OAuth metadata is configured (an authorization server is named)."""
    return bool(mcp_settings.OAUTH_AUTHORIZATION_SERVERS)


def absolute(request: HttpRequest, location: str) -> str:
    """Return ``location`` as an absolute URL: a path is joined to the request's origin.

    No trailing slash is added or kept for the origin itself (``/`` → ``https://host``): an
    issuer and a resource identifier are compared as strings.
    """
    if not location.startswith("/"):
        return location
    url = request.build_absolute_uri(location)
    return url[:-1] if location == "/" else url


def authorization_servers(request: HttpRequest) -> list[str]:
    """Return the issuers of ``OAUTH_AUTHORIZATION_SERVERS``, made absolute."""
    return [absolute(request, issuer) for issuer in mcp_settings.OAUTH_AUTHORIZATION_SERVERS]


def resource_identifier(request: HttpRequest, path: str) -> str:
    """Return the resource identifier of the endpoint at ``path``: ``OAUTH_RESOURCE``, else
    the endpoint's absolute URL."""
    return absolute(request, mcp_settings.OAUTH_RESOURCE or path)


def metadata_url(request: HttpRequest, path: str) -> str:
    """Return the URL of the RFC 9728 document of the endpoint at ``path`` (its path form)."""
    return request.build_absolute_uri(WELL_KNOWN + path)


def document(request: HttpRequest, path: str, scopes: list[str]) -> dict[str, Any]:
    """Return the RFC 9728 protected-resource metadata of the endpoint at ``path``."""
    data: dict[str, Any] = {
        "resource": resource_identifier(request, path),
        "authorization_servers": authorization_servers(request),
        "bearer_methods_supported": ["header"],
    }
    if scopes:
        data["scopes_supported"] = list(scopes)
    name = mcp_settings.SERVER_TITLE or mcp_settings.SERVER_NAME
    if name:
        data["resource_name"] = str(name)
    return data


def endpoint_path(request: Any) -> str | None:
    """Return the path of the endpoint ``request`` is for, or None for any other request.

    The inner request of a tool call carries it in its tool-call context; DRF's request of
    the /mcp request names the endpoint in its parser context, as a DRF view's names the
    view (``MCPView.initialize_request``).
    """
    http = http_request(request)
    context = get_context(http)
    if context is not None:
        return context.endpoint_path
    view = (getattr(request, "parser_context", None) or {}).get("view")
    if callable(getattr(view, "get_resource_metadata_url", None)):
        return str(http.path)
    return None


def endpoint_resource(request: Any) -> str | None:
    """Return the resource identifier of the endpoint ``request`` is for, or None.

    A tool call's inner request is a request to the endpoint's resource: a token bound to
    the endpoint (RFC 8707) is valid there, wherever the view is mounted.
    """
    path = endpoint_path(request)
    return resource_identifier(http_request(request), path) if path is not None else None
