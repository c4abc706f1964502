"""Prompts written in the admin: edited as JSON checked with clear errors, previewed filled
in with sample values, enabled and disabled row by row (docs/prompts.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..models import Prompt
from .display import pretty
from .forms import StrictJSONField
from .switches import save_each

if TYPE_CHECKING:  # the preview's modules load with the first preview, not as admin starts
    from ..prompts.messages import Argument

#: Characters of an image's base64 the preview shows.
SHOWN_IMAGE = 40
#: What the preview shows of a resource of this site, read as the client's user.
SITE_READ = _("(read from this site when a client gets the prompt, as that client's user)")


class PromptForm(forms.ModelForm):
    class Meta:
        model = Prompt
        fields = ["name", "title", "description", "enabled", "arguments", "messages"]
        field_classes = {"arguments": StrictJSONField, "messages": StrictJSONField}
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "arguments": forms.Textarea(attrs={"rows": 6, "cols": 80}),
            "messages": forms.Textarea(attrs={"rows": 12, "cols": 80}),
        }

    def clean_arguments(self) -> Any:
        arguments = self.cleaned_data["arguments"]
        return [] if arguments in (None, "") else arguments  # a cleared box: no arguments


def sample_values(arguments: list[Argument]) -> dict[str, str]:
    """Return the values the preview fills in: each argument's first choice, else its name
    in angle brackets, so that a filled placeholder is told from a left one."""
    return {
        argument.name: argument.choices[0] if argument.choices else f"<{argument.name}>"
        for argument in arguments
    }


def preview_of(prompt: Prompt) -> list[dict[str, Any]]:
    """Return the messages a client would get for the sample values (images shortened)."""
    from ..prompts.messages import check_arguments, render
    from ..prompts.static import read_static

    arguments = check_arguments(prompt.arguments)

    def image(path: str) -> bytes:
        data = read_static(path)
        if data is None:
            raise ValueError(f"no static file {path}")
        return data

    def site_read(uri: str) -> list[dict[str, Any]]:
        # Read at prompts/get, as its caller: no request here to read it as.
        return [{"uri": uri, "text": str(SITE_READ)}]

    rendered = render(prompt.messages, arguments, sample_values(arguments), image, site_read)
    for message in rendered:
        content = message["content"]
        if content["type"] == "image":
            content["data"] = content["data"][:SHOWN_IMAGE] + "…"
    return rendered


@admin.register(Prompt)
class PromptAdmin(admin.ModelAdmin):
    form = PromptForm
    list_display = ["name", "title", "enabled", "argument_names", "changed_at"]
    list_filter = ["enabled"]
    search_fields = ["name", "title", "description"]
    actions = ["enable_prompts", "disable_prompts"]
    filter_horizontal = ["allowed_groups"]
    readonly_fields = ["preview"]
    fieldsets = [
        (None, {"fields": ["name", "title", "description", "enabled", "allowed_groups"]}),
        (_("Content"), {"fields": ["arguments", "messages", "preview"]}),
    ]

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "allowed_groups":
            kwargs["widget"] = FilteredSelectMultiple(_("groups"), is_stacked=False)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description=_("arguments"))
    def argument_names(self, prompt: Prompt) -> str:
        names = [item.get("name", "?") for item in prompt.arguments if isinstance(item, dict)]
        return ", ".join(str(name) for name in names) or "-"

    @admin.display(description=_("preview"))
    def preview(self, prompt: Prompt) -> str:
        """The saved prompt's messages as ``prompts/get`` gives them, for sample values."""
        if prompt.pk is None:
            return str(_("Save the prompt to see its preview."))
        try:
            shown = pretty(preview_of(prompt))
        except (ValueError, KeyError, TypeError) as exc:
            return str(_("No preview: %(reason)s") % {"reason": exc})
        from ..prompts.messages import check_arguments  # loaded by preview_of() by now

        values = sample_values(check_arguments(prompt.arguments))
        return format_html(
            '<div class="mcp-prompt-preview"><p>{}</p>{}<p>{}</p>{}</div>',
            _("Sample values:"),
            pretty(values),
            _("What prompts/get gives:"),
            shown,
        )

    # -- actions ----------------------------------------------------------------------------

    @admin.action(description=_("Enable the selected prompts"), permissions=["change"])
    def enable_prompts(self, request: HttpRequest, queryset: QuerySet) -> None:
        changed = save_each(self, request, queryset, "enabled", True)
        message = ngettext("%(count)d prompt enabled.", "%(count)d prompts enabled.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)

    @admin.action(description=_("Disable the selected prompts"), permissions=["change"])
    def disable_prompts(self, request: HttpRequest, queryset: QuerySet) -> None:
        changed = save_each(self, request, queryset, "enabled", False)
        message = ngettext("%(count)d prompt disabled.", "%(count)d prompts disabled.", changed)
        self.message_user(request, message % {"count": changed}, messages.SUCCESS)
