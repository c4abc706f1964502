"""Admin forms: an exposed tool's overrides, and "Try it" arguments built from a schema."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.fields import InvalidJSONInput, JSONString
from django.utils.translation import gettext_lazy as _

from ..conf import mcp_settings
from ..models import ExposedTool
from ..pipeline import arguments
from ..protocol import jsonrpc
from ..protocol.content import check_tool_annotations
from ..protocol.versions import LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS, SUPPORTED_VERSIONS

#: Longest description an admin may write (tool descriptions are read by models: keep them
#: to what a context window can afford).
MAX_DESCRIPTION = 10_000


class CodeDefaultSelect(forms.NullBooleanSelect):
    """A yes/no switch whose third choice is "the code's choice" (stored as null)."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.choices = [
            ("unknown", _("The code's choice")),
            ("true", _("Yes")),
            ("false", _("No")),
        ]


class OmittableBooleanSelect(forms.NullBooleanSelect):
    """A yes/no argument a call may leave out: its first choice sends nothing."""

    def __init__(self, omitted: str, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.choices = [("unknown", omitted), ("true", _("Yes")), ("false", _("No"))]


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
            "pinned",
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


def choices_of(schema: dict[str, Any]) -> list[tuple[Any, str]] | None:
    """Return the values an argument may take with their labels, or None when it is free.

    ``oneOf``/``anyOf`` of ``const`` branches, labelled by their ``title`` (else the value),
    or else ``enum``, each value its own label. A null (a ``null`` branch or value) is left
    to the raw JSON: leaving the argument out is the form's empty choice.
    """
    for key in ("oneOf", "anyOf"):
        branches = [
            branch
            for branch in schema.get(key) or ()
            if not (
                isinstance(branch, dict)
                and (branch.get("type") == "null" or branch.get("const", 0) is None)
            )
        ]
        if branches and all(isinstance(branch, dict) and "const" in branch for branch in branches):
            return [(b["const"], str(b.get("title") or label_of(b["const"]))) for b in branches]
    if isinstance(schema.get("enum"), list):
        return [(value, label_of(value)) for value in schema["enum"] if value is not None]
    return None


def label_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


#: The longest string typed on one line; longer ones get a box.
MAX_ONE_LINE = 200

#: Placeholders for the string formats a person types in a text box.
FORMAT_PLACEHOLDERS = {
    "date": "2026-12-31",
    "date-time": "2026-12-31T23:59:00Z",
    "time": "23:59:00",
    "email": "name@example.com",
    "uri": "https://example.com/",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
}


def omitted_label(schema: dict[str, Any]) -> str:
    """Return the label of the choice that leaves an argument out of the call."""
    if "default" in schema:
        default = schema["default"]
        shown = {True: _("Yes"), False: _("No")}.get(default) if isinstance(default, bool) else None
        return str(_("Leave out (default: %(value)s)") % {"value": shown or label_of(default)})
    return str(_("Leave out (the view's default)"))


def field_for(name: str, schema: dict[str, Any], required: bool) -> forms.Field:
    """Return a form field for one argument; the server checks it against the schema.

    By its JSON type: a select of the labelled choices, a number box for an integer or a
    number, one line for a short string or a decimal (sent as its text), a box for long
    text, yes/no for a boolean (with "leave out" only when the call may leave it out), and
    the JSON of anything else (arrays, objects, unions).
    """
    common: dict[str, Any] = {
        "label": f"{name} ({_('required')})" if required else name,
        "required": False,  # the tool's own validation says what is missing, as it would
        "help_text": schema.get("description", ""),
    }
    types = _types(schema) - {"null"}
    choices = choices_of(schema)
    if choices is not None:
        first = str(_("Choose one")) if required else omitted_label(schema)
        options = [("", first)] + [(json.dumps(value), label) for value, label in choices]
        return forms.TypedChoiceField(choices=options, coerce=json.loads, **common)
    if types == {"boolean"}:
        if required:  # nothing to leave out: a choice to make
            return forms.TypedChoiceField(
                choices=[("", _("Choose one")), ("true", _("Yes")), ("false", _("No"))],
                coerce=lambda value: value == "true",
                **common,
            )
        return forms.NullBooleanField(
            widget=OmittableBooleanSelect(omitted_label(schema)), **common
        )
    if types == {"integer"}:
        return forms.IntegerField(
            min_value=schema.get("minimum"), max_value=schema.get("maximum"), **common
        )
    if types == {"number"}:
        return forms.FloatField(**common)
    if types and types <= {"string", "number", "integer"} and "string" in types:
        # A string, or a number that may come as its text (a decimal): one line, but for
        # text said to be long (a query's search term has no bound and is one line too).
        long_text = types == {"string"} and schema.get("maxLength", 0) > MAX_ONE_LINE
        attrs = {}
        if schema.get("format") in FORMAT_PLACEHOLDERS:
            attrs["placeholder"] = FORMAT_PLACEHOLDERS[schema["format"]]
        widget = forms.Textarea(attrs={"rows": 3}) if long_text else forms.TextInput(attrs=attrs)
        return forms.CharField(strip=False, widget=widget, **common)
    # Arrays, objects, unions: their JSON.
    return JSONValueField(widget=forms.Textarea(attrs={"rows": 3}), **common)


def version_label(version: str) -> str:
    """Return how the Try it page names a protocol version."""
    if version == LATEST_HANDSHAKE_VERSION:
        return str(_("%(version)s (most clients today)") % {"version": version})
    if version in MODERN_VERSIONS:
        return str(_("%(version)s (newest, no handshake)") % {"version": version})
    return version


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
        self.fields["protocol_version"] = forms.ChoiceField(
            label=_("Client protocol"),
            choices=[(version, version_label(version)) for version in SUPPORTED_VERSIONS],
            initial=LATEST_HANDSHAKE_VERSION,
            required=False,
            help_text=_(
                "The MCP version the call is made in: the result is shaped as a client of "
                "that version receives it."
            ),
        )

    def protocol_version(self) -> str:
        """Return the version to call in (the latest handshake one when none was chosen)."""
        return self.cleaned_data.get("protocol_version") or LATEST_HANDSHAKE_VERSION

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
