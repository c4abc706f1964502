"""What the admin pages share to show a value: JSON, a time, the link to a tool's row."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _

from ..conf import mcp_settings
from ..models import ExposedTool, ToolCall


def pretty(value: Any) -> str:
    """Return ``value`` as indented JSON in a ``<pre>`` block (it scrolls: keyboard-focusable)."""
    return format_html('<pre class="mcp-json" tabindex="0">{}</pre>', json.dumps(value, indent=2))


def window_start() -> Any:
    return timezone.now() - timedelta(days=mcp_settings.CALL_LOG_WINDOW_DAYS)


def local_time(value: datetime) -> datetime:
    """Return ``value`` in the current time zone (as it is where ``USE_TZ = False``)."""
    return timezone.localtime(value) if timezone.is_aware(value) else value


def exposed_tool_link(name: str) -> str:
    """Return the tool's name, linked to its row of the exposed tools when it has one."""
    return exposed_tool_links([name])[0]


def exposed_tool_links(names: list[str]) -> list[str]:
    """Return each name of ``names`` linked as ``exposed_tool_link`` does: one query."""
    rows = dict(ExposedTool.objects.filter(name__in=names).values_list("name", "pk"))
    return [
        format_html(
            '<a href="{}">{}</a>',
            reverse("admin:mcp_tools_exposedtool_change", args=[rows[name]]),
            name,
        )
        if name in rows
        else name
        for name in names
    ]


#: How each outcome looks: words on a background of the admin's own message colours, which
#: its dark theme redefines (readable in both).
OUTCOME_BACKGROUNDS = {
    ToolCall.OK: "var(--message-success-bg)",
    ToolCall.ERROR: "var(--message-error-bg)",
    ToolCall.REFUSED: "var(--message-warning-bg)",
}


def outcome_badge(call: ToolCall) -> str:
    """Return the outcome of ``call`` as words on its colour: "refused: throttled"."""
    words: str = call.get_outcome_display()
    if call.refusal:
        words = _("%(outcome)s: %(why)s") % {"outcome": words, "why": call.get_refusal_display()}
    return format_html(
        '<span class="mcp-outcome mcp-outcome-{}" style="background: {}; color: var(--body-fg);'
        ' padding: 1px 6px; border-radius: 4px; display: inline-block; max-width: 9em">{}</span>',
        call.outcome,
        OUTCOME_BACKGROUNDS.get(call.outcome, "var(--darkened-bg)"),
        words,
    )
