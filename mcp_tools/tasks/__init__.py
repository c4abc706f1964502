"""MCP tasks: the stored task, its JSON-RPC methods, its run in a worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "DjangoTasksExecutor",
    "TaskExecutor",
    "run",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "DjangoTasksExecutor": ".executors",
        "TaskExecutor": ".executors",
        "run": ".runs",
    },
)

if TYPE_CHECKING:
    from .executors import DjangoTasksExecutor, TaskExecutor
    from .runs import run
