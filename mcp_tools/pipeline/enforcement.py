"""Output-schema enforcement: a successful result must match the schema its tool advertises.

The schema and its validator are resolved once per tool (``mcp_tools.schemas.output_schema``);
here each result is checked against them (docs/results.md, output schemas).
"""

from __future__ import annotations

from referencing.exceptions import Unresolvable

from ..protocol.results import ToolResult, text_block
from ..schemas.validators import error_message
from ..tools.tool import Tool

MISMATCH = "Output does not match the tool's output schema at {path}: {message}"
NO_STRUCTURED_MESSAGE = "the result has no structured content"


def enforce(tool: Tool, result: ToolResult) -> ToolResult:
    """Fail a successful result whose structured value breaks the advertised schema.

    The result returned names the advertised schema, which decides how projection wraps it.
    """
    if tool.output_schema is None:
        return result
    result.output_schema = tool.output_schema
    if result.is_error:
        return result
    if not result.has_structured:
        return _mismatch(result, [MISMATCH.format(path="$", message=NO_STRUCTURED_MESSAGE)])
    if tool.output_schema_error is not None:
        return _mismatch(result, [MISMATCH.format(path="$", message=tool.output_schema_error)])
    validator = tool.output_validator
    assert validator is not None, "a schema without an error has its validator (output_side)"
    try:
        errors = list(validator.iter_errors(result.structured_value()))
    except Unresolvable as exc:
        message = f"the schema is invalid: {exc}"
        return _mismatch(result, [MISMATCH.format(path="$", message=message)])
    if not errors:
        return result
    errors.sort(key=lambda error: (error.json_path, error.message))
    lines = [MISMATCH.format(path=e.json_path, message=error_message(e)) for e in errors]
    return _mismatch(result, lines)


def _mismatch(result: ToolResult, lines: list[str]) -> ToolResult:
    return ToolResult(content=[text_block("\n".join(lines))], meta=result.meta, is_error=True)
