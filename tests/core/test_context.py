"""The tool call's context on the view's request (``mcp_tools.core.context``).

Overrides stored with ``mcp_output`` (docs/results.md, overrides), ``get_tool_call`` and
``is_mcp_request``.
"""

import json

import pytest
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory, force_authenticate

from mcp_tools import get_tool_call, is_mcp_request, mcp_output
from mcp_tools.core.context import ToolCallContext, attach_context, get_context
from mcp_tools.pipeline.formatters import ResponseFormatter
from tests.results_app import views

pytestmark = pytest.mark.django_db

PNG_B64 = "iVBORw0KGgo="


def tool_request(params=None):
    request = HttpRequest()
    attach_context(request, ToolCallContext(params=params or {"name": "t"}, tool_name="t"))
    return request


BAD_OVERRIDES = [
    ("content not a list", {"content": {"type": "text", "text": "x"}}, "content must be a list"),
    ("block not a dict", {"content": ["x"]}, "must be a dict"),
    ("unknown block type", {"content": [{"type": "video"}]}, "unknown content block type 'video'"),
    ("text missing", {"content": [{"type": "text"}]}, "needs 'text'"),
    ("text not a string", {"content": [{"type": "text", "text": 3}]}, "must be a string"),
    ("image without mimeType", {"content": [{"type": "image", "data": PNG_B64}]}, "'mimeType'"),
    (
        "image with a data: URL",
        {
            "content": [
                {"type": "image", "data": "data:image/png;base64,AA==", "mimeType": "image/png"}
            ]
        },
        "not a data: URL",
    ),
    (
        "audio with bad base64",
        {"content": [{"type": "audio", "data": "not base64!", "mimeType": "audio/wav"}]},
        "not valid base64",
    ),
    (
        "resource without text or blob",
        {"content": [{"type": "resource", "resource": {"uri": "file:///x"}}]},
        "text or blob",
    ),
    (
        "resource with bad blob",
        {"content": [{"type": "resource", "resource": {"uri": "file:///x", "blob": "%%"}}]},
        "not valid base64",
    ),
    ("resource_link without name", {"content": [{"type": "resource_link", "uri": "x"}]}, "'name'"),
    (
        "priority above 1",
        {"annotations": {"priority": 1.5}},
        "priority must be a number from 0 to 1",
    ),
    (
        "priority below 0",
        {"annotations": {"priority": -0.1}},
        "priority must be a number from 0 to 1",
    ),
    ("priority a boolean", {"annotations": {"priority": True}}, "priority must be a number"),
    ("unknown audience", {"annotations": {"audience": ["robot"]}}, "audience must be a list"),
    ("unknown annotation", {"annotations": {"colour": "red"}}, "unknown annotation(s) colour"),
    ("lastModified not ISO", {"annotations": {"lastModified": "yesterday"}}, "ISO 8601"),
    (
        "bad annotations on a block",
        {"content": [{"type": "text", "text": "x", "annotations": {"priority": 2}}]},
        "priority",
    ),
    ("meta not a dict", {"meta": ["x"]}, "meta must be a dict"),
]


@pytest.mark.parametrize(
    ("case", "kwargs", "message"), BAD_OVERRIDES, ids=[c[0] for c in BAD_OVERRIDES]
)
def test_an_invalid_override_raises_value_error_in_the_view(case, kwargs, message):
    request = tool_request()
    with pytest.raises(ValueError) as excinfo:
        mcp_output(request, **kwargs)
    assert message in str(excinfo.value)
    assert str(excinfo.value).startswith("mcp_output: ")
    assert get_context(request).override is None  # nothing half-stored


GOOD_BLOCKS = [
    {"type": "text", "text": "x"},
    {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
    {
        "type": "resource",
        "resource": {"uri": "file:///a.txt", "text": "a", "mimeType": "text/plain"},
    },
    {"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AA=="}},
    {"type": "resource_link", "uri": "https://example.com/a", "name": "a"},
    {"type": "text", "text": "x", "annotations": {"lastModified": "2026-01-02T03:04:05Z"}},
]


def test_valid_blocks_are_stored_as_copies():
    request = tool_request()
    blocks = [dict(block) for block in GOOD_BLOCKS]
    mcp_output(request, content=blocks, annotations={"audience": ("user",), "priority": 0.5})
    blocks[0]["text"] = "changed later"
    override = get_context(request).override
    assert override.content == GOOD_BLOCKS
    assert override.annotations == {"audience": ["user"], "priority": 0.5}


def test_outside_a_tool_call_everything_is_harmless():
    for request in (HttpRequest(), Request(APIRequestFactory().get("/"))):
        mcp_output(request, content=[{"type": "text", "text": "x"}])
        assert get_tool_call(request) is None
        assert is_mcp_request(request) is False


def test_invalid_values_raise_even_outside_a_tool_call():
    # The developer sees a bad override at once, over plain HTTP too.
    with pytest.raises(ValueError, match="priority"):
        mcp_output(HttpRequest(), annotations={"priority": 9})


def test_get_tool_call_works_on_drf_and_django_requests_any_number_of_times():
    params = {"name": "t", "arguments": {"n": "4"}, "_meta": {"progressToken": 1}}
    http_request = tool_request(params)
    drf_request = Request(http_request)
    for request in (http_request, drf_request, drf_request):
        call = get_tool_call(request)
        assert call == params
        call["arguments"]["n"] = "mutated"  # a copy: the next read is unchanged
    assert is_mcp_request(drf_request) is True


def test_the_override_is_consumed_once():
    request = tool_request()
    mcp_output(request, content=[{"type": "text", "text": "once"}])
    formatter = ResponseFormatter()
    from tests.pipeline.test_formatters import TOOL, drf

    first = formatter.format_response(drf({"a": 1}), request, TOOL)
    second = formatter.format_response(drf({"a": 1}), request, TOOL)
    assert first.texts() == ["once"]
    assert second.texts() == ['{"a":1}']


def test_get_tool_call_gives_the_arguments_as_received(mcp):
    result = mcp.call_tool("r_echo_call", {"n": "5", "flag": True})
    data = result["structuredContent"]
    assert data["call"] == {"name": "r_echo_call", "arguments": {"n": "5", "flag": True}}
    assert data["again"] == data["call"]
    assert data["is_mcp"] is True


def test_get_tool_call_gives_the_arguments_before_coercion(mcp):
    data = mcp.call_tool("r_echo_typed", {"n": "5"})["structuredContent"]
    assert data["call"]["arguments"] == {"n": "5"}
    assert data["query"] == {"n": "5"}  # the query string carries text either way


def test_the_echo_view_over_plain_http_sees_no_tool_call(http):
    assert http.get("/r/echo_call/").json() == {"call": None, "is_mcp": False, "again": None}


def test_a_meta_override_keeps_server_owned_keys(mcp, settings):
    settings.MCP_TOOLS = {"MASK_ERRORS": False}
    result = mcp.call_tool("r_override_masked")
    assert result["_meta"]["leak"] is True
    assert len(result["_meta"]["django-mcp-tools/errorRef"]) == 32


def test_a_view_cannot_forge_server_owned_meta(mcp):
    result = mcp.call_tool("r_override_all")
    assert result["_meta"] == {"source": "tests"}


class RecordingFormatter(ResponseFormatter):
    """Keep what the view answered, to compare it with a plain HTTP call."""

    seen: list = []

    def format_response(self, response, request, tool):
        RecordingFormatter.seen.append(
            (response.status_code, dict(response.items()), response.content)
        )
        return super().format_response(response, request, tool)


@pytest.mark.parametrize("tool", ["r_override_all", "r_override_structured", "r_override_on_error"])
def test_the_views_http_response_is_the_same_with_or_without_an_override(
    mcp, http, alice, settings, tool
):
    settings.MCP_TOOLS = {"FORMATTER_CLASS": "tests.core.test_context.RecordingFormatter"}
    RecordingFormatter.seen = []
    mcp.call_tool(tool)
    [(status, headers, body)] = RecordingFormatter.seen
    direct = http.get(f"/r/{tool.removeprefix('r_')}/")
    assert (status, body) == (direct.status_code, direct.content)
    # The same view called without a tool call (so mcp_output is a no-op) and without the
    # middleware the test client runs: the very same headers too.
    factory_request = APIRequestFactory().get("/", HTTP_ACCEPT="*/*")
    force_authenticate(factory_request, user=alice)
    plain = getattr(views, tool)(factory_request).render()
    plain_request = plain.renderer_context["request"]
    assert not is_mcp_request(plain_request)
    assert (status, headers, body) == (plain.status_code, dict(plain.items()), plain.content)


def test_structured_content_without_content_gives_its_json_text(mcp):
    result = mcp.call_tool("r_override_structured")
    assert result["content"] == [{"type": "text", "text": '{"b":[1,2]}'}]
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
