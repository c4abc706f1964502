from django.apps import AppConfig


class MCPToolsConfig(AppConfig):
    name = "mcp_tools"
    verbose_name = "MCP tools"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the system checks)
