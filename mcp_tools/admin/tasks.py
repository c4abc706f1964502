"""MCP tasks in Django admin: their status, their result, the cancel action (docs/tasks.md)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import admin, messages
from django.db.models import (
    DurationField,
    ExpressionWrapper,
    F,
    Q,
    QuerySet,
)
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..conf import mcp_settings
from ..models import ToolCall, ToolTask
from ..protocol.jsonrpc import clip
from ..protocol.results import ERROR_REF_META_KEY
from .display import exposed_tool_link, local_time, pretty

#: How each task status looks, as the call log's outcomes do: words on a background of the
#: admin's own colours, which its dark theme redefines (readable in both).
STATUS_BACKGROUNDS = {
    ToolTask.WORKING: "var(--selected-bg)",
    ToolTask.INPUT_REQUIRED: "var(--message-warning-bg)",
    ToolTask.COMPLETED: "var(--message-success-bg)",
    ToolTask.FAILED: "var(--message-error-bg)",
    ToolTask.CANCELLED: "var(--darkened-bg)",
}


def tool_error(task: ToolTask) -> bool:
    """Whether ``task`` completed with a tool error (``isError``: the model read a failure)."""
    return (
        task.status == ToolTask.COMPLETED
        and isinstance(task.result, dict)
        and task.result.get("isError") is True
    )


def status_badge(task: ToolTask) -> str:
    """Return the status of ``task`` as words on its colour: "completed: tool error"."""
    words: Any = task.get_status_display()
    background = STATUS_BACKGROUNDS.get(task.status, "var(--darkened-bg)")
    if tool_error(task):
        words = _("%(status)s: tool error") % {"status": words}
        background = STATUS_BACKGROUNDS[ToolTask.FAILED]
    return format_html(
        '<span class="mcp-task-status mcp-task-status-{}" style="background: {};'
        " color: var(--body-fg); padding: 1px 6px; border-radius: 4px;"
        ' display: inline-block; max-width: 9em">{}</span>',
        task.status,
        background,
        words,
    )


def task_failure(task: ToolTask) -> tuple[str, str | None]:
    """Return what went wrong with ``task`` and its error reference: the JSON-RPC error of a
    failed task, or the text the model read of a tool error; ("", None) when nothing did."""
    if task.status == ToolTask.FAILED and isinstance(task.error, dict):
        data = task.error.get("data")
        reference = data.get("errorRef") if isinstance(data, dict) else None
        return f"{task.error.get('code', '')} {task.error.get('message', '')}".strip(), reference
    if tool_error(task):
        result = task.result or {}
        texts = [
            block.get("text", "")
            for block in result.get("content") or []
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        meta = result.get("_meta") or {}
        return "\n".join(texts), meta.get(ERROR_REF_META_KEY)
    return "", None


def seconds(value: timedelta) -> str:
    """Return a duration as a person reads it: "0.4 s", "12.3 s", "3 min 4 s"."""
    total = value.total_seconds()
    if total < 60:
        return f"{total:.1f} s"
    minutes, rest = divmod(int(total), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    return f"{minutes // 60} h {minutes % 60} min"


@admin.register(ToolTask)
class ToolTaskAdmin(admin.ModelAdmin):
    """The tasks (docs/tasks.md#admin), read-only for everyone: rows come from task calls,
    their workers change them and ``mcp_prune`` deletes them. Staff with the change
    permission may cancel working tasks, as a client's ``tasks/cancel`` would."""

    list_display = ["created", "tool_link", "shown_caller", "shown_status", "failure", "duration"]
    list_display_links = ["created"]
    list_filter = ["status", "tool_name", "created_at"]
    search_fields = ["id", "tool_name", "client_name"]
    date_hierarchy = "created_at"
    list_select_related = ["user"]
    actions = ["cancel_tasks"]
    change_form_template = "admin/mcp_tools/tooltask/change_form.html"
    change_list_template = "admin/mcp_tools/tooltask/change_list.html"

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        """The task's page: what it is, what it answered (only what its status carries),
        what went wrong (when something did), when, the call, and its worker."""
        answered = [
            name
            for name, value in (
                ("shown_result", obj.result if obj else None),
                ("shown_error", obj.error if obj else None),
                ("shown_input_requests", obj.input_requests if obj else None),
            )
            if value
        ]
        fieldsets: list[Any] = [
            (
                None,
                {"fields": ["id", "tool_link", "shown_caller", "shown_status", "status_message"]},
            )
        ]
        if answered:
            fieldsets.append((_("What it answered"), {"fields": answered}))
        if obj is not None and task_failure(obj)[0]:
            fieldsets.append((_("What went wrong"), {"fields": ["failure", "error_reference"]}))
        when = ["created_at", "started_at", "finished_at", "duration", "expires_at"]
        fieldsets += [
            (_("When"), {"fields": when}),
            (_("The call"), {"fields": ["arguments", "protocol_version", "client_name", "calls"]}),
            (_("Its worker"), {"fields": ["worker", "attempts", "leased_until", "retryable"]}),
        ]
        return fieldsets

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a task is its worker's to change; the page is read-only

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # for superusers too: pruning is manage.py mcp_prune's

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        """Cancelling takes the model's change permission, though no form changes a task."""
        opts = self.opts
        return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        run_time = ExpressionWrapper(
            F("finished_at") - F("started_at"), output_field=DurationField()
        )
        return super().get_queryset(request).annotate(run_time=run_time)

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str) -> Any:
        # A task id or an error reference is searched exactly: it is what a user reports.
        if len(search_term) == 32 and search_term.isalnum():
            logged = ToolCall.objects.filter(error_ref=search_term).values("task_id")
            return (
                queryset.filter(
                    Q(pk=search_term) | Q(error__data__errorRef=search_term) | Q(pk__in=logged)
                ),
                False,
            )
        return super().get_search_results(request, queryset, search_term)

    # -- columns ----------------------------------------------------------------------------

    @admin.display(description=_("created"), ordering="created_at")
    def created(self, obj: ToolTask) -> str:
        return local_time(obj.created_at).strftime("%Y-%m-%d %H:%M:%S")

    @admin.display(description=_("tool"), ordering="tool_name")
    def tool_link(self, obj: ToolTask) -> str:
        return exposed_tool_link(obj.tool_name)

    @admin.display(description=_("caller"), ordering="user")
    def shown_caller(self, obj: ToolTask) -> Any:
        return obj.user if obj.user_id is not None else _("(anonymous)")

    @admin.display(description=_("status"), ordering="status")
    def shown_status(self, obj: ToolTask) -> str:
        return status_badge(obj)

    @admin.display(description=_("what went wrong"))
    def failure(self, obj: ToolTask) -> str:
        message, reference = task_failure(obj)
        if not message:
            return "-"
        if reference and reference not in message:
            message = f"{message} (reference {reference})"
        return clip(message, 80)

    @admin.display(description=_("duration"), ordering="run_time")
    def duration(self, obj: ToolTask) -> str:
        """From its worker's start to its end; how long so far while it works."""
        if obj.started_at is None:
            return "-"
        if obj.finished_at is not None:
            return seconds(obj.finished_at - obj.started_at)
        if obj.status == ToolTask.WORKING:
            return str(_("%(time)s so far") % {"time": seconds(timezone.now() - obj.started_at)})
        return "-"

    # -- the change page --------------------------------------------------------------------

    @admin.display(description=_("error reference"))
    def error_reference(self, obj: ToolTask) -> str:
        reference = task_failure(obj)[1]
        if not reference:
            return "-"
        url = reverse("admin:mcp_tools_toolcall_changelist")
        return format_html('<a href="{}?q={}">{}</a>', url, reference, reference)

    @admin.display(description=_("arguments"))
    def arguments(self, obj: ToolTask) -> str:
        """The arguments as the call log keeps them: their values only with
        ``CALL_LOG_ARGUMENTS``, else their names."""
        given = (obj.params or {}).get("arguments") or {}
        if not isinstance(given, dict):
            return "-"
        if mcp_settings.CALL_LOG_ARGUMENTS:
            return pretty(given)
        return ", ".join(sorted(given)) or "-"

    @admin.display(description=_("logged call"))
    def calls(self, obj: ToolTask) -> str:
        """The call the task's run logged (several, for a task run again), linked."""
        logged = list(ToolCall.objects.filter(task_id=obj.pk).values_list("pk", flat=True)[:2])
        if not logged:
            if obj.terminal:
                return str(_("- (not logged: CALL_LOG, or pruned)"))
            return "-"
        if len(logged) == 1:
            url = reverse("admin:mcp_tools_toolcall_change", args=[logged[0]])
            return format_html('<a href="{}">{}</a>', url, _("The logged call"))
        url = reverse("admin:mcp_tools_toolcall_changelist")
        return format_html('<a href="{}?task_id={}">{}</a>', url, obj.pk, _("The logged calls"))

    @admin.display(description=_("result"))
    def shown_result(self, obj: ToolTask) -> str:
        from ..tasks.store import result_of  # with the admin's first task page

        return pretty(result_of(obj)) if obj.result is not None else "-"

    @admin.display(description=_("error"))
    def shown_error(self, obj: ToolTask) -> str:
        return pretty(obj.error) if obj.error is not None else "-"

    @admin.display(description=_("input requests"))
    def shown_input_requests(self, obj: ToolTask) -> str:
        return pretty(obj.input_requests) if obj.input_requests else "-"

    # -- actions ----------------------------------------------------------------------------

    @admin.action(description=_("Cancel selected tasks"), permissions=["cancel"])
    def cancel_tasks(self, request: HttpRequest, queryset: QuerySet) -> None:
        """Cancel the selected tasks that have not ended, as the client's ``tasks/cancel``
        would: a running view stops at its next ``report_progress``."""
        from ..tasks.store import cancel  # the task store loads with the admin's first use

        who = request.user.get_username()
        message = str(_("Cancelled by %(user)s in the admin") % {"user": who})
        cancelled = 0
        for task in queryset.exclude(status__in=ToolTask.TERMINAL):
            if cancel(task, message):
                self.log_change(request, task, [{"changed": {"fields": ["status"]}}])
                cancelled += 1
        ended = queryset.count() - cancelled
        text = ngettext("%(count)d task cancelled.", "%(count)d tasks cancelled.", cancelled)
        text = text % {"count": cancelled}
        if ended:
            text += " " + ngettext(
                "%(count)d had ended already.", "%(count)d had ended already.", ended
            ) % {"count": ended}
        self.message_user(request, text, messages.SUCCESS if cancelled else messages.WARNING)
