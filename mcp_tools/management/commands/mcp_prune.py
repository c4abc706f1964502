"""Delete old rows of the call log, in batches; fail the tasks whose worker died, and delete
the tasks past their TTL (docs/tasks.md)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from mcp_tools import tasks
from mcp_tools.models import ToolCall

BATCH = 1000


class Command(BaseCommand):
    help = (
        "Delete the logged tool calls older than --days days (default 30), 1,000 at a time. "
        "Asks first when that is every row (--days 0, or no newer row); --noinput for scripts. "
        "Fails the MCP tasks whose worker died, and deletes those past their TTL."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days", type=int, default=30, help="Keep this many days (default 30; 0: none)."
        )
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_false",
            dest="interactive",
            help="Never ask, also before deleting every row (for scripts).",
        )

    def handle(self, *args: Any, days: int, interactive: bool = True, **options: Any) -> None:
        if days < 0:
            raise CommandError("--days must be 0 or more.")
        self.prune_tasks()
        try:
            cutoff = timezone.now() - timedelta(days=days)
        except OverflowError:  # before year 1: no row is that old
            self.stdout.write(f"Deleted 0 logged calls older than {days} days.")
            return
        old = ToolCall.objects.filter(started_at__lt=cutoff)
        if interactive and not ToolCall.objects.filter(started_at__gte=cutoff).exists():
            count = old.count()
            if count and not self.confirmed(count):
                self.stdout.write("Nothing deleted.")
                return
        deleted = 0
        while True:
            # Batches keep each delete (and its lock) short on a large table.
            batch = list(old.values_list("pk", flat=True)[:BATCH])
            if not batch:
                break
            deleted += ToolCall.objects.filter(pk__in=batch).delete()[0]
        noun = "logged call" if deleted == 1 else "logged calls"
        if days == 0:
            self.stdout.write(f"Deleted {deleted} {noun}: the call log is empty.")
        else:
            self.stdout.write(f"Deleted {deleted} {noun} older than {days} days.")

    def prune_tasks(self) -> None:
        """Fail the tasks whose lease ran out (their worker died), then delete the tasks
        past their TTL; say so when there were any."""
        reaped = tasks.reap_expired_leases()
        if reaped:
            noun = "task whose worker" if reaped == 1 else "tasks whose workers"
            self.stdout.write(f"Failed (or ran again, if idempotent) {reaped} {noun} stopped.")
        deleted = tasks.prune()
        if deleted:
            noun = "task past its TTL" if deleted == 1 else "tasks past their TTL"
            self.stdout.write(f"Deleted {deleted} {noun}.")

    def confirmed(self, count: int) -> bool:
        """Ask before deleting the whole log; only "yes" goes on."""
        noun = "logged call" if count == 1 else "logged calls"
        question = (
            f"This deletes every row of the call log ({count} {noun}).\n"
            "Type 'yes' to go on, or 'no' to cancel: "
        )
        try:
            return input(question).strip().lower() == "yes"
        except EOFError:  # no terminal to ask on: as Django's commands do, refuse
            raise CommandError(
                "The call log would be emptied and nobody could be asked: pass --noinput."
            ) from None
