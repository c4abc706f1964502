"""The call log: a ``ToolCall`` row per tool call (``CALL_LOG``: off, errors or all).

A receiver of ``tool_called``. Calls that come through the endpoint are written after its
response has been sent (one INSERT for the request's calls: ``hold`` and ``write_after``),
so the log stays off the call's critical path; calls from elsewhere (the admin's "Try
it", ``mcp_call``) are written at once. A failure to write is logged and never fails a
call.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from django.http import HttpRequest, HttpResponseBase

from .conf import mcp_settings
from .protocol.jsonrpc import clip

logger = logging.getLogger("mcp_tools")

MODES = ("off", "errors", "all")
#: Argument values longer than this, encoded, are not kept (their names still are).
MAX_LOGGED_ARGUMENTS = 10_000
#: Argument names kept per call, and characters kept of each: every stored value is bounded
#: (a refused call's names are the client's, however many and long).
MAX_LOGGED_NAMES = 100
MAX_LOGGED_NAME_LENGTH = 64
#: Characters kept of what the model read of a failed or refused call.
MAX_LOGGED_MESSAGE = 1000
#: Where the endpoint keeps its request's rows until its response has left.
PENDING = "_mcp_tools_call_log"


def record(
    sender: Any,
    *,
    tool: str,
    user: Any,
    started_at: Any,
    duration_ms: float,
    status: int | None,
    is_error: bool,
    error_ref: str | None,
    arguments: dict[str, Any],
    protocol_version: str,
    client_name: str,
    request: HttpRequest,
    result_type: str = "complete",
    outcome: str | None = None,
    error_message: str = "",
    refusal: str | None = None,
    **kwargs: Any,
) -> None:
    """``tool_called`` receiver: log the call as ``CALL_LOG`` says, once it is complete."""
    if outcome is None:  # a sender that predates outcomes
        outcome = "error" if is_error else "ok"
    mode = mcp_settings.CALL_LOG
    if mode == "off" or (mode == "errors" and outcome == "ok") or result_type != "complete":
        return
    from .models import ToolCall

    row = ToolCall(
        tool_name=tool,
        user=user if getattr(user, "pk", None) is not None else None,
        started_at=started_at,
        duration_ms=round(duration_ms, 3),
        http_status=status,
        is_error=outcome != "ok",
        outcome=outcome,
        refusal=refusal or "",
        error_message=storable(clip(error_message, MAX_LOGGED_MESSAGE)),
        error_ref=error_ref or "",
        argument_names=_names(arguments),
        arguments=_values(arguments) if mcp_settings.CALL_LOG_ARGUMENTS else None,
        protocol_version=_fitted(ToolCall, "protocol_version", protocol_version),
        client_name=_fitted(ToolCall, "client_name", client_name),
    )
    pending = getattr(request, PENDING, None)
    if pending is None:
        write([row])
    else:
        pending.append(row)


def _fitted(model: Any, field: str, value: str) -> str:
    """Return ``value`` cut to its column's ``max_length`` (a client chose it), storable."""
    return storable(value[: model._meta.get_field(field).max_length])


def storable(value: Any) -> Any:
    """Return ``value`` with every NUL character replaced by U+FFFD, in strings, keys and
    nested values, and every number JSON can't hold (``1e400`` reads as infinity) as its
    text: PostgreSQL stores no NUL in text or ``jsonb``, no database stores ``Infinity`` as
    JSON, and one row it refuses would take the request's other rows with it."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # "Infinity", "-Infinity", "NaN"
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    return value


def _names(arguments: dict[str, Any]) -> list[str]:
    """The call's argument names, sorted: at most ``MAX_LOGGED_NAMES``, each clipped, and a
    last entry that counts the rest."""
    names = sorted(arguments)
    kept = [storable(clip(name, MAX_LOGGED_NAME_LENGTH)) for name in names[:MAX_LOGGED_NAMES]]
    if len(names) > MAX_LOGGED_NAMES:
        kept.append(f"… and {len(names) - MAX_LOGGED_NAMES} more")
    return kept


def _values(arguments: dict[str, Any]) -> Any:
    try:
        encoded = json.dumps(arguments, default=str)
    except ValueError:  # a circular structure cannot come from JSON, but be safe
        return None
    return storable(json.loads(encoded)) if len(encoded) <= MAX_LOGGED_ARGUMENTS else None


def hold(request: HttpRequest) -> None:
    """Keep the calls of this /mcp request until its response has been sent."""
    setattr(request, PENDING, [])


def write_after(request: HttpRequest, response: HttpResponseBase) -> None:
    """Write the request's calls once ``response`` is closed (sent), streamed or not."""
    pending = getattr(request, PENDING, None)
    if pending is None or mcp_settings.CALL_LOG == "off":
        return

    def flush() -> None:
        # A call reported after this (a streamed view that outlived its stream: its client
        # left, or CALL_TIMEOUT passed) is written when it reports.
        setattr(request, PENDING, None)
        write(pending)

    # HttpResponse.close() runs these once the server has sent the body (a streamed
    # response's too: its worker has reported the call before the last event, unless it
    # outlived the stream), before request_finished. Private to Django; a test pins that it
    # is still there.
    response._resource_closers.append(flush)  # type: ignore[attr-defined]


def write(rows: list[Any]) -> None:
    """Insert the rows (one query); a failure is logged and swallowed."""
    if not rows:
        return
    from .models import ToolCall

    try:
        ToolCall.objects.bulk_create(rows)
    except Exception:
        if len(rows) == 1:
            logger.warning("The call log could not be written (1 call)", exc_info=True)
            return
        for row in rows:  # one row the database refuses must not lose the others
            write([row])
