"""``CeleryExecutor``: a task's run sent to Celery's broker once its row is committed.

``mcp_tools.tasks.store`` calls its executor inside the transaction that writes the task's row (or
sets it working again after ``tasks/update``). A message sent there could reach a worker
before the commit: the worker would find no task (or one still waiting for input), return
without running it, and the task would stay working, with no lease to run out, until its
TTL. So ``enqueue`` sends nothing itself: it hands the send to ``transaction.on_commit``,
which runs it once the outermost transaction commits (at once outside any), and never if it
rolls back.

When the message can't be sent (the broker is down past Celery's own publish retries,
``task_publish_retry_policy``), the task is failed there and then, with a -32603 and an error
reference in the log, instead of being left working with nothing to run it: the client reads
the error in its answer or at its next ``tasks/get``, and may call again (docs/tasks.md#celery).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from mcp_tools.conf import mcp_settings
from mcp_tools.core import errors
from mcp_tools.models import ToolTask
from mcp_tools.protocol.jsonrpc import INTERNAL_ERROR, JSONRPCError
from mcp_tools.tasks import store as tasks
from mcp_tools.tasks.executors import TaskExecutor
from mcp_tools.tasks.runs import error_object

__all__ = ["CeleryExecutor"]


class CeleryExecutor(TaskExecutor):
    """Send ``mcp_tools.contrib.celery.tasks.run_tool_task`` to the project's Celery app
    (its current app: the one a Django project's ``celery.py`` makes), routed as that app's
    ``task_routes`` say.

    Never ``immediate``: even in Celery's eager mode (``task_always_eager``, which runs the
    task in the caller's thread as it is sent), the send waits for the commit, so the run
    sees the row; the call is then answered inline, as with Django's ``ImmediateBackend``.
    """

    def __init__(self) -> None:
        if not apps.is_installed("mcp_tools.contrib.celery"):
            # Else the web process sends, and a worker, whose autodiscover_tasks() never
            # imported the task, drops each message as unregistered: tasks working forever.
            raise ImproperlyConfigured(
                "TASK_EXECUTOR is the Celery executor: add 'mcp_tools.contrib.celery' to "
                "INSTALLED_APPS, so that the Celery app's autodiscover_tasks() registers "
                "its task in the workers"
            )
        from .tasks import run_tool_task

        self.job = run_tool_task

    def enqueue(self, task_id: str) -> None:
        # robust=False (Django's default), on purpose: ``send`` handles every failure to
        # publish itself. What could still escape it is the database failing to record the
        # task as failed, and that should fail the request, not be logged and forgotten.
        transaction.on_commit(
            partial(send, self.job, task_id), using=ToolTask.objects.db, robust=False
        )


def send(job: Any, task_id: str) -> None:
    """Publish ``job`` for ``task_id``; fail the task if it can't be."""
    try:
        job.apply_async((task_id,))
    except Exception as exc:
        fail_unsent(task_id, exc)


def fail_unsent(task_id: str, exc: Exception) -> None:
    """Fail the task ``task_id``, whose message was never sent, if no worker took it."""
    reference = errors.report("Task %s could not be sent to Celery's broker", task_id, exc=exc)
    data: dict[str, Any] = {"errorRef": reference}
    if not mcp_settings.mask_errors:
        data["detail"] = f"{type(exc).__name__}: {exc}"
    error = JSONRPCError(INTERNAL_ERROR, "Internal error: the task could not be queued", data=data)
    stamp = tasks.now()
    ToolTask.objects.filter(pk=task_id, status=ToolTask.WORKING, leased_until__isnull=True).update(
        status=ToolTask.FAILED,
        error=error_object(error),
        status_message="The task could not be queued",
        updated_at=stamp,
        finished_at=stamp,
    )
