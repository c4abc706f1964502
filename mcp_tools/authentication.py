"""Authentication classes for the MCP endpoint (``AUTHENTICATION_CLASSES``, docs/security.md).

``BearerTokenAuthentication``: DRF's token keys, sent as ``Authorization: Bearer <key>``. The
caller the endpoint authenticates, and its refusals, live in ``mcp_tools.auth``.
"""

from .auth.bearer import BearerTokenAuthentication

__all__ = ["BearerTokenAuthentication"]
