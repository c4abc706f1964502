"""Output-schema enforcement (docs/results.md, output schemas): a result must match its schema.

Tools are built as tests/schemas/test_output_schema.py builds them.
"""

import pytest

from mcp_tools.pipeline.enforcement import enforce
from mcp_tools.protocol.jsonrpc import RawJSON
from mcp_tools.protocol.results import ToolResult, text_block
from tests.schemas.test_output_schema import ITEM_SCHEMA, api_view_class, resolved


@pytest.fixture
def count_tool(settings):
    schema = {
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["count"],
    }
    return resolved(settings, api_view_class("Q"), output_schema=schema, include_output_schema=True)


PREFIX = "Output does not match the tool's output schema at "
ENFORCED = [
    ("conforming raw JSON", ToolResult([text_block("x")], RawJSON('{"count": 2}')), None),
    ("conforming Python value", ToolResult([text_block("x")], {"count": 0}), None),
    (
        "wrong type",
        ToolResult([], RawJSON('{"count": "2"}')),
        [f"{PREFIX}$.count: \"2\" is not of type 'integer'"],
    ),
    (
        "two problems, one line each",
        ToolResult([], {"count": -1, "tags": [1]}),
        [
            f"{PREFIX}$.count: -1 is less than the minimum of 0",
            f"{PREFIX}$.tags[0]: 1 is not of type 'string'",
        ],
    ),
    ("missing field", ToolResult([], {}), [f'{PREFIX}$: "count" is a required property']),
    (
        "no structured value (text)",
        ToolResult([text_block("hi")]),
        [f"{PREFIX}$: the result has no structured content"],
    ),
    (
        "no structured value (204)",
        ToolResult([]),
        [f"{PREFIX}$: the result has no structured content"],
    ),
    (
        "an array where an object is due",
        ToolResult([], RawJSON("[1]")),
        [f"{PREFIX}$: [1] is not of type 'object'"],
    ),
]


@pytest.mark.parametrize(("case", "result", "lines"), ENFORCED, ids=[c[0] for c in ENFORCED])
def test_enforcement(count_tool, case, result, lines):
    enforced = enforce(count_tool, result)
    if lines is None:
        assert enforced is result and not enforced.is_error
    else:
        assert enforced.is_error is True
        assert enforced.has_structured is False
        assert enforced.texts() == ["\n".join(lines)]


def test_enforcement_is_skipped_on_the_error_path(count_tool):
    result = ToolResult.error("No count today.")
    assert enforce(count_tool, result) is result


def test_enforcement_needs_an_advertised_schema(settings):
    tool = resolved(settings, api_view_class("R"), output_schema={"type": "object"})
    result = ToolResult([text_block("text only")])
    assert enforce(tool, result) is result


def test_the_validator_is_compiled_once_per_tool(settings, monkeypatch):
    from mcp_tools.tools import definitions

    built = []
    real = definitions.build_validator
    monkeypatch.setattr(definitions, "build_validator", lambda s: built.append(s) or real(s))
    tool = resolved(
        settings, api_view_class("Q2"), output_schema=ITEM_SCHEMA, include_output_schema=True
    )
    for _ in range(3):
        enforce(tool, ToolResult([], {"id": 1, "name": "a", "price": "1.00"}))
    assert len(built) == 1


def test_an_invalid_schema_is_a_tool_error_not_a_crash(settings):
    tool = resolved(
        settings, api_view_class("S"), output_schema={"type": "nope"}, include_output_schema=True
    )
    result = enforce(tool, ToolResult([], {"a": 1}))
    assert result.is_error and result.texts()[0].startswith(f"{PREFIX}$: the schema is invalid")
