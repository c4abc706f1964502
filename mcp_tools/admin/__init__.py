"""Django admin for the exposed tools, their call log and their tasks (docs/admin.md)."""

from __future__ import annotations

import json
import statistics
from datetime import datetime, timedelta
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import (
    Count,
    DurationField,
    ExpressionWrapper,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..calllog import overview
from ..catalog import sync, visibility
from ..catalog.admin_state import catalog_for
from ..conf import mcp_settings
from ..endpoint import local
from ..endpoint.exchange import Exchange
from ..endpoint.mounts import served_registries
from ..models import ExposedTool, ToolCall, ToolTask
from ..protocol.jsonrpc import INVALID_PARAMS, JSONRPCError, clip
from ..protocol.results import ERROR_REF_META_KEY
from ..protocol.versions import LATEST_HANDSHAKE_VERSION, SUPPORTED_VERSIONS
from ..tasks import store as tasks
from ..tools.tool import Tool
from .forms import ExposedToolForm, TryItForm

#: How many recent calls of a tool its p50 duration is taken over.
P50_SAMPLE = 500


def pretty(value: Any) -> str:
    """Return ``value`` as indented JSON in a ``<pre>`` block (it scrolls: keyboard-focusable)."""
    return format_html('<pre class="mcp-json" tabindex="0">{}</pre>', json.dumps(value, indent=2))


def code_tools() -> dict[str, Tool]:
    """Return the tools of every registry the URLconf serves as clients see them now (admin
    state on); of a name two registries use, the first's (``mcp_tools.W007``)."""
    return _first_of_each_name([catalog_for(each.tools()).tools for each in served_registries()])


def declared_tools() -> dict[str, Tool]:
    """Return the tools of every registry the URLconf serves as the code declares them."""
    return _first_of_each_name([each.tools().by_name for each in served_registries()])


def _first_of_each_name(tool_sets: list[dict[str, Tool]]) -> dict[str, Tool]:
    if len(tool_sets) == 1:
        return tool_sets[0]  # one registry (most projects): its own mapping, nothing copied
    tools: dict[str, Tool] = {}
    for each in tool_sets:
        for name, tool in each.items():
            tools.setdefault(name, tool)
    return tools


def window_start() -> Any:
    return timezone.now() - timedelta(days=mcp_settings.CALL_LOG_WINDOW_DAYS)


class HasErrorsFilter(admin.SimpleListFilter):
    title = _("errors in the window")
    parameter_name = "errors"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("With errors")), ("no", _("Without errors"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        failing = ToolCall.objects.filter(is_error=True, started_at__gte=window_start())
        names = failing.values("tool_name")
        if self.value() == "yes":
            return queryset.filter(name__in=names)
        if self.value() == "no":
            return queryset.exclude(name__in=names)
        return queryset


class TagFilter(admin.SimpleListFilter):
    """The tags the code gives a tool (``@mcp_tool(tags=...)``)."""

    title = _("tag")
    parameter_name = "tag"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        tags = sorted({tag for tool in code_tools().values() for tag in tool.options.tags})
        return [(tag, tag) for tag in tags]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() is None:
            return queryset
        tagged = [name for name, tool in code_tools().items() if self.value() in tool.options.tags]
        return queryset.filter(name__in=tagged)


#: The call figures of the changelist, by ``CALL_LOG`` mode: what the log holds decides
#: what can be counted (in "errors" mode a rate or a p50 would be of failures alone).
FIGURES = {
    "all": ["calls", "errors", "p50_duration", "last_call"],
    "errors": ["errors_logged", "last_error"],
    "off": [],
}


@admin.register(ExposedTool)
class ExposedToolAdmin(admin.ModelAdmin):
    form = ExposedToolForm
    list_display = ["name", "shown_title", "enabled", *FIGURES["all"]]
    list_display_links = ["name"]
    list_filter = ["enabled", "registered", HasErrorsFilter, TagFilter]
    search_fields = ["name", "title", "description"]
    actions = ["enable_tools", "disable_tools", "delete_selected"]
    filter_horizontal = ["allowed_groups"]
    readonly_fields = [
        "name",
        "registered",
        "http",
        "code_title",
        "code_description",
        "effective_annotations",
        "input_schema",
        "output_schema",
    ]
    fieldsets = [
        (None, {"fields": ["name", "registered", "enabled", "http"]}),
        (
            _("Overrides (left blank: the code's own)"),
            {
                "fields": [
                    "title",
                    "code_title",
                    "description",
                    "code_description",
                    "annotations",
                    "include_structured_content",
                    "include_output_schema",
                ]
            },
        ),
        (_("Who may use it"), {"fields": ["allowed_groups"]}),
        (
            _("As clients see it"),
            {"fields": ["effective_annotations", "input_schema", "output_schema"]},
        ),
    ]
    change_form_template = "admin/mcp_tools/exposedtool/change_form.html"
    change_list_template = "admin/mcp_tools/exposedtool/change_list.html"

    # -- rows come from the registry -------------------------------------------------------

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ExposedTool | None = None) -> bool:
        if obj is not None and still_registered(obj):
            return False
        return super().has_delete_permission(request, obj)

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> Any:
        obj = self.get_object(request, object_id)
        if obj is not None and still_registered(obj) and super().has_delete_permission(request):
            self.message_user(request, cannot_delete([obj.name]), messages.ERROR)
            return HttpResponseRedirect(
                reverse("admin:mcp_tools_exposedtool_change", args=[obj.pk])
            )
        return super().delete_view(request, object_id, extra_context)

    @admin.action(description=_("Delete the selected tools"), permissions=["delete"])
    def delete_selected(self, request: HttpRequest, queryset: QuerySet) -> Any:
        registered = [tool.name for tool in queryset if still_registered(tool)]
        if registered:
            self.message_user(request, cannot_delete(registered), messages.ERROR)
            return None
        return delete_selected(self, request, queryset)

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "allowed_groups":
            # The widget's own headings ("Available groups", "Chosen groups").
            kwargs["widget"] = FilteredSelectMultiple(_("groups"), is_stacked=False)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def get_list_display(self, request: HttpRequest) -> Any:
        return ["name", "shown_title", "enabled", *FIGURES[mcp_settings.CALL_LOG]]

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        # Tools added to the code since the last migrate show up at once.
        sync.sync_tools(*served_registries())
        context = {
            "call_log": mcp_settings.CALL_LOG,
            "window_days": mcp_settings.CALL_LOG_WINDOW_DAYS,
            **(extra_context or {}),
        }
        return super().changelist_view(request, context)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        obj = self.get_object(request, object_id)
        registered = obj is not None and obj.name in code_tools()
        return super().change_view(
            request, object_id, form_url, {"tool_registered": registered, **(extra_context or {})}
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        calls = ToolCall.objects.filter(tool_name=OuterRef("name"), started_at__gte=window_start())
        counted = calls.order_by().values("tool_name")
        return (
            super()
            .get_queryset(request)
            .prefetch_related("allowed_groups")
            .annotate(
                call_count=Coalesce(Subquery(counted.annotate(n=Count("pk")).values("n")), 0),
                error_count=Coalesce(
                    Subquery(counted.filter(is_error=True).annotate(n=Count("pk")).values("n")), 0
                ),
                last_called=Subquery(last_of(ToolCall.objects.filter(tool_name=OuterRef("name")))),
                last_failed=Subquery(
                    last_of(ToolCall.objects.filter(tool_name=OuterRef("name"), is_error=True))
                ),
            )
        )

    # -- columns ----------------------------------------------------------------------------

    def tool(self, obj: ExposedTool) -> Tool | None:
        return code_tools().get(obj.name)

    @admin.display(description=_("title and route"))
    def shown_title(self, obj: ExposedTool) -> str:
        # One column for what a row says in words, so that the figures fit a laptop's screen.
        tool = self.tool(obj)
        if tool is None:
            return badges(obj, registered=False)
        return format_html(
            '{}<span class="mcp-route">{} /{}</span>{}',
            tool.title,
            tool.method,
            tool.route.template,
            badges(obj, registered=True),
        )

    @admin.display(description=_("HTTP"))
    def http(self, obj: ExposedTool) -> str:
        tool = self.tool(obj)
        return f"{tool.method} /{tool.route.template}" if tool is not None else "-"

    @admin.display(description=_("calls"), ordering="call_count")
    def calls(self, obj: Any) -> int:
        return obj.call_count

    @admin.display(description=_("errors"), ordering="error_count")
    def errors(self, obj: Any) -> str:
        """The errors among the calls, and their share of them."""
        if not obj.call_count:
            return "-"
        return f"{obj.error_count} ({obj.error_count / obj.call_count:.0%})"

    @admin.display(description=_("errors logged"), ordering="error_count")
    def errors_logged(self, obj: Any) -> int:
        return obj.error_count

    @admin.display(description=_("last call"), ordering="last_called")
    def last_call(self, obj: Any) -> str:
        return short_time(obj.last_called)

    @admin.display(description=_("last error"), ordering="last_failed")
    def last_error(self, obj: Any) -> str:
        return short_time(obj.last_failed)

    @admin.display(description=_("p50 (ms)"))
    def p50_duration(self, obj: ExposedTool) -> str:
        durations = list(
            ToolCall.objects.filter(tool_name=obj.name, started_at__gte=window_start())
            .order_by("-started_at")
            .values_list("duration_ms", flat=True)[:P50_SAMPLE]
        )
        return f"{statistics.median(durations):.1f}" if durations else "-"

    # -- the change page ----------------------------------------------------------------------

    @admin.display(description=_("the code's title"))
    def code_title(self, obj: ExposedTool) -> str:
        tool = declared_tools().get(obj.name)
        return tool.title if tool is not None else "-"

    @admin.display(description=_("the code's description"))
    def code_description(self, obj: ExposedTool) -> str:
        tool = declared_tools().get(obj.name)
        return tool.description if tool is not None else "-"

    @admin.display(description=_("annotations"))
    def effective_annotations(self, obj: ExposedTool) -> str:
        tool = self.tool(obj)
        return pretty(tool.definition()["annotations"]) if tool is not None else "-"

    @admin.display(description=_("input schema"))
    def input_schema(self, obj: ExposedTool) -> str:
        tool = self.tool(obj)
        return pretty(tool.input_schema) if tool is not None else "-"

    @admin.display(description=_("output schema"))
    def output_schema(self, obj: ExposedTool) -> str:
        tool = self.tool(obj)
        if tool is None:
            return "-"
        if tool.output_schema is None:
            return str(_("None advertised (include_output_schema is off, or no schema is known)."))
        return pretty(tool.output_schema)

    # -- actions ----------------------------------------------------------------------------

    @admin.action(description=_("Enable the selected tools"), permissions=["change"])
    def enable_tools(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._switch(request, queryset, enabled=True)

    @admin.action(description=_("Disable the selected tools"), permissions=["change"])
    def disable_tools(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._switch(request, queryset, enabled=False)

    def _switch(self, request: HttpRequest, queryset: QuerySet, *, enabled: bool) -> None:
        # Saved one by one, so that each change is logged and published like a form's.
        changed = 0
        for tool in queryset.filter(enabled=not enabled):
            tool.enabled = enabled
            tool.save(update_fields=["enabled", "changed_at"])
            self.log_change(request, tool, [{"changed": {"fields": ["enabled"]}}])
            changed += 1
        message = ngettext("%(count)d tool enabled.", "%(count)d tools enabled.", changed)
        if not enabled:
            message = ngettext("%(count)d tool disabled.", "%(count)d tools disabled.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)

    # -- Try it -------------------------------------------------------------------------------

    def get_urls(self) -> list[Any]:
        name = f"{self.opts.app_label}_{self.opts.model_name}_try"
        return [
            path("<path:object_id>/try/", self.admin_site.admin_view(self.try_it_view), name=name),
            *super().get_urls(),
        ]

    def try_it_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Say whether the signed-in user sees the tool and why, and call it as them, through
        the same pipeline as the endpoint."""
        obj = self.get_object(request, object_id)
        if obj is None:
            raise Http404(_("No exposed tool %(id)s.") % {"id": object_id})
        if not self.has_view_permission(request, obj):
            raise PermissionDenied
        tool = self.tool(obj)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": obj,
            "title": _("Try %(name)s") % {"name": obj.name},
            "tool": tool,
            "calls_url": reverse("admin:mcp_tools_toolcall_changelist"),
            **answer_context(None),
        }
        if tool is not None:  # a stale row has nothing to call: the page says so
            form = TryItForm(tool.input_schema, request.POST if request.method == "POST" else None)
            answer = None
            if request.method == "POST" and form.is_valid():
                answer = try_call(request, obj.name, form.arguments(), form.protocol_version())
            context.update(form=form, seen=seen_by(request, obj.name))
            context.update(answer_context(answer))
        return TemplateResponse(request, "admin/mcp_tools/exposedtool/try_it.html", context)


def last_of(calls: QuerySet) -> QuerySet:
    """Return when the latest of ``calls`` started (a subquery's one value)."""
    return calls.order_by().values("tool_name").annotate(last=Max("started_at")).values("last")


def still_registered(obj: ExposedTool) -> bool:
    """Return whether some served registry registers the tool of ``obj``: its row stays.

    A registered tool's row would come back at the next sync, without its rules. Asked of
    the registries too, in case no sync has flagged it yet.
    """
    return obj.registered or obj.name in declared_tools()


def cannot_delete(names: list[str]) -> str:
    return str(
        ngettext(
            "The tool %(names)s is still registered by the code: only tools the code no "
            "longer registers can be deleted. Disable it instead.",
            "The tools %(names)s are still registered by the code: only tools the code no "
            "longer registers can be deleted. Disable them instead.",
            len(names),
        )
        % {"names": ", ".join(names)}
    )


def local_time(value: datetime) -> datetime:
    """Return ``value`` in the current time zone (as it is where ``USE_TZ = False``)."""
    return timezone.localtime(value) if timezone.is_aware(value) else value


def short_time(value: Any) -> str:
    return date_format(local_time(value), "SHORT_DATETIME_FORMAT") if value else "-"


def badges(obj: ExposedTool, *, registered: bool) -> str:
    """Return the badges of a changelist row: what restricts the tool and what the admin
    overrides (as ``mcp_list`` says ``(groups)``)."""
    shown: list[tuple[str, Any, Any]] = []
    if not registered:
        shown.append(("stale", _("The code no longer registers this tool."), _("not registered")))
    groups = sorted(group.name for group in obj.allowed_groups.all())
    if groups:
        names = ", ".join(groups)
        tip = format_lazy("{}: {}", _("Only for the groups"), names)
        shown.append(("groups", tip, format_lazy("{}: {}", _("groups"), names)))
    overridden = [
        label
        for label, value in (
            (_("title"), obj.title),
            (_("description"), obj.description),
            (_("annotations"), obj.annotations),
        )
        if value
    ]
    if obj.include_structured_content is not None or obj.include_output_schema is not None:
        overridden.append(_("switches"))
    for label in overridden:
        tip = format_lazy("{}: {}", _("The admin overrides the code's"), label)
        shown.append(("override", tip, label))
    if not shown:
        return ""
    return format_html(
        '<span class="mcp-badges">{}</span>',
        format_html_join("", '<span class="mcp-badge mcp-badge-{}" title="{}">{}</span>', shown),
    )


def seen_by(request: HttpRequest, name: str) -> dict[str, Any]:
    """Return whether the signed-in user sees tool ``name`` through the endpoint Try it
    calls, and every reason they don't, worded with what would show it
    (``visibility.explain``: the rule of ``tools/list`` and ``tools/call``)."""
    try:
        endpoint_path, endpoint = local.mounted_endpoint(tool=name)
    except local.NoEndpoint as exc:
        return {"visible": False, "reasons": [(str(exc), "")]}
    token = request.POST.get("csrfmiddlewaretoken") or get_token(request)
    outer = local.endpoint_request(endpoint_path, request, HTTP_X_CSRFTOKEN=token)
    try:
        caller = endpoint.authenticate(outer)
    except JSONRPCError as error:
        refused = _("The endpoint at %(path)s refuses your session: %(message)s") % {
            "path": endpoint_path,
            "message": error.message,
        }
        fix = _("Its authentication classes (MCPView.as_view or DEFAULT_AUTHENTICATION) decide.")
        return {"visible": False, "reasons": [(refused, fix)], "path": endpoint_path}
    exchange = Exchange(outer, caller, endpoint, operator=True)
    tool = exchange.catalog.tools.get(name)
    if tool is None or not endpoint.serves(tool):
        tags = ", ".join(sorted(endpoint.tags or ()))
        reason = _(
            "No mounted endpoint serves it: the one at %(path)s serves tools tagged %(tags)s."
        )
        return {
            "visible": False,
            "reasons": [(reason % {"path": endpoint_path, "tags": tags or "-"}, "")],
            "path": endpoint_path,
        }
    rule = exchange.catalog.rule(name)
    reasons = visibility.explain(exchange.visibility, tool, rule)
    seen: dict[str, Any] = {
        "visible": not reasons,
        "reasons": [word(reason) for reason in reasons],
        "path": endpoint_path,
        "permissions": ", ".join(
            getattr(cls, "__name__", type(cls).__name__)
            for cls in tool.view_class.permission_classes
        ),
        "groups": ", ".join(group_names(rule.group_ids)),
    }
    return seen


def group_names(ids: Any) -> list[str]:
    return list(Group.objects.filter(pk__in=ids).order_by("name").values_list("name", flat=True))


def word(reason: visibility.Reason) -> tuple[str, str]:
    """Return what the Try it page says of ``reason``: why, and what would show the tool."""
    if reason.kind == "disabled":
        fix = _('Tick "Enabled" on the tool\'s page, or use the "Enable" action of the list.')
        return str(_("It is disabled.")), str(fix)
    if reason.kind == "groups":
        names = ", ".join(group_names(reason.names))
        why = _("It is only for the groups %(names)s, and you are in none of them.")
        fix = _("Add yourself to one of them (your user's page), or remove the groups here.")
        return str(why % {"names": names}), str(fix)
    if reason.kind == "authentication":
        classes = ", ".join(reason.names) or "-"
        why = _(
            "The view authenticates with %(classes)s only, and your admin session is not one "
            "of them: MCP clients that send those credentials see it."
        )
        fix = _("Call it with those credentials (mcp_call --user), or add SessionAuthentication.")
        return str(why % {"classes": classes}), str(fix)
    name = reason.names[0] if reason.names else str(_("its permission classes"))
    refused = str(_("The view's permission class %(name)s does not admit you.") % {"name": name})
    if reason.message:
        refused = f'{refused} "{reason.message}"'
    return refused, str(_("Give your user what %(name)s asks for.") % {"name": name})


def answer_context(answer: dict[str, Any] | None) -> dict[str, Any]:
    """Return what the "Try it" page shows of a JSON-RPC answer, as a client would see it."""
    if answer is None:
        return {
            "answer": None,
            "result": None,
            "error": None,
            "structured": None,
            "error_ref": None,
        }
    result = answer.get("result") or {}
    meta = result.get("_meta") or {}
    structured = result.get("structuredContent")
    return {
        "answer": answer,
        "result": result or None,
        "error": answer.get("error"),
        "structured": json.dumps(structured, indent=2) if "structuredContent" in result else None,
        "error_ref": meta.get(ERROR_REF_META_KEY),
    }


def try_call(
    request: HttpRequest, name: str, arguments: dict[str, Any], version: str
) -> dict[str, Any]:
    """Call tool ``name`` as the admin's own session would over HTTP: never with more rights.

    Through the mounted endpoint that serves the tool, with its policy: it authenticates a
    JSON request from the admin's browser (its session), and the view's request copies its
    cookies and the form's CSRF token, as a browser client's /mcp call would carry them.
    Returns ``{"result": ...}`` or ``{"error": ...}``, as a client would read the answer.
    """
    if version not in SUPPORTED_VERSIONS:
        version = LATEST_HANDSHAKE_VERSION
    try:
        path, endpoint = local.mounted_endpoint(tool=name)
    except local.NoEndpoint as exc:
        return {"error": {"code": INVALID_PARAMS, "message": str(exc)}}
    token = request.POST.get("csrfmiddlewaretoken")
    meta = {"HTTP_X_CSRFTOKEN": token} if token else {}
    outer = local.endpoint_request(path, request, **meta)
    try:
        caller = endpoint.authenticate(outer)
        result = local.call_tool(
            outer, caller, name, arguments, endpoint=endpoint, protocol_version=version
        )
    except JSONRPCError as error:
        return {"error": error.error_object()}
    return {"result": result}


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
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Tool calls at a glance"),
            "call_log": mcp_settings.CALL_LOG,
            **overview.figures(request.GET.get("days")),
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
        return overview.outcome_badge(obj)

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
        return clip(obj.error_message, 60) if obj.error_message else "-"

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


def exposed_tool_link(name: str) -> str:
    """Return the tool's name, linked to its row of the exposed tools when it has one."""
    exposed = ExposedTool.objects.filter(name=name).values_list("pk", flat=True).first()
    if exposed is None:
        return name
    url = reverse("admin:mcp_tools_exposedtool_change", args=[exposed])
    return format_html('<a href="{}">{}</a>', url, name)


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
        return pretty(obj.result) if obj.result is not None else "-"

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
        who = request.user.get_username()
        message = str(_("Cancelled by %(user)s in the admin") % {"user": who})
        cancelled = 0
        for task in queryset.exclude(status__in=ToolTask.TERMINAL):
            if tasks.cancel(task, message):
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
