"""System checks of the OAuth resource server, documented in docs/checks.md."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core import checks

MESSAGES = {
    "mcp_tools.E043": (
        "mcp_tools.contrib.oauth is installed, but 'oauth2_provider' is not in INSTALLED_APPS: "
        "its tokens can't be read.",
        "Add 'oauth2_provider' to INSTALLED_APPS and migrate (pip install "
        "'django-mcp-tools[oauth]').",
    ),
    "mcp_tools.W043": (
        "The MCP endpoint /{route} authenticates OAuth tokens, but "
        "MCP_TOOLS['OAUTH_AUTHORIZATION_SERVERS'] is empty: no client can discover where to "
        "get one (no RFC 9728 metadata, no resource_metadata in the 401 challenge).",
        "Name the issuer of your authorization server, e.g. "
        "MCP_TOOLS['OAUTH_AUTHORIZATION_SERVERS'] = ['https://example.com'] (or ['/'] when "
        "django-oauth-toolkit runs in this project with its metadata at the root).",
    ),
}


def _message(level: Any, check_id: str, **params: Any) -> checks.CheckMessage:
    message, hint = MESSAGES[check_id]
    return level(message.format(**params), hint=hint, id=check_id)


@checks.register("mcp_tools")
def check_oauth(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The resource server needs django-oauth-toolkit's app and an authorization server."""
    from mcp_tools.auth.resource_metadata import is_configured
    from mcp_tools.endpoint.mounts import mounted_endpoints

    if not apps.is_installed("oauth2_provider"):
        return [_message(checks.Error, "mcp_tools.E043")]
    if is_configured():
        return []
    from .authentication import OAuth2ResourceAuthentication

    return [
        _message(checks.Warning, "mcp_tools.W043", route=route)
        for route, endpoint in mounted_endpoints()
        if any(isinstance(a, OAuth2ResourceAuthentication) for a in endpoint.get_authenticators())
    ]
