"""Settings of the OAuth test server: DOT as authorization server, the endpoints as its
resource server (tests/oauth_app/urls.py). Served by tests/conformance_app/server.py."""

import os

from tests.settings import *  # noqa: F403

ROOT_URLCONF = "tests.oauth_app.urls"

# The set-up behind a proxy at its loosest: any Host, and X-Forwarded-Host believed. Neither
# may move the endpoint's audience (tests/interop/test_oauth_flow.py).
ALLOWED_HOSTS = ["*"]
USE_X_FORWARDED_HOST = True

MCP_TOOLS = {
    **MCP_TOOLS,  # noqa: F405
    # This site is the authorization server: its origin is DOT's issuer.
    "OAUTH_AUTHORIZATION_SERVERS": ["/"],
    "OAUTH_SCOPES": ["notes:read"],
    # The audience comes from settings, never from Host: the URL the server is started at.
    "PUBLIC_URL": os.environ.get("MCP_TESTS_PUBLIC_URL", "http://testserver/mcp"),
}
