"""Keep the ``ExposedTool`` rows in step with the registries, and publish admin changes.

``sync_tools`` runs after every ``migrate``, with ``manage.py mcp_sync`` and on the admin's
list of tools, for every registry the URLconf serves (``endpoint.mounts.served_registries``): a row
for each registered tool (new tools enabled as ``NEW_TOOLS_ENABLED`` says: by default, as
the code declares them; a row that exists keeps its ``enabled``), and a tool no
registry registers any more keeps its row, flagged ``registered=False``, so its rules
survive a deploy that removes it for a while. A row is a tool name's: a name two
registries use has one row, whose rules hold for both (docs/admin.md). Every change to
the rows publishes a new version of the admin state (``catalog.publish``) once the
transaction commits.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import router, transaction
from django.utils import timezone

from ..conf import mcp_settings
from ..tools.registry import ToolRegistry
from ..tools.registry import registry as default_registry
from ..tools.tool import Tool
from . import admin_state as catalog

if TYPE_CHECKING:
    from django.contrib.auth.models import Group
    from django.db.models import Model

logger = logging.getLogger("mcp_tools")


@dataclass(frozen=True)
class SyncResult:
    created: list[str]
    unregistered: list[str]
    registered_again: list[str]
    #: Tools whose admin row was carried from the name an earlier version gave them.
    renamed: list[str] = field(default_factory=list)


def sync_tools(*registries: ToolRegistry, urlconf: str | None = None) -> SyncResult:
    """Create a row for each tool of ``registries`` (default: the default registry) and flag
    the rows of tools none of them registers.

    Raises ``ImproperlyConfigured`` (and changes nothing) when a registry can't build its
    tools: a row flagged on a half-read registry could be deleted, and its rules lost.
    """
    from ..models import ExposedTool

    tools = [
        tool for registry in registries or (default_registry,) for tool in registry.tools(urlconf)
    ]
    names = {tool.name for tool in tools}
    using = router.db_for_write(ExposedTool)  # where a router keeps this app's rows
    with transaction.atomic(using=using):
        rows = {row.name: row for row in ExposedTool.objects.select_for_update()}
        renamed = _carry_renamed(tools, rows, names)
        created = sorted(names - set(rows))
        enabled = mcp_settings.NEW_TOOLS_ENABLED is True  # anything else (E091): disabled
        ExposedTool.objects.bulk_create(
            [ExposedTool(name=name, enabled=enabled) for name in created]
        )
        gone = sorted(name for name, row in rows.items() if row.registered and name not in names)
        back = sorted(name for name, row in rows.items() if not row.registered and name in names)
        if gone:
            ExposedTool.objects.filter(name__in=gone).update(registered=False)
        if back:
            ExposedTool.objects.filter(name__in=back).update(registered=True)
        if created or gone or back or renamed:
            transaction.on_commit(catalog.publish, using=using)
    return SyncResult(created, gone, back, renamed)


def _carry_renamed(tools: list[Tool], rows: dict[str, Any], names: set[str]) -> list[str]:
    """Rename the row of each tool a new naming rule renamed (``Tool.former_name``), when
    no other tool still has the old name and the new name has no row yet: the tool keeps
    its admin state (enabled, groups, wording). Return the new names; ``rows`` follows."""
    renamed = []
    for tool in tools:
        former = tool.former_name
        if former is None or former not in rows or former in names or tool.name in rows:
            continue
        row = rows[former]
        row.name = tool.name
        row.save(update_fields=["name"])
        rows[tool.name] = rows.pop(former)
        logger.info("Tool %s renamed %s: its admin row follows", former, tool.name)
        renamed.append(tool.name)
    return renamed


def publish_after_change(sender: object, raw: bool = False, **kwargs: object) -> None:
    """``post_save``/``post_delete`` receiver: publish the new admin state after the commit."""
    if not raw:  # loaddata
        transaction.on_commit(catalog.publish)


def toolset_changed(sender: object, action: str, **kwargs: Any) -> None:
    """``m2m_changed`` receiver: a toolset's tools changed (from either side): a new version."""
    if action.startswith("post_"):
        transaction.on_commit(catalog.publish)


def groups_changed(
    sender: object, instance: Model, action: str, reverse: bool, **kwargs: Any
) -> None:
    """``m2m_changed`` receiver: allowed groups changed (from either side): a new version."""
    from ..models import ExposedTool

    if not action.startswith("post_"):
        return
    tools = ExposedTool.objects.filter(pk__in=kwargs.get("pk_set") or ()) if reverse else None
    (tools if tools is not None else ExposedTool.objects.filter(pk=instance.pk)).update(
        changed_at=timezone.now()
    )
    transaction.on_commit(catalog.publish)


def group_deleted(sender: object, instance: Group, **kwargs: object) -> None:
    """``pre_delete`` receiver of ``auth.Group``: no tool opens up when its only group goes.

    A tool restricted to the deleted group alone would be left with no allowed groups,
    which means "everyone": it is disabled instead, for an admin to decide.
    """
    from ..models import ExposedTool

    tools = ExposedTool.objects.filter(allowed_groups=instance).prefetch_related("allowed_groups")
    alone = [tool for tool in tools if len(tool.allowed_groups.all()) == 1]
    if alone:
        names = ", ".join(tool.name for tool in alone)
        logger.warning(
            "Group %s deleted: tools restricted to it alone disabled: %s", instance, names
        )
    ExposedTool.objects.filter(pk__in=[tool.pk for tool in alone]).update(enabled=False)
    ExposedTool.objects.filter(allowed_groups=instance).update(changed_at=timezone.now())
    transaction.on_commit(catalog.publish)
