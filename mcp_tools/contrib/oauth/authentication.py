"""django-oauth-toolkit's token authentication, bound to the MCP endpoint's resource."""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from oauth2_provider.contrib.rest_framework.permissions import (
    IsAuthenticatedOrTokenHasScope,
    TokenHasScope,
    TokenMatchesOASRequirements,
)
from oauth2_provider.oauth2_backends import get_oauthlib_core
from rest_framework.permissions import AND, OR
from rest_framework.request import Request

from mcp_tools.auth.resource_metadata import endpoint_path, resource_identifier

__all__ = ["OAuth2ResourceAuthentication"]

UNBOUND = "The access token names no resource (RFC 8707): it was not issued for this server."
UNNAMED = "This server does not know its own resource identifier: no token can be checked."


class OAuth2ResourceAuthentication(OAuth2Authentication):
    """Authenticate DOT access tokens, checked for the MCP endpoint's resource (RFC 8707).

    On the /mcp request and on the inner request of each of its tool calls, a token is valid
    only when its resource indicators (DOT's ``AccessToken.resource``, from the ``resource``
    parameter of the authorization and token requests, or an introspection's ``aud``) cover
    the endpoint's resource identifier: a token minted for another resource is refused, and
    so (``require_audience``) is a token that names none. Elsewhere (a direct call of an API
    view) it is DOT's own ``OAuth2Authentication``: the token's resource must cover the URL.

    Expired, revoked and unknown tokens are refused as DOT refuses them; an external
    authorization server's tokens are read by DOT's introspection settings
    (``RESOURCE_SERVER_INTROSPECTION_URL``). ``insufficient_scope()`` tells the endpoint which
    scopes a view's DOT permission classes need, for the 403 of a step-up (docs/oauth.md).
    """

    #: Refuse tokens without any resource indicator on MCP requests (RFC 8707, the MCP
    #: authorization spec's "issued specifically for them as the intended audience").
    require_audience = True

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        path = endpoint_path(request)
        if path is None:
            return super().authenticate(request)
        resource = resource_identifier(path)
        if resource is None:  # no PUBLIC_URL or OAUTH_RESOURCE: check mcp_tools.E044
            request.oauth2_error = {"error": "invalid_token", "error_description": UNNAMED}
            return None
        core = get_oauthlib_core()
        # The endpoint's resource, not the URL of the view a tool call runs, is what the
        # token must be for: DOT compares the token's resource indicators with this URI.
        valid, oauth_request = core.server.verify_request(
            resource, request.method, "", core.extract_headers(request), scopes=[]
        )
        if not valid:
            request.oauth2_error = getattr(oauth_request, "oauth2_error", {})
            return None
        token = oauth_request.access_token
        if self.require_audience and not token.resource:
            request.oauth2_error = {"error": "invalid_token", "error_description": UNBOUND}
            return None
        return oauth_request.user, token

    # -- scopes ----------------------------------------------------------------------------

    def required_scopes(self, request: Request, view: Any) -> set[str]:
        """Return the scopes ``view``'s DOT permission classes ask of ``request``'s token.

        Read as the classes read them: ``TokenHasScope`` and its subclasses through their
        ``get_scopes()`` (``required_scopes``, plus the read or write scope of
        ``TokenHasReadWriteScope``), ``TokenMatchesOASRequirements`` through the first
        alternative for the method; DRF's ``&`` and ``|`` compositions are looked into.
        """
        scopes: set[str] = set()
        pending: list[Any] = list(view.get_permissions())
        while pending:
            permission = pending.pop()
            if isinstance(permission, (AND, OR)):
                composed: Any = permission  # DRF's stubs do not name the operands
                pending += [composed.op1, composed.op2]
            elif isinstance(permission, (TokenHasScope, IsAuthenticatedOrTokenHasScope)):
                reader = permission if isinstance(permission, TokenHasScope) else TokenHasScope()
                try:
                    scopes.update(reader.get_scopes(request, view))
                except ImproperlyConfigured:
                    continue  # no required_scopes: the class refuses; nothing to step up to
            elif isinstance(permission, TokenMatchesOASRequirements):
                try:
                    alternatives = permission.get_required_alternate_scopes(request, view)
                except ImproperlyConfigured:
                    continue
                choices = alternatives.get((request.method or "").upper()) or []
                if choices:
                    scopes.update(choices[0])
        return scopes

    def insufficient_scope(self, request: Request, view: Any) -> list[str] | None:
        """Return the scopes ``view`` needs when they are all the token lacks, else None.

        The permission classes are asked again with the token granted those scopes (a copy
        that can't be written: its ``save()`` and ``delete()`` do nothing, so a permission
        class that saves the token it reads never stores the widened scope): only when they
        then admit the request is a step-up of any use.
        """
        token: Any = request.auth
        if not isinstance(getattr(token, "scope", None), str):
            return None
        required = self.required_scopes(request, view)
        if not required or token.allow_scopes(required):
            return None
        granted = copy.copy(token)
        granted.save = granted.delete = _unwritten  # a probe: never stored
        granted.scope = " ".join(sorted(set(token.scope.split()) | required))
        stepped: Any = copy.copy(request)
        stepped._auth = granted
        if all(permission.has_permission(stepped, view) for permission in view.get_permissions()):
            return sorted(required)
        return None


def _unwritten(*args: Any, **kwargs: Any) -> None:
    """What the step-up probe's token does when asked to save or delete itself: nothing."""
