"""A resource server whose authorization server is elsewhere: DOT introspects each token
there (RFC 7662), as docs/oauth.md sets up an external authorization server.

The authorization server is the OAuth test server (tests/oauth_app/settings.py), named by
``MCP_TESTS_AUTHORIZATION_SERVER``; this server issues no tokens of its own.
"""

import os

from tests.oauth_app.introspection import INTROSPECTION_CLIENT
from tests.oauth_app.settings import *  # noqa: F403

AUTHORIZATION_SERVER = os.environ.get("MCP_TESTS_AUTHORIZATION_SERVER", "http://127.0.0.1:1")

MCP_TOOLS = {**MCP_TOOLS, "OAUTH_AUTHORIZATION_SERVERS": [AUTHORIZATION_SERVER]}  # noqa: F405

OAUTH2_PROVIDER = {
    **OAUTH2_PROVIDER,  # noqa: F405
    "RESOURCE_SERVER_INTROSPECTION_URL": f"{AUTHORIZATION_SERVER}/introspect/",
    "RESOURCE_SERVER_INTROSPECTION_CREDENTIALS": INTROSPECTION_CLIENT,
    "RESOURCE_SERVER_TOKEN_CACHING_SECONDS": 60,
}
