"""Result processors: RESULT_PROCESSORS run on every result, before the output schema check."""

import pytest

from mcp_tools.pipeline.processors import TRUNCATION_MARKER, redact, run_processors, truncate_text
from mcp_tools.protocol.jsonrpc import RawJSON
from mcp_tools.protocol.results import NO_STRUCTURED, ToolResult, text_block


def test_no_processor_runs_by_default():
    result = ToolResult([text_block("x" * 100_000)])
    assert run_processors(result, None, None).texts() == ["x" * 100_000]


TRUNCATE = [
    ("short text untouched", "abc", "abc"),
    ("exactly the limit", "abcde", "abcde"),
    ("past the limit", "abcdefgh", "abcde\n[truncated: 3 more characters]"),
    ("characters, not bytes", "ééééééé", "ééééé\n[truncated: 2 more characters]"),
]


@pytest.mark.parametrize(("case", "text", "expected"), TRUNCATE, ids=[c[0] for c in TRUNCATE])
def test_truncate_text(settings, case, text, expected):
    settings.MCP_TOOLS = {"TRUNCATE_TEXT_LENGTH": 5}
    result = ToolResult(
        [text_block(text), {"type": "image", "data": "AAAA", "mimeType": "image/png"}],
        RawJSON('{"long": "abcdefgh"}'),
    )
    truncated = truncate_text(result, None, None)
    assert truncated.content[0]["text"] == expected
    assert truncated.content[1] == {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    assert truncated.structured.text == '{"long": "abcdefgh"}'  # left whole


def test_the_truncation_marker_says_how_much_was_cut():
    assert TRUNCATION_MARKER.format(cut=12) == "\n[truncated: 12 more characters]"


def test_redact_text_resources_and_structured_strings(settings):
    settings.MCP_TOOLS = {"REDACT_PATTERNS": [r"sk-[a-z0-9]+", r"\b\d{16}\b"]}
    result = ToolResult(
        [
            text_block('{"key": "sk-abc123", "card": "4111111111111111"}'),
            {"type": "resource", "resource": {"uri": "file:///k", "text": "sk-zz"}},
        ],
        RawJSON('{"key": "sk-abc123", "n": 4111111111111111, "nested": ["sk-q"]}'),
        meta={"django-mcp-tools/errorRef": "x"},
    )
    redacted = redact(result, None, None)
    assert redacted.texts() == ['{"key": "[redacted]", "card": "[redacted]"}']
    assert redacted.content[1]["resource"]["text"] == "[redacted]"
    # Numbers are not strings: only string values are scrubbed, and the value re-encoded.
    assert (
        redacted.structured.text
        == '{"key":"[redacted]","n":4111111111111111,"nested":["[redacted]"]}'
    )


def test_redact_a_string_scalar_and_the_replacement_setting(settings):
    settings.MCP_TOOLS = {"REDACT_PATTERNS": ["secret"], "REDACT_REPLACEMENT": "***"}
    result = redact(ToolResult([text_block("a secret")], "a secret"), None, None)
    assert (result.texts(), result.structured) == (["a ***"], "a ***")


def test_redact_without_patterns_keeps_the_raw_bytes():
    structured = RawJSON('{"a": "b"}')
    result = redact(ToolResult([text_block("x")], structured), None, None)
    assert result.structured is structured and structured._value is RawJSON._UNPARSED


def test_a_replacement_is_literal_not_a_regex_template(settings):
    settings.MCP_TOOLS = {"REDACT_PATTERNS": ["(a)"], "REDACT_REPLACEMENT": r"\1"}
    assert redact(ToolResult([text_block("cat")]), None, None).texts() == [r"c\1t"]


def drop_structured(result, tool, request):
    """A project's processor: structured content is never sent."""
    result.structured = NO_STRUCTURED
    return result


def shout(result, tool, request):
    for block in result.content:
        if block.get("type") == "text":
            block["text"] = block["text"].upper()
    return result


@pytest.mark.django_db
def test_processors_run_in_order_on_every_result_through_the_endpoint(mcp, settings):
    settings.MCP_TOOLS = {
        "RESULT_PROCESSORS": [
            "mcp_tools.pipeline.processors.truncate_text",
            "tests.pipeline.test_processors.shout",
        ],
        "TRUNCATE_TEXT_LENGTH": 3,
    }
    assert mcp.call_tool("r_text")["content"] == [
        {"type": "text", "text": "HÉL\n[TRUNCATED: 2 MORE CHARACTERS]"}
    ]
    # Error results too, masked ones included.
    assert mcp.call_tool("r_crash")["content"][0]["text"].startswith("INT\n[TRUNCATED")


@pytest.mark.django_db
def test_processors_run_before_the_output_schema_is_enforced(mcp, settings):
    settings.MCP_TOOLS = {"RESULT_PROCESSORS": ["tests.pipeline.test_processors.drop_structured"]}
    result = mcp.call_tool("r_schema_dict")
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "Output does not match the tool's output schema at $: the result has no structured content"
    )


def broken(result, tool, request):
    raise RuntimeError("bug in a processor")


def test_a_failing_processor_masks_the_result(settings, caplog):
    settings.MCP_TOOLS = {
        "MASK_ERRORS": False,
        "RESULT_PROCESSORS": [
            "tests.pipeline.test_processors.broken",
            "tests.pipeline.test_processors.shout",
        ],
    }
    result = run_processors(ToolResult([text_block("sk-secret")]), None, None)
    assert result.is_error and result.texts() == ["Internal server error"]
    reference = result.meta["django-mcp-tools/errorRef"]
    assert any(reference in record.getMessage() for record in caplog.records)
