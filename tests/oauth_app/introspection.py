"""The confidential client a resource server introspects tokens as (RFC 7662)."""

#: (client_id, client_secret), created by the oauth_fixture command.
INTROSPECTION_CLIENT = ("resource-server", "resource-server-secret")
