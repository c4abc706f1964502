from django.apps import AppConfig


class CeleryConfig(AppConfig):
    """Installed so that Celery's ``autodiscover_tasks()`` finds this package's ``tasks``."""

    name = "mcp_tools.contrib.celery"
    label = "mcp_tools_celery"
    verbose_name = "MCP tools: Celery executor"
