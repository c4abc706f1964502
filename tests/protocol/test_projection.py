"""Projection of one internal model onto each protocol version's wire form (docs/protocol.md)."""

from __future__ import annotations

import pytest

from mcp_tools.protocol.jsonrpc import RawJSON, encode
from mcp_tools.protocol.projection import project, project_progress, project_result, project_tool
from mcp_tools.protocol.results import ToolResult
from tests.wire import validator

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

TOOL = {
    "name": "thing_get",
    "title": "Get thing",
    "description": "Get one thing.",
    "inputSchema": {"type": "object", "properties": {}},
    "outputSchema": {"type": "array", "items": {"type": "integer"}},
    "annotations": {"readOnlyHint": True},
    "icons": [{"src": "https://example.com/i.png", "mimeType": "image/png"}],
    "execution": {"taskSupport": "forbidden"},
    "_meta": {"example.com/k": 1},
}


@pytest.mark.parametrize(
    ("version", "keys", "annotations"),
    [
        ("2024-11-05", {"name", "description", "inputSchema"}, None),
        (
            "2025-03-26",
            {"name", "description", "inputSchema", "annotations"},
            {"title": "Get thing", "readOnlyHint": True},
        ),
        (
            "2025-06-18",
            {"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"},
            {"readOnlyHint": True},
        ),
        (
            "2025-11-25",
            {
                "name",
                "title",
                "description",
                "inputSchema",
                "outputSchema",
                "annotations",
                "icons",
                "execution",
                "_meta",
            },
            {"readOnlyHint": True},
        ),
        (
            "2026-07-28",
            {
                "name",
                "title",
                "description",
                "inputSchema",
                "outputSchema",
                "annotations",
                "icons",
                "_meta",
            },
            {"readOnlyHint": True},
        ),
    ],
)
def test_a_tool_keeps_only_the_fields_its_version_knows(version, keys, annotations):
    tool = project_tool(TOOL, version)
    assert set(tool) == keys
    assert tool.get("annotations") == annotations
    validator(version, "Tool").validate(tool)


@pytest.mark.parametrize(
    ("version", "schema"),
    [
        ("2025-06-18", {"type": "object", "properties": {"items": TOOL["outputSchema"]}}),
        ("2025-11-25", {"type": "object", "properties": {"items": TOOL["outputSchema"]}}),
        ("2026-07-28", TOOL["outputSchema"]),
    ],
)
def test_output_schemas_are_wrapped_with_their_values_before_2026(version, schema):
    projected = project_tool(TOOL, version)["outputSchema"]
    assert {key: projected[key] for key in ("type", "properties") if key in schema} == {
        key: schema[key] for key in ("type", "properties") if key in schema
    }


def test_the_internal_definition_is_never_mutated():
    before = {**TOOL, "annotations": dict(TOOL["annotations"])}
    for version in VERSIONS:
        project_tool(TOOL, version)
    assert before == TOOL


@pytest.mark.parametrize(
    ("value", "wrapped"),
    [
        ({"a": 1}, {"a": 1}),
        ([1, 2], {"items": [1, 2]}),
        ("text", {"result": "text"}),
        (3, {"result": 3}),
        (None, {"result": None}),
        (False, {"result": False}),
        (RawJSON("[1]"), {"items": [1]}),
        (RawJSON('{"a":1}'), {"a": 1}),
        (RawJSON('"s"'), {"result": "s"}),
    ],
)
def test_structured_values_are_wrapped_before_2026_and_kept_as_they_are_in_2026(value, wrapped):
    result = ToolResult(content=[{"type": "text", "text": "x"}], structured=value)
    assert encode(project_result(result, "2025-11-25")["structuredContent"]) == encode(wrapped)
    modern = project(result, "2026-07-28", {"name": "s", "version": "1"})
    assert encode(modern["structuredContent"]) == encode(value)
    assert modern["resultType"] == "complete"
    assert "structuredContent" not in project_result(result, "2025-03-26")


BLOCKS = [
    {"type": "text", "text": "hi", "annotations": {"priority": 1, "lastModified": "2026-01-01"}},
    {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
    {"type": "resource_link", "uri": "https://example.com/r", "name": "report"},
    {"type": "image", "data": "AAAA", "mimeType": "image/png", "_meta": {"example.com/k": 1}},
    {"type": "resource", "resource": {"uri": "test://r", "text": "t", "_meta": {"a": 1}}},
]


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (
            "2024-11-05",
            [
                {"type": "text", "text": "hi", "annotations": {"priority": 1}},
                {
                    "type": "text",
                    "text": "Audio content (audio/wav) is not supported by this protocol version",
                },
                {"type": "text", "text": "Resource: report https://example.com/r"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://r", "text": "t"}},
            ],
        ),
        (
            "2025-03-26",
            [
                {"type": "text", "text": "hi", "annotations": {"priority": 1}},
                BLOCKS[1],
                {"type": "text", "text": "Resource: report https://example.com/r"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://r", "text": "t"}},
            ],
        ),
        ("2025-06-18", BLOCKS),
        ("2025-11-25", BLOCKS),
        ("2026-07-28", BLOCKS),
    ],
)
def test_content_blocks_are_rewritten_for_versions_that_lack_them(version, expected):
    result = ToolResult(content=BLOCKS, meta={"example.com/m": 1})
    wire = project(result, version, {"name": "s", "version": "1"})
    assert wire["content"] == expected
    assert wire["isError"] is False
    validator(version, "CallToolResult").validate(wire)


@pytest.mark.parametrize("version", VERSIONS)
def test_an_error_result_never_carries_structured_content(version):
    result = ToolResult(
        content=[{"type": "text", "text": "no"}], structured={"a": 1}, is_error=True
    )
    wire = project_result(result, version)
    assert "structuredContent" not in wire and wire["isError"] is True


@pytest.mark.parametrize(
    ("version", "kept"),
    [
        ("2025-11-25", {"tools"}),
        ("2026-07-28", {"tools", "ttlMs", "cacheScope", "resultType", "_meta"}),
    ],
)
def test_modern_only_result_fields_are_dropped_before_2026(version, kept):
    result = {"tools": [], "ttlMs": 1, "cacheScope": "public", "resultType": "complete"}
    assert set(project(result, version, {"name": "s", "version": "1"})) == kept


@pytest.mark.parametrize(
    ("version", "keys"),
    [
        ("2024-11-05", {"progressToken", "progress"}),
        ("2025-03-26", {"progressToken", "progress", "message"}),
    ],
)
def test_progress_messages_are_dropped_where_the_version_has_none(version, keys):
    assert (
        set(project_progress({"progressToken": 1, "progress": 0, "message": "m"}, version)) == keys
    )


WRAP_CASES = [
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, {"a": 1}),
    ({"type": ["object", "null"]}, {"a": 1}),
    ({"type": ["object", "null"]}, None),
    ({"type": ["array", "null"], "items": {"type": "integer"}}, [1, 2]),
    ({"type": "array", "items": {"type": "integer"}}, [1, 2]),
    ({"anyOf": [{"type": "object"}, {"type": "string"}]}, {"a": 1}),
    ({}, "anything"),
    ({"type": "string"}, "text"),
    (
        {
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
            "type": "array",
            "items": {"$ref": "#/$defs/Node"},
        },
        [{"next": {}}],
    ),
]


@pytest.mark.parametrize(("schema", "value"), WRAP_CASES)
@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_a_wrapped_value_always_matches_its_wrapped_schema(schema, value, version):
    import jsonschema

    from mcp_tools.protocol.results import ToolResult

    wire_schema = project_tool({"name": "t", "outputSchema": schema}, version)["outputSchema"]
    result = project_result(ToolResult(content=[], structured=value, output_schema=schema), version)
    jsonschema.Draft202012Validator(wire_schema).validate(result["structuredContent"])
    if version < "2026-07-28":
        assert wire_schema["type"] == "object"
        assert isinstance(result["structuredContent"], dict)


@pytest.mark.parametrize(
    ("schema", "wire"),
    [
        ({"type": "object"}, {"type": "object"}),
        (
            {"type": "array"},
            {"type": "object", "properties": {"items": {"type": "array"}}, "required": ["items"]},
        ),
        (
            {"type": "string"},
            {
                "type": "object",
                "properties": {"result": {"type": "string"}},
                "required": ["result"],
            },
        ),
    ],
)
def test_projection_wraps_non_object_schemas_as_it_wraps_values(schema, wire):
    definition = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}
    assert project_tool(definition, "2025-11-25")["outputSchema"] == wire
    assert definition["outputSchema"] == schema  # the internal definition stays unwrapped
