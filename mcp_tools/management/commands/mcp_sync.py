"""Sync the admin's ``ExposedTool`` rows with the tools the code registers."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from mcp_tools.sync import sync_tools


class Command(BaseCommand):
    help = (
        "Create a row for each registered tool and flag the rows of tools the code no longer "
        "registers (migrate does this too)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        result = sync_tools()
        for label, names in [
            ("New", result.created),
            ("No longer registered", result.unregistered),
            ("Registered again", result.registered_again),
        ]:
            if names:
                self.stdout.write(f"{label}: {', '.join(names)}")
        if not (result.created or result.unregistered or result.registered_again):
            self.stdout.write("The exposed tools are in sync.")
