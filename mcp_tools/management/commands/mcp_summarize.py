"""Build the call log's daily summary, which the admin's overview reads, from its rows."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import router

from mcp_tools.calllog import summary
from mcp_tools.models import ToolCall


class Command(BaseCommand):
    help = (
        "Make the daily summary of the call log (what the admin's overview reads) from the "
        "log's rows, day by day, in place of what it held for those days: every day the log "
        "holds, or the last --days days whatever the log holds of them (a day it no longer "
        "holds: its summary emptied). Run it once after upgrading; safe while calls are "
        "being logged."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="Only the last N days, today included (default: every day the log holds).",
        )

    def handle(self, *args: Any, days: int | None = None, **options: Any) -> None:
        if days is not None and days < 1:
            raise CommandError("--days must be 1 or more.")
        using = router.db_for_write(ToolCall)
        last = summary.today()
        if days is not None:  # those days, whatever the log holds of them (none: emptied)
            first = last - timedelta(days=days - 1)
        else:
            span = summary.logged_days(using)
            if span is None:
                self.stdout.write("The call log is empty: nothing to summarize.")
                return
            first, last = span[0], max(span[1], last)
        counted = summary.rebuild(first, last, using)
        count = (last - first).days + 1
        self.stdout.write(
            f"Summarized {counted} logged {'call' if counted == 1 else 'calls'} "
            f"of {count} {'day' if count == 1 else 'days'} ({_shown(first)} to {_shown(last)})."
        )


def _shown(day: date) -> str:
    return day.isoformat()
