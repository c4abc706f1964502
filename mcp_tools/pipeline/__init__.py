"""One run of a view for the client: arguments, inner request, view, result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "BaseFormatter",
    "CallPlan",
    "Invocation",
    "ResponseFormatter",
    "call_view",
    "log_message",
    "redact",
    "report_progress",
    "truncate_text",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Invocation": ".invocation",
        "CallPlan": ".plans",
        "call_view": ".chain",
        "BaseFormatter": ".formatters",
        "ResponseFormatter": ".formatters",
        "redact": ".processors",
        "truncate_text": ".processors",
        "log_message": ".notifications",
        "report_progress": ".notifications",
    },
)

if TYPE_CHECKING:
    from .chain import call_view
    from .formatters import BaseFormatter, ResponseFormatter
    from .invocation import Invocation
    from .notifications import log_message, report_progress
    from .plans import CallPlan
    from .processors import redact, truncate_text
