import logging
import signal
import threading
from typing import Any

from django.apps import AppConfig
from django.core import checks as system_checks
from django.core.exceptions import ImproperlyConfigured
from django.db.models import signals
from django.utils.module_loading import autodiscover_modules
from django.utils.translation import gettext_lazy as _

logger = logging.getLogger("mcp_tools")


class MCPToolsConfig(AppConfig):
    name = "mcp_tools"
    verbose_name = _("MCP tools")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.models import Group

        from .calllog import writer as calllog
        from .catalog import sync
        from .models import ExposedResource, ExposedTool, Prompt, Toolset
        from .signals import CALL_LOG_UID, tool_called
        from .subscriptions.shutdown import end_listeners_on_exit

        # Each app's prompts declared in code, as admin.autodiscover() imports admin modules.
        autodiscover_modules("mcp_prompts")
        system_checks.register(run_checks, "mcp_tools")
        system_checks.register(run_deployment_checks, "mcp_tools", deploy=True)
        tool_called.connect(calllog.record, dispatch_uid=CALL_LOG_UID)
        tool_called.keeps = calllog.keeps
        if threading.current_thread() is threading.main_thread() and calllog.queue_configured():
            calllog.queue.stop_on(signal.SIGTERM)  # only in front of uvicorn's handler
        end_listeners_on_exit()  # only in front of a gunicorn worker's handler
        signals.post_migrate.connect(sync_after_migrate, sender=self)
        signals.post_save.connect(sync.publish_after_change, sender=ExposedTool)
        signals.post_delete.connect(sync.publish_after_change, sender=ExposedTool)
        signals.m2m_changed.connect(sync.groups_changed, sender=ExposedTool.allowed_groups.through)
        signals.post_save.connect(sync.publish_after_change, sender=ExposedResource)
        signals.post_delete.connect(sync.publish_after_change, sender=ExposedResource)
        signals.m2m_changed.connect(
            sync.groups_changed, sender=ExposedResource.allowed_groups.through
        )
        signals.pre_delete.connect(sync.group_deleted, sender=Group)
        # Prompts are read per request; their changes publish a version all the same, by
        # which listening clients hear that the prompts' list changed (docs/subscriptions.md).
        signals.post_save.connect(sync.publish_after_change, sender=Prompt)
        signals.post_delete.connect(sync.publish_after_change, sender=Prompt)
        signals.m2m_changed.connect(sync.groups_changed, sender=Prompt.allowed_groups.through)
        signals.post_save.connect(sync.publish_after_change, sender=Toolset)
        signals.post_delete.connect(sync.publish_after_change, sender=Toolset)
        signals.m2m_changed.connect(sync.toolset_changed, sender=Toolset.tools.through)


def run_checks(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    """The app's system checks (docs/checks.md): their module is imported when Django runs
    them (``check``, ``runserver``, ``migrate``, the tests), never by a worker that serves."""
    from . import checks

    return checks.run(checks.CHECKS, app_configs, **kwargs)


def run_deployment_checks(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    """The app's deployment checks (``check --deploy``), as ``run_checks``."""
    from . import checks

    return checks.run(checks.DEPLOY_CHECKS, app_configs, **kwargs)


def sync_after_migrate(sender: AppConfig, **kwargs: Any) -> None:
    """``post_migrate`` receiver: sync the rows of every registry the URLconf serves, once
    this app's tables exist."""
    from django.db import router

    from .catalog.sync import sync_tools
    from .endpoint.mounts import served_registries, served_resource_registries
    from .models import ExposedTool
    from .resources.sync import has_table, sync_resources

    using = kwargs.get("using", "default")
    if not router.allow_migrate_model(using, ExposedTool):
        return  # a database a router keeps this app's tables out of (migrated on their own)
    try:
        sync_tools(*served_registries())
        if has_table(using):  # not after a roll-back to before resources (0015)
            sync_resources(*served_resource_registries())
    except ImproperlyConfigured as exc:
        # A misconfigured tool is reported by the system checks; migrate still succeeds.
        logger.warning("mcp_sync after migrate skipped: %s", exc)
