"""The MCP endpoint as an OAuth 2.1 resource server for django-oauth-toolkit's tokens.

Add ``"mcp_tools.contrib.oauth"`` (and ``"oauth2_provider"``) to ``INSTALLED_APPS`` and
``mcp_tools.contrib.oauth.authentication.OAuth2ResourceAuthentication`` to the endpoint's
authentication classes; install with ``pip install "django-mcp-tools[oauth]"``. See
docs/oauth.md.
"""
