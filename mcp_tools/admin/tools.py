"""The exposed tools in Django admin: enable, retitle, restrict, inspect, Try it (docs/admin.md)."""

from __future__ import annotations

import json
import statistics
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import (
    Count,
    Max,
    OuterRef,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..catalog import sync, visibility
from ..catalog.admin_state import catalog_for
from ..conf import mcp_settings
from ..endpoint import local
from ..endpoint.exchange import Exchange
from ..endpoint.mounts import served_registries
from ..models import ExposedTool, ToolCall
from ..protocol.jsonrpc import INVALID_PARAMS, JSONRPCError
from ..protocol.results import ERROR_REF_META_KEY
from ..protocol.versions import LATEST_HANDSHAKE_VERSION, SUPPORTED_VERSIONS
from ..tools.tool import Tool
from .display import local_time, pretty, window_start
from .forms import ExposedToolForm, TryItForm
from .switches import save_each

#: How many recent calls of a tool its p50 duration is taken over.
P50_SAMPLE = 500


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


class HasErrorsFilter(admin.SimpleListFilter):
    title = _("errors in the window")
    parameter_name = "errors"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("With errors")), ("no", _("Without errors"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        failing = ToolCall.objects.filter(
            kind="tool", is_error=True, started_at__gte=window_start()
        )
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
    list_filter = ["enabled", "pinned", "registered", HasErrorsFilter, TagFilter]
    search_fields = ["name", "title", "description"]
    actions = ["enable_tools", "disable_tools", "pin_tools", "unpin_tools", "delete_selected"]
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
        (None, {"fields": ["name", "registered", "enabled", "pinned", "http"]}),
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
        calls = ToolCall.objects.filter(
            kind="tool", tool_name=OuterRef("name"), started_at__gte=window_start()
        )
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
                last_called=Subquery(
                    last_of(ToolCall.objects.filter(kind="tool", tool_name=OuterRef("name")))
                ),
                last_failed=Subquery(
                    last_of(
                        ToolCall.objects.filter(
                            kind="tool", tool_name=OuterRef("name"), is_error=True
                        )
                    )
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
            ToolCall.objects.filter(kind="tool", tool_name=obj.name, started_at__gte=window_start())
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

    @admin.action(
        description=_("Pin the selected tools (listed in discovery mode)"), permissions=["change"]
    )
    def pin_tools(self, request: HttpRequest, queryset: QuerySet) -> None:
        changed = self._set(request, queryset, "pinned", True)
        message = ngettext("%(count)d tool pinned.", "%(count)d tools pinned.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)

    @admin.action(description=_("Unpin the selected tools"), permissions=["change"])
    def unpin_tools(self, request: HttpRequest, queryset: QuerySet) -> None:
        changed = self._set(request, queryset, "pinned", False)
        message = ngettext("%(count)d tool unpinned.", "%(count)d tools unpinned.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)

    def _switch(self, request: HttpRequest, queryset: QuerySet, *, enabled: bool) -> None:
        changed = self._set(request, queryset, "enabled", enabled)
        message = ngettext("%(count)d tool enabled.", "%(count)d tools enabled.", changed)
        if not enabled:
            message = ngettext("%(count)d tool disabled.", "%(count)d tools disabled.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)

    def _set(self, request: HttpRequest, queryset: QuerySet, name: str, value: bool) -> int:
        return save_each(self, request, queryset, name, value)

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
            for cls in tool.declared("permission_classes") or ()
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
