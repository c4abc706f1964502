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
from collections.abc import Mapping, Sequence
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
    #: Rows whose code-given fields (a resource's URI) were brought up to date.
    updated: list[str] = field(default_factory=list)


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
    return sync_rows(ExposedTool, {tool.name for tool in tools}, tools)


def sync_rows(
    model: type[Any],
    names: set[str],
    tools: Sequence[Tool] = (),
    fields: Mapping[str, dict[str, Any]] | None = None,
) -> SyncResult:
    """Create a row of ``model`` (``ExposedTool``, ``ExposedResource``) for each of
    ``names``, flag the rows of names no longer registered, and flag again those back;
    ``fields``: the values, by name, that each row is made with besides, and kept at (a
    resource's URI follows its code)."""
    using = router.db_for_write(model)  # where a router keeps this app's rows
    with transaction.atomic(using=using):
        rows = {row.name: row for row in model.objects.select_for_update()}
        renamed = _carry_renamed(list(tools), rows, names)
        created = sorted(names - set(rows))
        enabled = mcp_settings.NEW_TOOLS_ENABLED is True  # anything else (E091): disabled
        model.objects.bulk_create(
            [model(name=name, enabled=enabled, **(fields or {}).get(name, {})) for name in created]
        )
        gone = sorted(name for name, row in rows.items() if row.registered and name not in names)
        back = sorted(name for name, row in rows.items() if not row.registered and name in names)
        stale = [
            row
            for name, row in rows.items()
            if name in names
            and any(
                getattr(row, key) != value for key, value in (fields or {}).get(name, {}).items()
            )
        ]
        for row in stale:
            model.objects.filter(pk=row.pk).update(**(fields or {})[row.name])
        updated = sorted(row.name for row in stale)
        if gone:
            model.objects.filter(name__in=gone).update(registered=False)
        if back:
            model.objects.filter(name__in=back).update(registered=True)
        if created or gone or back or renamed:
            transaction.on_commit(catalog.publish, using=using)
    return SyncResult(created, gone, back, renamed, updated)


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


def restricted_models() -> tuple[type[Any], ...]:
    """The models whose rows admins restrict to groups: tools, resources and prompts."""
    from ..models import ExposedResource, ExposedTool, Prompt

    return (ExposedTool, ExposedResource, Prompt)


def groups_changed(
    sender: object, instance: Model, action: str, reverse: bool, **kwargs: Any
) -> None:
    """``m2m_changed`` receiver: allowed groups changed (from either side): a new version."""
    if not action.startswith("post_"):
        return
    if reverse:  # group.mcp_tools.add(...): ``model`` is the rows' model
        kwargs["model"].objects.filter(pk__in=kwargs.get("pk_set") or ()).update(
            changed_at=timezone.now()
        )
    else:
        model: Any = type(instance)
        model.objects.filter(pk=instance.pk).update(changed_at=timezone.now())
    transaction.on_commit(catalog.publish)


def group_deleted(sender: object, instance: Group, **kwargs: object) -> None:
    """``pre_delete`` receiver of ``auth.Group``: no tool, resource or prompt opens up when
    its only group goes.

    One restricted to the deleted group alone would be left with no allowed groups, which
    means "everyone": it is disabled instead, for an admin to decide.
    """
    for model in restricted_models():
        rows = model.objects.filter(allowed_groups=instance).prefetch_related("allowed_groups")
        alone = [row for row in rows if len(row.allowed_groups.all()) == 1]
        if alone:
            names = ", ".join(row.name for row in alone)
            logger.warning(
                "Group %s deleted: %s restricted to it alone disabled: %s",
                instance,
                model._meta.verbose_name_plural,
                names,
            )
        model.objects.filter(pk__in=[row.pk for row in alone]).update(enabled=False)
        model.objects.filter(allowed_groups=instance).update(changed_at=timezone.now())
    transaction.on_commit(catalog.publish)
