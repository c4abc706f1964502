"""Delete old rows of the call log, in batches, and the days of its summary that are older
than them and than the overview's longest window; fail the tasks of dead workers and delete
the tasks past their TTL (docs/tasks.md)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from mcp_tools.calllog import summary
from mcp_tools.calllog.overview import WINDOWS
from mcp_tools.models import ToolCall, ToolCallDay, ToolCallLatency, ToolTask
from mcp_tools.tasks import store as tasks

BATCH = 1000


class Command(BaseCommand):
    help = (
        "Delete the logged tool calls older than --days days (default 30), 1,000 at a time. "
        "Asks first when that is every row (--days 0, or no newer row); --noinput for scripts. "
        "The daily summary the overview reads keeps the days of its longest window (90). "
        "Also fails the MCP tasks whose worker stopped (their lease ran out) and deletes the "
        "tasks past their TTL."
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
        self.prune_calls(days, interactive)
        self.prune_tasks()

    def prune_tasks(self) -> None:
        """Fail (or run again) the tasks whose lease ran out, then delete those past their
        TTL; said only in a project that has tasks."""
        reaped = tasks.reap_expired_leases()
        deleted = tasks.prune()
        if not (deleted or any(reaped.values()) or ToolTask.objects.exists()):
            return
        failed, enqueued = reaped["failed"], reaped["enqueued"]
        said = f"Failed {failed} {plural(failed, 'task')} whose worker stopped"
        if enqueued:
            said += f", enqueued {enqueued} again (their tools are idempotent)"
        its = "its" if deleted == 1 else "their"
        said += f"; deleted {deleted} {plural(deleted, 'task')} past {its} TTL."
        self.stdout.write(said)

    def prune_calls(self, days: int, interactive: bool) -> None:
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
        self.prune_summary(cutoff)
        noun = "logged call" if deleted == 1 else "logged calls"
        if days == 0:
            self.stdout.write(f"Deleted {deleted} {noun}: the call log is empty.")
        else:
            self.stdout.write(f"Deleted {deleted} {noun} older than {days} days.")

    def prune_summary(self, cutoff: Any) -> None:
        """Delete the summary's days before both the cutoff's day and the overview's
        longest window: the overview's figures are of the calls made, not of the rows
        kept, so its 30- and 90-day windows stay whole when the log keeps fewer days
        (docs/admin.md#the-overview)."""
        kept = min(summary.day_of(cutoff), summary.today() - timedelta(days=max(WINDOWS) - 1))
        ToolCallDay.objects.filter(day__lt=kept).delete()
        ToolCallLatency.objects.filter(day__lt=kept).delete()

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


def plural(count: int, noun: str) -> str:
    return noun if count == 1 else f"{noun}s"
