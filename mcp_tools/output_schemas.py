"""Output schemas: which a tool advertises, where it comes from, and its enforcement (§4.5).

A tool's schema is the decorator's ``output_schema`` (a dict, a Serializer class or
instance), else the schema of what the view's serializer renders (a list action's page or
array as the view returns it). It is kept unwrapped; projection wraps non-object schemas
and values together for protocol versions that need objects.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable
from rest_framework import fields, serializers
from rest_framework.mixins import ListModelMixin
from rest_framework.settings import api_settings

from . import schemas
from .conf import mcp_settings
from .results import ToolResult, text_block

if TYPE_CHECKING:
    from .tools import Tool

logger = logging.getLogger("mcp_tools")

Schema = dict[str, Any]

MISMATCH = "Output does not match the tool's output schema at {path}: {message}"
NO_STRUCTURED_MESSAGE = "the result has no structured content"
INPUT_ONLY = frozenset({"default", "pattern", "minLength", "maxLength", "minimum", "maximum"})


# -- switches ---------------------------------------------------------------------------------


def include_output_schema(tool: Tool) -> bool:
    """Return whether the tool advertises an output schema (decorator, else setting)."""
    declared = tool.options.include_output_schema
    return bool(mcp_settings.INCLUDE_OUTPUT_SCHEMA if declared is None else declared)


def declared_structured_content(tool: Tool) -> bool:
    """Return ``include_structured_content`` as declared (decorator, else setting)."""
    declared = tool.options.include_structured_content
    return bool(mcp_settings.INCLUDE_STRUCTURED_CONTENT if declared is None else declared)


def include_structured_content(tool: Tool) -> bool:
    """Return whether results carry structuredContent; an output schema forces it on."""
    declared = declared_structured_content(tool)
    if declared or not include_output_schema(tool):
        return declared
    # Forced on: an advertised schema without structured content is a promise every result
    # breaks. Logged once per tool, not on every call.
    if not getattr(tool, "_mcp_forced_structured_logged", False):
        logger.warning(
            "Tool %s: include_output_schema forces include_structured_content on", tool.name
        )
        tool._mcp_forced_structured_logged = True  # type: ignore[attr-defined]
    return True


def advertised_schema(tool: Tool) -> Schema | None:
    """Return the unwrapped ``outputSchema`` the tool advertises, or None."""
    if not include_output_schema(tool):
        return None
    try:
        return tool.output_schema
    except TypeError:
        # A wrong output_schema= (system check mcp_tools.E020): advertise nothing rather
        # than fail tools/list for every tool.
        logger.exception("Tool %s: output_schema is not usable", tool.name)
        return None


# -- resolution -------------------------------------------------------------------------------


def resolve_output_schema(tool: Tool) -> Schema | None:
    """Return the tool's output schema from the decorator or the view, or None if unknown."""
    declared = tool.options.output_schema
    if isinstance(declared, dict):
        return dict(declared)
    if isinstance(declared, type) and issubclass(declared, serializers.BaseSerializer):
        return serializer_output_schema(declared())
    if isinstance(declared, serializers.BaseSerializer):
        return serializer_output_schema(declared)
    if declared is not None:
        raise TypeError(
            f"output_schema of tool {tool.name} must be a JSON Schema dict or a Serializer "
            f"class, not {type(declared).__name__}"
        )
    return view_output_schema(tool)


def view_output_schema(tool: Tool) -> Schema | None:
    """Return the schema of what the view's serializer renders for this tool, if known."""
    view_class = tool.view_class
    if tool.method == "DELETE":
        return None  # DRF's destroy answers 204 with no body
    view = view_class(**getattr(tool.callback, "initkwargs", {}))
    view.action = tool.action  # type: ignore[attr-defined]
    view.request = None  # type: ignore[assignment]
    view.format_kwarg = None
    view.args, view.kwargs = (), {}
    get_serializer_class = getattr(view, "get_serializer_class", None)
    if get_serializer_class is None:
        return None
    try:
        serializer_class = get_serializer_class()
    except Exception:
        return None  # needs a request; a system check reports such serializers
    if serializer_class is None:
        return None
    item = serializer_output_schema(serializer_class())
    if not _is_list(tool):
        return item
    array: Schema = {"type": "array", "items": item}
    paginator = getattr(view, "paginator", None)
    if paginator is None:
        return array
    page_schema = getattr(paginator, "get_paginated_response_schema", None)
    if page_schema is None:
        return None  # a paginator that does not describe its page: shape unknown
    return schemas.openapi_to_json_schema(page_schema(array))


def _is_list(tool: Tool) -> bool:
    if tool.action is not None:
        return tool.action == "list"
    return tool.method == "GET" and issubclass(tool.view_class, ListModelMixin)


def serializer_output_schema(
    serializer: serializers.BaseSerializer, _seen: tuple[type, ...] = ()
) -> Schema:
    """Return the schema of what ``serializer`` renders (its readable fields)."""
    if isinstance(serializer, serializers.ListSerializer):
        child = serializer.child
        items = _field_output_schema(child, _seen) if child is not None else {}
        return {"type": "array", "items": items}
    if not isinstance(serializer, serializers.Serializer) or type(serializer) in _seen:
        # A serializer without declared fields, or a recursion: any value from here down.
        return {}
    seen = (*_seen, type(serializer))
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for name, field in serializer.fields.items():
        if field.write_only:
            continue
        properties[name] = _field_output_schema(field, seen)
        # Read-only and required fields are always rendered; an optional one may be skipped
        # when its source attribute is missing.
        if field.read_only or field.required:
            required.append(name)
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _field_output_schema(field: fields.Field, seen: tuple[type, ...]) -> Schema:
    if isinstance(field, serializers.BaseSerializer):
        schema = serializer_output_schema(field, seen)
        return schemas._nullable(schema) if field.allow_null and schema else schema
    if isinstance(field, fields.FileField):
        return {"type": ["string", "null"]}  # the file's URL or name, or null
    if isinstance(field, fields.DecimalField):
        # Rendered as a string (COERCE_DECIMAL_TO_STRING) or a number, never both.
        as_string = getattr(field, "coerce_to_string", api_settings.COERCE_DECIMAL_TO_STRING)
        schema = {"type": "string" if as_string else "number"}
        return schemas._nullable(schema) if field.allow_null else schema
    try:
        described = schemas.field_schema(field)
    except Exception:
        # A field the input mapper can't describe still renders something: accept any value.
        logger.debug("No output schema for field %r", field, exc_info=True)
        return {}
    # The input mapper's schema, without what only input validation enforces: a rendered
    # value is not re-validated by DRF (a stored title may be longer than today's max_length).
    return {k: v for k, v in described.items() if k not in INPUT_ONLY}


def build_validator(schema: Schema) -> Draft202012Validator:
    """Compile a validator once; the schema is checked here, not on every call."""
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


# -- enforcement ------------------------------------------------------------------------------


def enforce(tool: Tool, result: ToolResult) -> ToolResult:
    """Fail a successful result whose structured value breaks the advertised schema."""
    if result.is_error or advertised_schema(tool) is None:
        return result
    if not result.has_structured:
        return _mismatch(result, [MISMATCH.format(path="$", message=NO_STRUCTURED_MESSAGE)])
    try:
        validator = tool.output_validator
        errors = list(validator.iter_errors(result.structured_value()))
    except (SchemaError, Unresolvable) as exc:
        message = f"the schema is invalid: {getattr(exc, 'message', exc)}"
        return _mismatch(result, [MISMATCH.format(path="$", message=message)])
    if not errors:
        return result
    errors.sort(key=lambda error: (error.json_path, error.message))
    return _mismatch(
        result, [MISMATCH.format(path=error.json_path, message=error.message) for error in errors]
    )


def _mismatch(result: ToolResult, lines: list[str]) -> ToolResult:
    return ToolResult(content=[text_block("\n".join(lines))], meta=result.meta, is_error=True)
