"""Delete old rows of the call log, in batches."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from mcp_tools.models import ToolCall

BATCH = 1000


class Command(BaseCommand):
    help = "Delete the logged tool calls older than --days days (default 30), 1,000 at a time."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days", type=int, default=30, help="Keep this many days (default 30)."
        )

    def handle(self, *args: Any, days: int, **options: Any) -> None:
        if days < 0:
            raise CommandError("--days must be 0 or more.")
        cutoff = timezone.now() - timedelta(days=days)
        deleted = 0
        while True:
            # Batches keep each delete (and its lock) short on a large table.
            batch = list(
                ToolCall.objects.filter(started_at__lt=cutoff).values_list("pk", flat=True)[:BATCH]
            )
            if not batch:
                break
            deleted += ToolCall.objects.filter(pk__in=batch).delete()[0]
        self.stdout.write(f"Deleted {deleted} logged calls older than {days} days.")
