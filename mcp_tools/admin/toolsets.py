"""Toolsets: named sets of tools a client picks by the endpoint's URL (docs/tools.md#toolsets)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from ..models import Toolset
from .forms import StrictJSONField


class ToolsetForm(forms.ModelForm):
    class Meta:
        model = Toolset
        fields = ["name", "title", "description", "tools", "tags"]
        field_classes = {"tags": StrictJSONField}
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "tags": forms.TextInput(attrs={"size": 60, "placeholder": '["orders", "billing"]'}),
        }

    def clean_tags(self) -> Any:
        tags = self.cleaned_data["tags"]
        return [] if tags in (None, "") else tags  # a cleared box: no tags


@admin.register(Toolset)
class ToolsetAdmin(admin.ModelAdmin):
    form = ToolsetForm
    list_display = ["name", "title", "tool_count", "shown_tags", "url"]
    search_fields = ["name", "title", "description"]
    readonly_fields = ["url"]
    fields = ["name", "url", "title", "description", "tools", "tags"]

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "tools":
            kwargs["widget"] = FilteredSelectMultiple(_("tools"), is_stacked=False)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).prefetch_related("tools")

    @admin.display(description=_("tools"))
    def tool_count(self, toolset: Toolset) -> int:
        return len(toolset.tools.all())

    @admin.display(description=_("tags"))
    def shown_tags(self, toolset: Toolset) -> str:
        return ", ".join(str(tag) for tag in toolset.tags or []) or "-"

    @admin.display(description=_("URL"))
    def url(self, toolset: Toolset) -> str:
        """Where a client connects for this toolset: the default endpoint's path form."""
        if not toolset.name:
            return "-"
        try:
            return reverse("mcp_tools:toolset", args=[toolset.name])
        except NoReverseMatch:
            return str(_("Mount mcp_tools.urls, or MCPView.as_view(toolset=...)."))
