"""The Celery task a worker runs for an MCP task: its id only, the rest is the task's row
(``mcp_tools.tasks.runs``).

A ``shared_task``, so it belongs to whichever Celery app the project made, and is found by
that app's ``autodiscover_tasks()`` once ``mcp_tools.contrib.celery`` is installed. Its name
is fixed, not its module's, for the project's ``task_routes``.
"""

from __future__ import annotations

from celery import shared_task

#: The task's name, for ``CELERY_TASK_ROUTES`` (e.g. ``{NAME: {"queue": "mcp"}}``).
NAME = "mcp_tools.run_tool_task"


# ignore_result: the task's row is its result; nobody reads Celery's.
# acks_late=False: the message is acknowledged as the worker takes it, so a worker that dies
# mid-run never has the broker deliver it again. Whether a lost run runs again is the
# lease's decision (only a tool that is idempotent does, docs/tasks.md#in-the-worker).
@shared_task(name=NAME, ignore_result=True, acks_late=False)
def run_tool_task(task_id: str) -> None:
    """Run the MCP task ``task_id`` (enqueued by its ``tools/call``)."""
    from mcp_tools.tasks.runs import run

    run(task_id)
