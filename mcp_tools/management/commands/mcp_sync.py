"""Sync the admin's ``ExposedTool`` rows with the tools the code registers."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from mcp_tools.catalog.sync import sync_tools
from mcp_tools.endpoint.mounts import served_registries


class Command(BaseCommand):
    help = (
        "Create a row for each tool of every registry the URLconf serves, and flag the rows "
        "of tools no registry registers any more (migrate does this too)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = sync_tools(*served_registries())
        except ImproperlyConfigured as exc:
            raise CommandError(f"Nothing synced: {exc}") from None
        for label, names in [
            ("New", result.created),
            ("No longer registered", result.unregistered),
            ("Registered again", result.registered_again),
        ]:
            if names:
                self.stdout.write(f"{label}: {', '.join(names)}")
        if not (result.created or result.unregistered or result.registered_again):
            self.stdout.write("The exposed tools are in sync.")
