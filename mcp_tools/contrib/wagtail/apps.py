from django.apps import AppConfig


class WagtailConfig(AppConfig):
    """Teaches the schema adapters Wagtail API v2's parameters when the project starts."""

    name = "mcp_tools.contrib.wagtail"
    label = "mcp_tools_wagtail"
    verbose_name = "MCP tools: Wagtail API v2"

    def ready(self) -> None:
        from . import adapters  # noqa: F401  (registers them)
