"""Django admin for the exposed resources: switch them, word them, restrict them to groups
(docs/resources.md#admin), as the tools' admin does."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..endpoint.mounts import served_resource_registries
from ..models import ExposedResource
from .switches import save_each


@admin.register(ExposedResource)
class ExposedResourceAdmin(admin.ModelAdmin):
    list_display = ["name", "uri", "title", "enabled", "registered"]
    list_display_links = ["name"]
    list_filter = ["enabled", "registered"]
    search_fields = ["name", "uri", "title", "description"]
    actions = ["enable_resources", "disable_resources"]
    filter_horizontal = ["allowed_groups"]
    readonly_fields = ["name", "uri", "registered"]
    fieldsets = [
        (None, {"fields": ["name", "uri", "registered", "enabled"]}),
        (_("Overrides (left blank: the code's own)"), {"fields": ["title", "description"]}),
        (_("Who may read it"), {"fields": ["allowed_groups"]}),
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # rows come from the registry

    def has_delete_permission(
        self, request: HttpRequest, obj: ExposedResource | None = None
    ) -> bool:
        if obj is not None and obj.registered:
            return False  # the next sync would make it again, its rules lost
        return super().has_delete_permission(request, obj)

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "allowed_groups":
            kwargs["widget"] = FilteredSelectMultiple(_("groups"), is_stacked=False)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        # Resources added to the code since the last migrate show up at once. The sync loads
        # with the page, not as the admin starts in every worker.
        from ..resources.sync import sync_resources

        sync_resources(*served_resource_registries())
        return super().changelist_view(request, extra_context)

    @admin.action(description=_("Enable the selected resources"), permissions=["change"])
    def enable_resources(self, request: HttpRequest, queryset: QuerySet) -> None:
        changed = save_each(self, request, queryset, "enabled", True)
        message = ngettext("%(count)d resource enabled.", "%(count)d resources enabled.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)

    @admin.action(description=_("Disable the selected resources"), permissions=["change"])
    def disable_resources(self, request: HttpRequest, queryset: QuerySet) -> None:
        changed = save_each(self, request, queryset, "enabled", False)
        message = ngettext("%(count)d resource disabled.", "%(count)d resources disabled.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)
