"""The resources as admins configured them: ``ExposedResource`` rows over the code's.

A resource's tool (``ResourceRegistry.tools``) gets a ``Catalog`` of its own, whose rules
are the ``ExposedResource`` rows: visibility (enabled, groups, the view's permissions) and
the call plan are then the tools' own, not a second copy of them (docs/resources.md).
"""

from __future__ import annotations

from typing import Any

from ..catalog.admin_state import DEFAULT_RULE, AdminState, Catalog, Rule, catalogs
from .registry import RoutedResources

__all__ = ["load_resource_state", "resource_catalog"]


def load_resource_state(version: str) -> AdminState:
    """Read every ``ExposedResource`` row and its groups (two queries)."""
    from ..models import ExposedResource

    rows = list(
        ExposedResource.objects.values_list("pk", "name", "enabled", "title", "description")
    )
    groups: dict[int, set[int]] = {}
    if rows:
        through: Any = ExposedResource.allowed_groups.through
        for resource_id, group_id in through.objects.values_list("exposedresource_id", "group_id"):
            groups.setdefault(resource_id, set()).add(group_id)
    rules = {}
    for pk, name, enabled, title, description in rows:
        rule = Rule(
            enabled=enabled,
            group_ids=frozenset(groups.get(pk, ())),
            title=title,
            description=description,
        )
        if rule != DEFAULT_RULE:
            rules[name] = rule
    return AdminState(version, rules, frozenset(row[1] for row in rows))


resource_catalogs = catalogs.sharing(load_resource_state)


def resource_catalog(resources: RoutedResources) -> Catalog:
    """Return the catalog of ``resources``' tools for the admin state's current version."""
    return resource_catalogs.get(resources.routed)
