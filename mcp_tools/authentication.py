"""Authentication classes for the MCP endpoint (``AUTHENTICATION_CLASSES``, docs/security.md).

``BearerTokenAuthentication``: DRF's token keys, sent as ``Authorization: Bearer <key>``.
DRF imports this module while it reads its settings, from whichever module reads them
first, so it imports nothing of mcp_tools: the caller the endpoint authenticates, and its
refusals, live in ``mcp_tools.auth``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

__all__ = ["BearerTokenAuthentication"]

#: What DRF's ``TokenAuthentication`` says of a key it does not know (its own catalog's
#: message, so it compares equal in every language).
UNKNOWN_KEY = gettext_lazy("Invalid token.")


class BearerTokenAuthentication(TokenAuthentication):
    """Read DRF tokens sent as ``Authorization: Bearer <key>``, as many MCP clients send them.

    DRF's ``TokenAuthentication`` with the keyword ``Bearer``: the same ``authtoken`` keys,
    and its challenge is ``Bearer``. Listed after an OAuth class, it takes the keys that
    class does not know (docs/security.md); a key it does not know either is refused with
    the OAuth class's reason ("The access token has expired."), not DRF's "Invalid token.".
    """

    keyword = "Bearer"

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed as exc:
            explained = getattr(request, "oauth2_error", None) or {}
            reason = explained.get("error_description")
            if reason and str(exc.detail) == str(UNKNOWN_KEY):  # no DRF key either
                raise exceptions.AuthenticationFailed(reason) from None
            raise
