"""The endpoints as OAuth 2.0 protected resources: identifiers and RFC 9728 metadata.

OAuth metadata is configured when ``MCP_TOOLS["OAUTH_AUTHORIZATION_SERVERS"]`` names at
least one issuer. Then every endpoint (each ``MCPView`` in the URLconf) is a protected
resource whose identifier is its public URL (or ``OAUTH_RESOURCE``), described at the
RFC 9728 path form ``/.well-known/oauth-protected-resource/<endpoint path>``, which the 401
challenge names in ``resource_metadata``. Nothing here needs an OAuth library: the tokens
themselves are checked by the endpoint's authentication classes (``mcp_tools.contrib.oauth``
for django-oauth-toolkit).

The public origin comes from settings, ``OAUTH_RESOURCE`` or ``PUBLIC_URL``, never from the
request: ``Host`` and ``X-Forwarded-Host`` are the client's to choose, and a token's audience
must not be (docs/oauth.md). So does the path's prefix: Django's ``FORCE_SCRIPT_NAME``, never
the request's ``SCRIPT_NAME``, which some servers take from a header. Paths here are the
endpoint's ``PATH_INFO``. Without either setting no token is accepted as the endpoint's
and no document is served; check ``mcp_tools.E044`` says so at start-up.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings as django_settings
from django.http import HttpRequest

from ..conf import mcp_settings
from ..core.context import get_context, http_request

WELL_KNOWN = "/.well-known/oauth-protected-resource"


def is_configured() -> bool:
    """Return whether OAuth metadata is configured (an authorization server is named)."""
    return bool(mcp_settings.OAUTH_AUTHORIZATION_SERVERS)


def public_origin() -> str | None:
    """Return the site's public origin (``https://example.com``) from settings, or None.

    ``PUBLIC_URL`` (the endpoint's public URL) names it; else ``OAUTH_RESOURCE``. Only the
    scheme and the authority are kept: an endpoint's path is the path it is served at.
    """
    for url in (mcp_settings.PUBLIC_URL, mcp_settings.OAUTH_RESOURCE):
        parts = urlsplit(str(url or ""))
        if parts.scheme in ("http", "https") and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    return None


def absolute(location: str) -> str | None:
    """Return ``location`` as an absolute URL: a path is joined to the public origin.

    No trailing slash is added or kept for the origin itself (``/`` → ``https://host``): an
    issuer and a resource identifier are compared as strings. None: a path, and no origin.
    """
    if not location.startswith("/"):
        return location
    origin = public_origin()
    if origin is None:
        return None
    return origin if location == "/" else origin + location


def authorization_servers() -> list[str]:
    """Return the issuers of ``OAUTH_AUTHORIZATION_SERVERS``, made absolute."""
    issuers = (absolute(issuer) for issuer in mcp_settings.OAUTH_AUTHORIZATION_SERVERS)
    return [issuer for issuer in issuers if issuer is not None]


def public_path(path: str) -> str:
    """Return the public path of the endpoint at ``path`` (its ``PATH_INFO``): behind
    ``FORCE_SCRIPT_NAME`` when the site is mounted under a prefix."""
    return (django_settings.FORCE_SCRIPT_NAME or "").rstrip("/") + path


def resource_identifier(path: str) -> str | None:
    """Return the resource identifier of the endpoint at ``path``: ``OAUTH_RESOURCE``, else
    the endpoint's public URL; None when settings name neither."""
    return absolute(mcp_settings.OAUTH_RESOURCE or public_path(path))


def metadata_url(path: str) -> str | None:
    """Return the URL of the RFC 9728 document of the endpoint at ``path`` (its path form)."""
    return absolute(WELL_KNOWN + public_path(path))


def document(path: str, scopes: list[str]) -> dict[str, Any] | None:
    """Return the RFC 9728 protected-resource metadata of the endpoint at ``path``, or None
    when settings name no public origin."""
    resource = resource_identifier(path)
    if resource is None:
        return None
    data: dict[str, Any] = {
        "resource": resource,
        "authorization_servers": authorization_servers(),
        "bearer_methods_supported": ["header"],
    }
    if scopes:
        data["scopes_supported"] = list(scopes)
    name = mcp_settings.SERVER_TITLE or mcp_settings.SERVER_NAME
    if name:
        data["resource_name"] = str(name)
    return data


def endpoint_path(request: HttpRequest) -> str | None:
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
        return str(http.path_info)
    return None
