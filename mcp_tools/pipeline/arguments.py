"""Tool arguments: leniently coerced, checked against the inputSchema, split into path, query, body.

Some clients send every argument as a string (``"3"``, ``"true"``, ``"[1, 2]"``). A string
that encodes the JSON type the schema declares is converted before validation, and so is a
number where only a string is declared; anything else is left for validation to report.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from jsonschema import ValidationError
from rest_framework.settings import api_settings

from ..conf import mcp_settings
from ..protocol import jsonrpc
from ..schemas.validators import error_message
from ..tools.tool import Tool

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
    "string": (str,),
}


@dataclass
class SplitArguments:
    """Arguments sorted by where they go in the view's request."""

    path: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: dict[str, Any] | None = None


def declared_types(schema: object) -> set[str]:
    """Return the JSON types ``schema`` admits by ``type``, ``enum`` or ``anyOf``."""
    if not isinstance(schema, dict):
        return set()
    declared = schema.get("type")
    types = {declared} if isinstance(declared, str) else set(declared or ())
    for value in schema.get("enum", ()):
        types.update(name for name, py in _JSON_TYPES.items() if _is_type(value, name))
    for branch in schema.get("anyOf", ()):
        types |= declared_types(branch)
    return types


def _is_type(value: object, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES[name])


#: The levels of a request body above its arguments: the message and its ``params``.
ENVELOPE_DEPTH = 2


def loads(text: str) -> object:
    """Decode arguments given as JSON text (``mcp_call --args``, Try it) as a body is read.

    As strictly as the endpoint reads a request body (``jsonrpc.decode``: no ``NaN``, no
    key twice, no lone surrogate), nested no deeper than arguments may sit in a body of
    ``MAX_JSON_DEPTH``, and Unicode text: a command line's undecodable bytes arrive as lone
    surrogates, which no body can hold. Raises ``jsonrpc.NotStrictJSON``.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise jsonrpc.LoneSurrogate(
            "the text holds a lone UTF-16 surrogate, which is not Unicode text"
        ) from exc
    try:
        return jsonrpc.decode(text, max_depth=mcp_settings.MAX_JSON_DEPTH - ENVELOPE_DEPTH)
    except jsonrpc.NotStrictJSON as exc:
        if isinstance(exc.__cause__, json.JSONDecodeError):
            # Where the text went wrong: the operator can fix it.
            raise jsonrpc.NotStrictJSON(str(exc.__cause__)) from exc
        raise


def coerce_value(value: object, schema: object) -> Any:
    """Return ``value``, or the JSON it encodes when it is a string of a declared type.

    A number where only a string is declared becomes its JSON text (``1`` → ``"1"``), as
    DRF's ``CharField`` reads it: the ids a tool returns go back into a string lookup.
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        types = declared_types(schema)
        if "string" in types and not types & {"integer", "number"}:
            return json.dumps(value)
        return value
    if isinstance(value, str):
        types = declared_types(schema)
        if "string" in types or not types:
            return value
        try:
            # As strictly as the body itself: a string can't smuggle in what the body can't.
            decoded = jsonrpc.decode(value, max_depth=mcp_settings.MAX_JSON_DEPTH)
        except jsonrpc.NotStrictJSON:
            return value
        if any(_is_type(decoded, name) for name in types):
            return coerce_value(decoded, schema)
        return value
    if isinstance(value, dict) and isinstance(schema, dict):
        properties = schema.get("properties") or {}
        return {key: coerce_value(item, properties.get(key)) for key, item in value.items()}
    if isinstance(value, list) and isinstance(schema, dict):
        items = schema.get("items")
        return [coerce_value(item, items) for item in value] if items else value
    return value


def coerce(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Return the arguments with JSON-encoding strings converted to their declared types
    (a folded lookup variant's as its filter's, ``Tool.argument_schema``)."""
    return coerce_value(arguments, tool.argument_schema)


def check(tool: Tool, arguments: dict[str, Any]) -> tuple[list[str], SplitArguments]:
    """Convert the arguments once and check them; return their problems and, split, where
    they go (path, query, body)."""
    if not arguments and tool.takes_no_arguments:
        return [], SplitArguments(body={} if tool.has_body else None)
    limit = mcp_settings.MAX_ARGUMENTS
    if len(arguments) > limit:
        # Before anything reads them: each would cost a conversion and a validation line.
        line = f"Invalid arguments: $: {len(arguments)} arguments; at most {limit} are accepted"
        return [line], SplitArguments()
    arguments = coerce(tool, arguments)
    split = _split(tool, arguments)
    return _problems(tool, arguments) + _url_problems(tool, split), split


def _url_problems(tool: Tool, split: SplitArguments) -> list[str]:
    """Bound what path and query arguments put in the view's URL, as HTTP would bound it.

    An HTTP server bounds a request line (gunicorn: 4,094 bytes) and Django the fields of a
    query string (``DATA_UPLOAD_MAX_NUMBER_FIELDS``); a tool call has no server in between,
    so the same bounds hold here: ``MAX_URL_ARGUMENT_LENGTH`` characters per value and
    ``MAX_ARGUMENTS`` fields.
    """
    lines = []
    length = mcp_settings.MAX_URL_ARGUMENT_LENGTH
    fields = 0
    for name, value in [*split.path.items(), *split.query.items()]:
        texts = query_value(value) if name in split.query else [str(value)]
        fields += len(texts) if name in split.query else 0
        longest = max(map(len, texts), default=0)
        if longest > length:
            lines.append(
                f"Invalid arguments: $.{name}: {longest} characters; "
                f"a URL argument takes at most {length}"
            )
    if fields > mcp_settings.MAX_ARGUMENTS:
        lines.append(
            f"Invalid arguments: $: the arguments make {fields} query-string fields; "
            f"at most {mcp_settings.MAX_ARGUMENTS} are accepted"
        )
    override = api_settings.URL_FORMAT_OVERRIDE
    if (
        override
        and override in split.query
        and override not in tool.input_schema.get("properties", {})
    ):
        # The view's renderer is its author's choice: ?format=api would answer its HTML page.
        lines.append(
            f"Invalid arguments: $.{override}: DRF reads it to choose the view's renderer; "
            "it is not an argument of this tool"
        )
    return lines


def problems(tool: Tool, arguments: dict[str, Any]) -> list[str]:
    """Return one ``Invalid arguments: <json path>: <message>`` line per problem."""
    return _problems(tool, coerce(tool, arguments))


#: At most this many problem lines, each at most ``MAX_LINE`` characters: what a refusal
#: echoes stays small whatever the arguments hold (200,000 wrong items, a 1 MiB string).
MAX_LINES = 50
MAX_LINE = 400


def _problems(tool: Tool, arguments: dict[str, Any]) -> list[str]:
    return validator_problems(tool.validator, arguments)


def validator_problems(validator: Any, arguments: object) -> list[str]:
    """Return one bounded ``Invalid arguments`` line per problem ``validator`` (a jsonschema
    validator) finds: a tool's, or one of discovery mode's own tools'."""
    # A few more errors than lines are read: duplicates and restated lengths drop out, and
    # reading all of them would build an error object per wrong item.
    errors = list(itertools.islice(validator.iter_errors(arguments), 2 * MAX_LINES + 1))
    lines = {
        _line(f"Invalid arguments: {error.json_path}: {error_message(error)}"): None
        for error in sorted(errors, key=_error_order)
        if not _said_already(error)
    }
    shown = list(lines)[:MAX_LINES]
    if len(lines) > MAX_LINES or len(errors) > 2 * MAX_LINES:
        shown.append(f"Invalid arguments: $: more problems than these {len(shown)} (not shown)")
    return shown


def _line(text: str) -> str:
    """Cut the middle out of a long line: it starts with the argument, ends with the rule."""
    if len(text) <= MAX_LINE:
        return text
    half = (MAX_LINE - 1) // 2
    return f"{text[:half]}…{text[-half:]}"


def _error_order(error: ValidationError) -> tuple[str, int, str]:
    # Per argument, the length rules before the pattern that restates them.
    return (error.json_path, error.validator == "pattern", error.message)


def _said_already(error: ValidationError) -> bool:
    """A trimmed-length pattern restates minLength: keep only the minLength line."""
    if error.validator != "pattern" or not isinstance(error.instance, str):
        return False
    schema = error.schema if isinstance(error.schema, dict) else {}
    return "\u0000" not in error.instance and len(error.instance) < schema.get("minLength", 0)


def split(tool: Tool, arguments: dict[str, Any]) -> SplitArguments:
    """Path parameters fill the URL; query parameters (and every other argument of a method
    without a body) the query string; the rest the JSON body."""
    return _split(tool, coerce(tool, arguments))


def _split(tool: Tool, arguments: dict[str, Any]) -> SplitArguments:
    result = SplitArguments(body={} if tool.has_body else None)
    for name, value in arguments.items():
        if name in tool.path_params:
            result.path[name] = value
        elif result.body is not None and name not in tool.query_params:
            result.body[name] = value
        else:
            result.query[name] = value
    return result


def query_value(value: object) -> list[str]:
    """Return the query-string form of one argument (lists repeat the key)."""
    if value is None:
        return []
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, list | tuple):
        return [item for element in value for item in query_value(element)]
    if isinstance(value, dict):
        return [json.dumps(value, separators=(",", ":"))]
    return [str(value)]
