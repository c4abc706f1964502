"""Settings of the OAuth test server: DOT as authorization server, the endpoints as its
resource server (tests/oauth_app/urls.py). Served by tests/conformance_app/server.py."""

from tests.settings import *  # noqa: F403

ROOT_URLCONF = "tests.oauth_app.urls"

MCP_TOOLS = {
    **MCP_TOOLS,  # noqa: F405
    # This site is the authorization server: its origin is DOT's issuer.
    "OAUTH_AUTHORIZATION_SERVERS": ["/"],
    "OAUTH_SCOPES": ["notes:read"],
}
