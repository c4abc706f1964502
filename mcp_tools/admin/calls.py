"""The call log in Django admin: every logged call, with its filters (docs/calllog.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import (
    Q,
    QuerySet,
)
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from ..conf import mcp_settings
from ..discovery.tools import SEARCH_TOOLS
from ..models import ToolCall, ToolTask
from ..protocol.jsonrpc import clip
from .display import (
    exposed_tool_link,
    exposed_tool_links,
    local_time,
    outcome_badge,
    window_start,
)


class OutcomeFilter(admin.SimpleListFilter):
    """How calls ended: ok, error, refused, and refused for each reason."""

    title = _("outcome")
    parameter_name = "outcome"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        refusals = [
            (f"refused:{kind}", _("refused: %(why)s") % {"why": label})
            for kind, label in ToolCall.REFUSALS
        ]
        return [*ToolCall.OUTCOMES, *refusals]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value is None:
            return queryset
        outcome, _sep, refusal = value.partition(":")
        queryset = queryset.filter(outcome=outcome)
        return queryset.filter(refusal=refusal) if refusal else queryset


class ClientFilter(admin.SimpleListFilter):
    """The clients that called in the last ``CALL_LOG_WINDOW_DAYS`` days, by name."""

    title = _("client")
    parameter_name = "client"
    MAX_CHOICES = 50

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        names = (
            ToolCall.objects.filter(started_at__gte=window_start())
            .order_by()
            .values_list("client_name", flat=True)
            .distinct()[: self.MAX_CHOICES]
        )
        return [(name, name or str(_("(no name)"))) for name in sorted(names)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() is None:
            return queryset
        return queryset.filter(client_name=self.value())


@admin.register(ToolCall)
class ToolCallAdmin(admin.ModelAdmin):
    """The call log, read-only for everyone: rows come from calls, ``mcp_prune`` deletes."""

    # Eight narrow columns, to fit 1366 px beside the app list and the filters: the HTTP
    # status is on each row's page (the outcome and the message say how a call ended).
    list_display = [
        "started",
        "tool_link",
        "user",
        "shown_outcome",
        "shown_message",
        "duration",
        "client",
    ]
    list_display_links = ["started"]
    list_filter = [
        "kind",
        OutcomeFilter,
        ClientFilter,
        "tool_name",
        ("user", admin.RelatedOnlyFieldListFilter),
        "started_at",
    ]
    search_fields = ["tool_name", "error_ref", "client_name"]
    date_hierarchy = "started_at"
    list_select_related = ["user"]
    fields = [
        "tool_name",
        "user",
        "started_at",
        "duration_ms",
        "shown_outcome",
        "error_message",
        "error_ref",
        "shown_status",
        "argument_names",
        "arguments",
        "protocol_version",
        "client_name",
        "task_link",
    ]
    change_list_template = "admin/mcp_tools/toolcall/change_list.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the log is read-only

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # for superusers too: pruning is manage.py mcp_prune's

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_fields(request, obj))
        if obj is not None and obj.found is not None:  # a search, logged with its results
            after = fields.index("arguments") + 1 if "arguments" in fields else len(fields)
            fields.insert(after, "shown_found")
        return fields

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        # The shown status keeps the column's help text: what an empty status means.
        status = ToolCall._meta.get_field("http_status")
        kwargs.setdefault("help_texts", {"shown_status": status.help_text})
        return super().get_form(request, obj, change, **kwargs)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.overview_view)
        return [path("overview/", view, name="mcp_tools_overview"), *super().get_urls()]

    def overview_view(self, request: HttpRequest) -> HttpResponse:
        """The call log at a glance: calls per day, latency per tool, clients, errors."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        # Imported here: the overview's code serves this page alone, not a worker's calls.
        from ..calllog import overview

        figures = overview.figures(request.GET.get("days"))
        since = cast(datetime, figures["since"])
        logged = mcp_settings.CALL_LOG != "off" and mcp_settings.CALL_LOG_ARGUMENTS
        for call in cast(list[ToolCall], figures["latest_errors"]):
            call.badge = outcome_badge(call)  # type: ignore[attr-defined]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Tool calls at a glance"),
            "call_log": mcp_settings.CALL_LOG,
            **figures,
            # What models searched for in vain (docs/tools.md#what-was-searched).
            "unfound": overview.unfound_queries(since, SEARCH_TOOLS) if logged else [],
            "searches_read": overview.SEARCHES_READ,
            "searches_logged": logged,
            "discovery": mcp_settings.DISCOVERY != "never",
        }
        return TemplateResponse(request, "admin/mcp_tools/overview.html", context)

    @admin.display(description=_("started"), ordering="started_at")
    def started(self, obj: ToolCall) -> str:
        return local_time(obj.started_at).strftime("%Y-%m-%d %H:%M:%S")

    @admin.display(description=_("ms"), ordering="duration_ms")
    def duration(self, obj: ToolCall) -> str:
        return f"{obj.duration_ms:,.1f}"

    @admin.display(description=_("client"), ordering="client_name")
    def client(self, obj: ToolCall) -> str:
        """The client's name and, beneath it, the protocol version it spoke."""
        return format_html(
            '{}<br><span class="quiet">{}</span>',
            clip(obj.client_name, 40) or "-",
            obj.protocol_version or "-",
        )

    @admin.display(description=_("outcome"), ordering="outcome")
    def shown_outcome(self, obj: ToolCall) -> str:
        return outcome_badge(obj)

    @admin.display(description=_("HTTP status"), ordering="http_status")
    def shown_status(self, obj: ToolCall) -> Any:
        """The view's status, or why there is none: never run, or raised."""
        if obj.http_status is not None:
            return obj.http_status
        if obj.refusal == "cancelled":
            return _("- (cancelled: the client left)")
        if obj.outcome == ToolCall.REFUSED:
            return _("- (the view never ran)")
        return _("- (the view raised)")

    @admin.display(description=_("what the model read"))
    def shown_message(self, obj: ToolCall) -> str:
        if obj.error_message:
            return clip(obj.error_message, 60)
        if obj.found is not None and isinstance(obj.arguments, dict):  # a logged search
            return _("“%(query)s”: %(count)d found") % {
                "query": clip(str(obj.arguments.get("query", "")), 40),
                "count": len(obj.found),
            }
        return "-"

    @admin.display(description=_("tools found"))
    def shown_found(self, obj: ToolCall) -> str:
        """The tools a search returned, best first, each linked to its row."""
        if not obj.found:
            return str(_("- (nothing found)"))
        links = exposed_tool_links(obj.found)
        return format_html_join(mark_safe("<br>"), "{}", ((link,) for link in links))

    @admin.display(description=_("tool"), ordering="tool_name")
    def tool_link(self, obj: ToolCall) -> str:
        return exposed_tool_link(obj.tool_name)

    @admin.display(description=_("task"))
    def task_link(self, obj: ToolCall) -> str:
        """The task the call ran as, linked while the task is kept."""
        if not obj.task_id:
            return str(_("- (answered inline)"))
        if ToolTask.objects.filter(pk=obj.task_id).exists():
            url = reverse("admin:mcp_tools_tooltask_change", args=[obj.task_id])
            return format_html('<a href="{}">{}</a>', url, obj.task_id)
        return format_html(
            "{} {}",
            obj.task_id,
            _("(no longer kept: past its TTL, or answered within TASK_IMMEDIATE_SECONDS)"),
        )

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str) -> Any:
        # An error reference is searched exactly: it is what a user reports.
        if len(search_term) == 32 and search_term.isalnum():
            return queryset.filter(Q(error_ref=search_term)), False
        return super().get_search_results(request, queryset, search_term)
