"""The job a worker of Django's tasks framework runs for an MCP task: its id only, the rest
is the task's row (``mcp_tools.tasks.runs``)."""

from __future__ import annotations

__all__ = ["run_tool_task"]

try:
    from django.tasks import task
except ImportError:  # Django 5.2: the django-tasks backport
    from django_tasks import task  # type: ignore[no-redef]


@task()
def run_tool_task(task_id: str) -> None:
    """Run the MCP task ``task_id`` (a worker's job, enqueued by its ``tools/call``)."""
    from .tasks.runs import run

    run(task_id)
