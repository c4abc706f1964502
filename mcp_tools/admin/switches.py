"""The admin's switch actions (enable, disable, pin), shared by tools, resources and prompts."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest


def save_each(
    model_admin: Any, request: HttpRequest, queryset: QuerySet, name: str, value: bool
) -> int:
    """Set the switch ``name`` of the selected rows; return how many changed. Saved one by
    one, so that each change is logged (a ``LogEntry``) and published like a form's."""
    changed = 0
    for row in queryset.exclude(**{name: value}):
        setattr(row, name, value)
        row.save(update_fields=[name, "changed_at"])
        model_admin.log_change(request, row, [{"changed": {"fields": [name]}}])
        changed += 1
    return changed
