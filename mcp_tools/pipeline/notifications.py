"""Progress and log notifications sent from inside a view to a listening client."""

from __future__ import annotations

from django.http import HttpRequest

from ..core.context import get_context
from ..protocol.versions import LOG_LEVELS


def report_progress(
    request: HttpRequest, progress: float, total: float | None = None, message: str | None = None
) -> None:
    """Send ``notifications/progress`` for this tool call; a no-op when nobody listens.

    Raises ``mcp_tools.ClientDisconnected`` once the client has gone away.
    """
    context = get_context(request)
    if context is None or context.notifier is None:
        return
    context.notifier.progress(progress, total, message)


def log_message(request: HttpRequest, level: str, data: object) -> None:
    """Send ``notifications/message`` at ``level`` for this tool call; a no-op when nobody listens.

    Raises ``mcp_tools.ClientDisconnected`` once the client has gone away.
    """
    if level not in LOG_LEVELS:
        raise ValueError(f"log_message: level must be one of {', '.join(LOG_LEVELS)}")
    context = get_context(request)
    if context is None or context.notifier is None:
        return
    context.notifier.log(level, data)
