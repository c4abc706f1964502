"""What runs a task's view (``TASK_EXECUTOR``): Django's tasks framework by default.

An executor has one method, ``enqueue(task_id)``: have a worker call
``mcp_tools.tasks.runs.run(task_id)`` once, soon. It is called inside the transaction that
writes the task's row, so that a job and its row are committed together (a database-backed
queue such as django-tasks-db's) unless ``immediate``: an executor that runs the job at once,
in the caller's thread (Django's ``ImmediateBackend``), is called after the row is committed,
and its call then answers inline (docs/tasks.md#executors).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from ..conf import mcp_settings

__all__ = ["DjangoTasksExecutor", "TaskExecutor"]


class TaskExecutor:
    """The seam: enqueue a task's run on a worker."""

    #: Whether ``enqueue`` runs the task before it returns, in the calling thread.
    immediate = False

    def enqueue(self, task_id: str) -> None:
        raise NotImplementedError


def tasks_framework() -> ModuleType:
    """Return the module of Django's tasks framework: ``django.tasks`` (Django 6), else the
    ``django_tasks`` backport (Django 5.2). Raises ``ImproperlyConfigured`` with neither."""
    try:
        import django.tasks as framework
    except ImportError:
        try:
            import django_tasks as framework  # type: ignore[no-redef]
        except ImportError:
            raise ImproperlyConfigured(
                "Tools declared with task= run on Django's tasks framework: use Django 6, "
                'or install the backport (pip install "django-mcp-tools[tasks]")'
            ) from None
    return framework


class DjangoTasksExecutor(TaskExecutor):
    """Enqueue ``mcp_tools.jobs.run_tool_task`` on the backend of Django's ``TASKS`` that
    ``TASK_BACKEND`` names (``"default"``; django-tasks-db's ``DatabaseBackend`` and its
    ``db_worker`` in production)."""

    def __init__(self) -> None:
        tasks_framework()  # refused with what to install, before the job module fails
        from ..jobs import run_tool_task

        self.task = run_tool_task

    @property
    def job(self) -> Any:
        """The job on ``TASK_BACKEND``'s backend: a site's other task users (Wagtail's search
        index, say) keep theirs apart (docs/tasks.md#executors)."""
        return self.task.using(backend=mcp_settings.TASK_BACKEND)

    @property
    def immediate(self) -> bool:  # type: ignore[override]
        backend = self.job.get_backend()
        return type(backend).__name__ == "ImmediateBackend"

    def enqueue(self, task_id: str) -> None:
        self.job.enqueue(task_id)
