"""Sync the admin's ``ExposedTool`` and ``ExposedResource`` rows with what the code registers."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from mcp_tools.catalog.sync import SyncResult, sync_tools
from mcp_tools.endpoint.mounts import served_registries, served_resource_registries
from mcp_tools.resources.sync import sync_resources


class Command(BaseCommand):
    help = (
        "Create a row for each tool and resource of every registry the URLconf serves, and "
        "flag the rows of those no registry registers any more (migrate does this too)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = sync_tools(*served_registries())
            resources = sync_resources(*served_resource_registries())
        except ImproperlyConfigured as exc:
            raise CommandError(f"Nothing synced: {exc}") from None
        self.report(result, "tools")
        self.report(resources, "resources")

    def report(self, result: SyncResult, kind: str) -> None:
        for label, names in [
            ("New", result.created),
            ("No longer registered", result.unregistered),
            ("Registered again", result.registered_again),
            ("Updated from the code", result.updated),
        ]:
            if names:
                self.stdout.write(
                    f"{label} ({kind}): {', '.join(names)}"
                    if kind != "tools"
                    else f"{label}: {', '.join(names)}"
                )
        if not (result.created or result.unregistered or result.registered_again or result.updated):
            self.stdout.write(f"The exposed {kind} are in sync.")
