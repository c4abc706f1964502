"""Keep the ``ExposedResource`` rows in step with the resource registries, as
``catalog.sync`` keeps the tools' (after ``migrate``, ``mcp_sync``, the admin's list)."""

from __future__ import annotations

from django.db import connections, router

from ..catalog.sync import SyncResult, sync_rows
from .registry import ResourceRegistry
from .registry import registry as default_registry

__all__ = ["has_table", "sync_resources"]


def sync_resources(*registries: ResourceRegistry, urlconf: str | None = None) -> SyncResult:
    """Create a row for each resource of ``registries`` (default: the default registry) and
    flag the rows of resources none of them registers. Raises ``ImproperlyConfigured``
    (and changes nothing) when a registry can't build its resources."""
    from ..models import ExposedResource

    resources = [
        each
        for registry in registries or (default_registry,)
        for each in registry.resources(urlconf)
    ]
    fields = {each.name: {"uri": each.address[:500]} for each in resources}
    return sync_rows(ExposedResource, set(fields), fields=fields)


def has_table(using: str) -> bool:
    """Whether database ``using`` has the resources' table: not after ``migrate mcp_tools
    0015`` (a roll-back), whose ``post_migrate`` must not sync them."""
    from ..models import ExposedResource

    if not router.allow_migrate_model(using, ExposedResource):
        return False
    with connections[using].cursor() as cursor:
        tables = connections[using].introspection.table_names(cursor)
    return ExposedResource._meta.db_table in tables
