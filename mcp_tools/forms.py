"""Admin forms: an exposed tool's overrides, and "Try it" arguments built from a schema."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.fields import InvalidJSONInput, JSONString
from django.utils.translation import gettext_lazy as _

from . import arguments
from .conf import mcp_settings
from .models import ExposedTool
from .protocol import jsonrpc
from .protocol.content import check_tool_annotations

#: Longest description an admin may write (tool descriptions are read by models: keep them
#: to what a context window can afford).
MAX_DESCRIPTION = 10_000


class CodeDefaultSelect(forms.NullBooleanSelect):
    """A yes/no switch whose third choice is "as the code says" (stored as null)."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.choices = [
            ("unknown", _("As the code says")),
            ("true", _("Yes")),
            ("false", _("No")),
        ]


class StrictJSONField(forms.JSONField):
    """A JSON field read as the endpoint reads a request body: strict, nested at most
    ``MAX_JSON_DEPTH`` deep (Django's own field takes ``NaN`` and recurses without bound)."""

    def parse(self, text: str) -> Any:
        return jsonrpc.decode(text, max_depth=mcp_settings.MAX_JSON_DEPTH)

    def to_python(self, value: Any) -> Any:
        if self.disabled or value in self.empty_values or not isinstance(value, str):
            return super().to_python(value)
        try:
            converted = self.parse(value)
        except jsonrpc.NotStrictJSON as exc:
            # Where bad JSON went wrong, the admin can fix it.
            cause = exc.__cause__
            reason = cause if isinstance(cause, json.JSONDecodeError) else exc
            raise ValidationError(
                _("Enter a valid JSON: %(reason)s."), code="invalid", params={"reason": reason}
            ) from None
        return JSONString(converted) if isinstance(converted, str) else converted

    def bound_data(self, data: Any, initial: Any) -> Any:
        if self.disabled or not isinstance(data, str):
            return super().bound_data(data, initial)
        try:
            return self.parse(data)
        except jsonrpc.NotStrictJSON:
            return InvalidJSONInput(data)


class ExposedToolForm(forms.ModelForm):
    """The overrides of one tool, each checked as the protocol defines it."""

    class Meta:
        model = ExposedTool
        fields = [
            "enabled",
            "title",
            "description",
            "annotations",
            "include_structured_content",
            "include_output_schema",
            "allowed_groups",
        ]
        field_classes = {"annotations": StrictJSONField}
        widgets = {
            "include_structured_content": CodeDefaultSelect,
            "include_output_schema": CodeDefaultSelect,
            "description": forms.Textarea(attrs={"rows": 4}),
            "annotations": forms.Textarea(attrs={"rows": 4}),
        }

    def clean_title(self) -> str:
        title = self.cleaned_data["title"].strip()
        if any(not character.isprintable() for character in title):
            raise ValidationError(_("A title is one line of printable text."))
        return title

    def clean_description(self) -> str:
        description = self.cleaned_data["description"].strip()
        if len(description) > MAX_DESCRIPTION:
            raise ValidationError(
                _("A description has at most %(limit)d characters."),
                params={"limit": MAX_DESCRIPTION},
            )
        return description

    def clean_annotations(self) -> Any:
        annotations = self.cleaned_data["annotations"]
        if annotations in (None, ""):
            return {}
        try:
            check_tool_annotations(annotations)
        except ValueError as exc:
            raise ValidationError(str(exc)) from exc
        return annotations


class JSONValueField(StrictJSONField):
    """Arguments as JSON, read as ``mcp_call --args`` is; nothing shown when they hold nothing."""

    def parse(self, text: str) -> Any:
        return arguments.loads(text)

    def prepare_value(self, value: Any) -> Any:
        return "" if value is None else super().prepare_value(value)


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    return {declared} if isinstance(declared, str) else set(declared or ())


def field_for(name: str, schema: dict[str, Any], required: bool) -> forms.Field:
    """Return a form field for one argument; the server checks it against the schema."""
    label = f"{name} *" if required else name
    common: dict[str, Any] = {
        "label": label,
        "required": False,  # the tool's own validation says what is missing, as it would
        "help_text": schema.get("description", ""),
    }
    types = _types(schema) - {"null"}
    labelled = schema.get("oneOf")
    if isinstance(labelled, list) and labelled and all("const" in each for each in labelled):
        # A labelled choice (docs/tools.md): its values, shown by their titles.
        options = [
            (json.dumps(each["const"]), str(each.get("title", each["const"]))) for each in labelled
        ]
        choices = [("", "---------"), *options]
        return forms.TypedChoiceField(choices=choices, coerce=json.loads, **common)
    if "enum" in schema:
        choices = [("", "---------")] + [(json.dumps(v), str(v)) for v in schema["enum"]]
        return forms.TypedChoiceField(choices=choices, coerce=json.loads, **common)
    if types == {"boolean"}:
        return forms.NullBooleanField(widget=CodeDefaultSelect(), **{**common, "label": label})
    if types == {"integer"}:
        return forms.IntegerField(
            min_value=schema.get("minimum"), max_value=schema.get("maximum"), **common
        )
    if types == {"number"}:
        return forms.FloatField(**common)
    if types <= {"string"} and types:
        # One line for short or patterned values (names, ids, path parts); else a box.
        short = schema.get("maxLength", 201) <= 200 or "pattern" in schema or "format" in schema
        widget = forms.TextInput if short else forms.Textarea(attrs={"rows": 3})
        return forms.CharField(strip=False, widget=widget, **common)
    # Arrays, objects, unions: their JSON.
    return JSONValueField(widget=forms.Textarea(attrs={"rows": 3}), **common)


class TryItForm(forms.Form):
    """Arguments for one call of a tool: a field per argument, or all of them as JSON."""

    raw = JSONValueField(
        label=_("Arguments as JSON"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": '{"name": "value"}'}),
        help_text=_(
            "When given, these arguments are sent as they are and the fields above are ignored."
        ),
    )

    def __init__(self, schema: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        required = set(schema.get("required", ()))
        raw = self.fields.pop("raw")
        self.argument_fields: dict[str, str] = {}
        for name, property_schema in (schema.get("properties") or {}).items():
            key = f"argument_{name}"
            self.fields[key] = field_for(name, property_schema, name in required)
            self.argument_fields[key] = name
        self.fields["raw"] = raw

    def clean_raw(self) -> Any:
        raw = self.cleaned_data["raw"]
        if raw is not None and not isinstance(raw, dict):
            raise ValidationError(_("The arguments are a JSON object."))
        return raw

    def arguments(self) -> dict[str, Any]:
        """Return the arguments to send: the JSON given, else every field filled in."""
        if self.cleaned_data.get("raw") is not None:
            return self.cleaned_data["raw"]
        return {
            name: self.cleaned_data[key]
            for key, name in self.argument_fields.items()
            if self.cleaned_data.get(key) not in (None, "")
        }
