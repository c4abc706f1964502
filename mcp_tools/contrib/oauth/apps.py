from django.apps import AppConfig


class OAuthConfig(AppConfig):
    name = "mcp_tools.contrib.oauth"
    label = "mcp_tools_oauth"
    verbose_name = "MCP tools: OAuth resource server"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the checks)
