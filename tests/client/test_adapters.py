"""Tests of mcp_tools.client: the result rules, the bounding hooks and both adapters."""

from __future__ import annotations

import ast
import base64
import copy
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import Any

import httpx2
import mcp_types as t
import pytest
from mcp import Client, MCPError
from mcp.server import Server

from mcp_tools.client import (
    AdaptedTool,
    McpToolError,
    Part,
    ToolOutput,
    UnsupportedContentError,
    _adapter,
    adapt_tools,
    adapt_tools_sync,
    bounded_http_client,
    compose,
    directory_store,
    redact,
    store_artifacts,
    to_tool_output,
    truncate,
)
from tests.processes import stop

PNG = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
)
UNSUPPORTED = "Unsupported MCP tool result content type"


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(data: str = PNG, mime_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime_type}


def file_part(data: str = PNG, media_type: str = "image/png") -> Part:
    return {"type": "file", "data": {"type": "data", "data": data}, "mediaType": media_type}


def text_part(value: str) -> Part:
    return {"type": "text", "text": value}


AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
LINK = {"type": "resource_link", "uri": "file:///report.pdf", "name": "report"}
TEXT_RESOURCE = {
    "type": "resource",
    "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi", "_meta": {"x": 1}},
    "annotations": {"priority": 1},
}
BLOB_RESOURCE = {
    "type": "resource",
    "resource": {"uri": "file:///a.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="},
}
TEXT_RESOURCE_JSON = '{"uri":"file:///a.txt","mimeType":"text/plain","text":"hi"}'
BLOB_RESOURCE_JSON = '{"uri":"file:///a.pdf","mimeType":"application/pdf","blob":"JVBERi0="}'


# -- to_tool_output: one row per rule; "sdk" rows also run on the parsed CallToolResult ----

OUTPUT_CASES: list[tuple[str, dict[str, Any], ToolOutput, tuple[str, ...]]] = [
    (
        "one text block",
        {"content": [text("The deployment is healthy.")]},
        "The deployment is healthy.",
        ("wire", "sdk"),
    ),
    ("text kept as is", {"content": [text(' {"a": 1}\n\t')]}, ' {"a": 1}\n\t', ("wire", "sdk")),
    (
        "texts joined in order, no separator",
        {"content": [text("a"), text("b"), text("c")]},
        "abc",
        ("wire", "sdk"),
    ),
    ("empty content", {"content": []}, "", ("wire", "sdk")),
    ("isError false", {"content": [text("ok")], "isError": False}, "ok", ("wire", "sdk")),
    (
        "structured object when content is empty",
        {"content": [], "structuredContent": {"id": 3, "name": "Zoë"}},
        '{"id":3,"name":"Zoë"}',
        ("wire", "sdk"),
    ),
    ("structured array", {"content": [], "structuredContent": [1, 2]}, "[1,2]", ("wire", "sdk")),
    (
        "structured string is JSON",
        {"content": [], "structuredContent": "done"},
        '"done"',
        ("wire", "sdk"),
    ),
    ("structured null sent", {"content": [], "structuredContent": None}, "null", ("wire", "sdk")),
    (
        "structured ignored beside content",
        {"content": [text("3 items")], "structuredContent": {"n": 3}},
        "3 items",
        ("wire", "sdk"),
    ),
    ("image makes a list of parts", {"content": [image()]}, [file_part()], ("wire", "sdk")),
    (
        "text and images keep server order",
        {"content": [text("a"), image(), text("b"), image("R0lG", "image/gif")]},
        [text_part("a"), file_part(), text_part("b"), file_part("R0lG", "image/gif")],
        ("wire", "sdk"),
    ),
    ("embedded text resource", {"content": [TEXT_RESOURCE]}, TEXT_RESOURCE_JSON, ("wire", "sdk")),
    ("embedded blob resource", {"content": [BLOB_RESOURCE]}, BLOB_RESOURCE_JSON, ("wire", "sdk")),
    (
        "resource without mimeType",
        {"content": [{"type": "resource", "resource": {"uri": "u:1", "text": "t"}}]},
        '{"uri":"u:1","text":"t"}',
        ("wire", "sdk"),
    ),
    (
        "resources join the text in order",
        {"content": [text("before "), TEXT_RESOURCE, text(" after")]},
        f"before {TEXT_RESOURCE_JSON} after",
        ("wire", "sdk"),
    ),
    (
        "resource beside an image is a text part",
        {"content": [BLOB_RESOURCE, image()]},
        [text_part(BLOB_RESOURCE_JSON), file_part()],
        ("wire", "sdk"),
    ),
    ("legacy toolResult string", {"toolResult": "done"}, "done", ("wire",)),
    ("legacy toolResult object", {"toolResult": {"a": [1, "é"]}}, '{"a":[1,"é"]}', ("wire",)),
    ("legacy toolResult number", {"toolResult": 3}, "3", ("wire",)),
    ("legacy toolResult not JSON", {"toolResult": float("nan")}, "nan", ("wire",)),
    (
        "content wins over toolResult",
        {"content": [text("new")], "toolResult": "old"},
        "new",
        ("wire",),
    ),
]


@pytest.mark.parametrize(
    ("form", "wire", "expected"),
    [
        pytest.param(form, wire, expected, id=f"{name} ({form})")
        for name, wire, expected, forms in OUTPUT_CASES
        for form in forms
    ],
)
def test_to_tool_output(form: str, wire: dict[str, Any], expected: ToolOutput) -> None:
    result = wire if form == "wire" else t.CallToolResult.model_validate(wire)
    assert to_tool_output(result) == expected


def test_to_tool_output_never_builds_a_data_url() -> None:
    output = to_tool_output({"content": [image()]})
    assert "data:" not in json.dumps(output)


def test_to_tool_output_on_hand_built_sdk_objects() -> None:
    result = t.CallToolResult(
        content=[
            t.TextContent(text="chart: "),
            t.ImageContent(data=PNG, mime_type="image/png"),
            t.EmbeddedResource(resource=t.TextResourceContents(uri="file:///a.txt", text="hi")),
        ]
    )
    assert to_tool_output(result) == [
        text_part("chart: "),
        file_part(),
        text_part('{"uri":"file:///a.txt","text":"hi"}'),
    ]
    # A structured value the server never sent is not "null".
    assert to_tool_output(t.CallToolResult(content=[])) == ""
    assert to_tool_output(t.CallToolResult(content=[], structured_content={"a": 1})) == '{"a":1}'


ERROR_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("text is the message", {"content": [text("Not found")], "isError": True}, "Not found"),
    ("texts joined", {"content": [text("a"), text("b")], "isError": True}, "ab"),
    ("no content", {"content": [], "isError": True}, "MCP tool returned an error"),
    ("no text", {"content": [image()], "isError": True}, "MCP tool returned an error"),
    ("empty text", {"content": [text("")], "isError": True}, "MCP tool returned an error"),
    ("error before unsupported content", {"content": [AUDIO, text("x")], "isError": True}, "x"),
    (
        "structured content is no message",
        {"content": [], "structuredContent": {"a": 1}, "isError": True},
        "MCP tool returned an error",
    ),
]


@pytest.mark.parametrize("form", ["wire", "sdk"])
@pytest.mark.parametrize(
    ("wire", "message"), [pytest.param(w, m, id=name) for name, w, m in ERROR_CASES]
)
def test_error_result_raises_mcp_tool_error(form: str, wire: dict[str, Any], message: str) -> None:
    result = wire if form == "wire" else t.CallToolResult.model_validate(wire)
    with pytest.raises(McpToolError) as caught:
        to_tool_output(result)
    assert type(caught.value) is McpToolError
    assert str(caught.value) == caught.value.message == message
    assert caught.value.public_message == McpToolError.public_message == "The tool failed."
    assert caught.value.result is result


UNSUPPORTED_CASES: list[tuple[str, list[dict[str, Any]], str, tuple[str, ...]]] = [
    ("audio", [AUDIO], "audio", ("wire", "sdk")),
    ("resource_link", [LINK], "resource_link", ("wire", "sdk")),
    ("audio after text and image", [text("a"), image(), AUDIO], "audio", ("wire", "sdk")),
    ("unknown type", [{"type": "video", "data": "AA=="}], "video", ("wire",)),
]


@pytest.mark.parametrize(
    ("form", "content", "content_type"),
    [
        pytest.param(form, content, kind, id=f"{name} ({form})")
        for name, content, kind, forms in UNSUPPORTED_CASES
        for form in forms
    ],
)
def test_unsupported_content(form: str, content: list[dict[str, Any]], content_type: str) -> None:
    wire = {"content": content}
    result = wire if form == "wire" else t.CallToolResult.model_validate(wire)
    with pytest.raises(UnsupportedContentError) as caught:
        to_tool_output(result)
    assert str(caught.value) == UNSUPPORTED
    assert isinstance(caught.value, McpToolError)
    assert caught.value.content_type == content_type


@pytest.mark.parametrize(
    ("result", "error"),
    [
        ({"content": "text"}, ValueError),
        ({"content": [{"type": "text"}]}, ValueError),
        ({"content": [{"type": "image", "data": PNG}]}, ValueError),
        ({"content": [{"type": "resource", "resource": {"uri": "u:1"}}]}, ValueError),
        ({"content": [3]}, ValueError),
        ("text", TypeError),
    ],
)
def test_malformed_results_are_refused(result: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        to_tool_output(result)


# -- Bounding hooks ---------------------------------------------------------------------

TRUNCATE_CASES: list[tuple[str, dict[str, Any], ToolOutput, ToolOutput]] = [
    ("short text kept", {"max_chars": 30, "marker": "[-{chars}]"}, "abc", "abc"),
    (
        "cut by characters, marker included",
        {"max_chars": 30, "marker": "[-{chars}]"},
        "0123456789" * 5,
        "0123456789" * 2 + "01234[-25]",
    ),
    (
        "cut by bytes, marker included",
        {"max_bytes": 30, "marker": "[-{bytes}B]"},
        "é" * 20,
        "é" * 12 + "[-16B]",
    ),
    (
        "a character is never split",
        {"max_bytes": 31, "marker": "[-{bytes}B]"},
        "é" * 20,
        "é" * 12 + "[-16B]",
    ),
    (
        "the tighter bound wins",
        {"max_chars": 40, "max_bytes": 30, "marker": "[-{chars}]"},
        "é" * 20,
        "é" * 12 + "[-8]",
    ),
    (
        "default marker",
        {"max_chars": 80},
        "x" * 100,
        "x" * 41 + "\n[truncated 59 characters (59 bytes)]",
    ),
    (
        "text parts bounded together, files kept",
        {"max_chars": 30, "marker": "[-{chars}]"},
        [text_part("a" * 20), file_part(), text_part("b" * 20)],
        [text_part("a" * 20), file_part(), text_part("bbbbb[-15]")],
    ),
    (
        "cut at a part boundary",
        {"max_chars": 25, "marker": "[-{chars}]"},
        [text_part("a" * 20), file_part(), text_part("b" * 20)],
        [text_part("a" * 20), file_part(), text_part("[-20]")],
    ),
    (
        "text after the cut is dropped",
        {"max_chars": 30, "marker": "[-{chars}]"},
        [text_part("a" * 20), text_part("b" * 20), file_part(), text_part("c" * 20)],
        [text_part("a" * 20), text_part("bbbbb[-35]"), file_part()],
    ),
]


@pytest.mark.parametrize(
    ("options", "output", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in TRUNCATE_CASES],
)
def test_truncate(options: dict[str, Any], output: ToolOutput, expected: ToolOutput) -> None:
    original = copy.deepcopy(output)
    truncated = truncate(**options)(output)
    assert truncated == expected
    assert output == original  # the input is left alone
    texts = (
        [truncated]
        if isinstance(truncated, str)
        else [part["text"] for part in truncated if part["type"] == "text"]
    )
    if "max_chars" in options:
        assert sum(len(text) for text in texts) <= options["max_chars"]
    if "max_bytes" in options:
        assert sum(len(text.encode()) for text in texts) <= options["max_bytes"]


@pytest.mark.parametrize(
    "options",
    [{}, {"max_chars": 22, "marker": "[-{chars}]"}, {"max_bytes": 10}],
)
def test_truncate_refuses_bounds_without_room_for_the_marker(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        truncate(**options)


REDACT_CASES: list[tuple[str, Any, dict[str, Any], ToolOutput, ToolOutput]] = [
    (
        "patterns in order",
        [r"sk-\w+", r"\d{4}-\d{4}"],
        {},
        "key sk-abc1 card 1234-5678",
        "key [REDACTED] card [REDACTED]",
    ),
    ("one string is one pattern", "secret", {}, "a secret", "a [REDACTED]"),
    (
        "compiled with flags",
        re.compile("token", re.IGNORECASE),
        {"replacement": "*"},
        "TOKEN x token",
        "* x *",
    ),
    (
        "text parts only",
        r"iVBOR",
        {},
        [text_part("iVBOR"), file_part()],
        [text_part("[REDACTED]"), file_part()],
    ),
]


@pytest.mark.parametrize(
    ("patterns", "options", "output", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in REDACT_CASES],
)
def test_redact(
    patterns: Any, options: dict[str, Any], output: ToolOutput, expected: ToolOutput
) -> None:
    assert redact(patterns, **options)(output) == expected


def test_compose_applies_processors_in_order() -> None:
    output = "x" * 21 + "hunter2" + "y" * 20
    cut = truncate(max_chars=30, marker="[-{chars}]")
    # Redact first: a secret that straddles the cut would otherwise leak its first half.
    assert compose(redact("hunter2"), cut)(output) == "x" * 21 + "[RED[-26]"
    assert compose(cut, redact("hunter2"))(output) == "x" * 21 + "hunt[-23]"


class Store:
    def __init__(self) -> None:
        self.saved: list[tuple[bytes, str]] = []

    def __call__(self, data: bytes, media_type: str) -> str:
        self.saved.append((data, media_type))
        return f"ref-{len(self.saved)}"


def test_store_artifacts_keeps_small_outputs() -> None:
    store = Store()
    process = store_artifacts(store, min_bytes=100)
    assert process("small") == "small"
    assert process([text_part("a"), file_part()]) == [text_part("a"), file_part()]
    assert store.saved == []


def test_store_artifacts_stores_large_text() -> None:
    store = Store()
    assert store_artifacts(store, min_bytes=10)("é" * 5) == (
        "[text/plain; charset=utf-8 artifact of 10 bytes stored as ref-1]"
    )
    assert store.saved == [("é".encode() * 5, "text/plain; charset=utf-8")]


def test_store_artifacts_stores_large_files_and_returns_a_string_when_none_is_left() -> None:
    store = Store()
    process = store_artifacts(store, min_bytes=50, reference="<{ref}>")
    assert process([text_part("chart: "), file_part()]) == "chart: <ref-1>"
    assert store.saved == [(base64.b64decode(PNG), "image/png")]
    small = file_part("R0lG", "image/gif")
    assert process([file_part(), small]) == [text_part("<ref-2>"), small]


def test_store_artifacts_refuses_invalid_base64() -> None:
    with pytest.raises(ValueError, match="base64"):
        store_artifacts(Store(), min_bytes=1)([file_part("not base64!")])


def test_directory_store(tmp_path: Path) -> None:
    store = directory_store(tmp_path / "artifacts")
    first = store(b"\x89PNG", "image/png")
    assert Path(first).read_bytes() == b"\x89PNG"
    assert Path(first).suffix == ".png"
    assert store(b"\x89PNG", "image/png") == first
    assert Path(store(b"hello", "text/plain; charset=utf-8")).suffix == ".txt"
    assert len(list((tmp_path / "artifacts").iterdir())) == 2


# -- adapt_tools against an in-process SDK server ----------------------------------------

TOOLS: dict[str, tuple[t.Tool, t.CallToolResult | None]] = {
    tool.name: (tool, result)
    for tool, result in [
        (
            t.Tool(
                name="echo",
                title="Echo",
                description="Echo the call.",
                input_schema={"type": "object", "properties": {"id": {"type": "integer"}}},
            ),
            None,
        ),
        (
            t.Tool(
                name="texts",
                description="Two texts.",
                input_schema={"type": "object"},
                annotations=t.ToolAnnotations(title="Texts (old title)"),
            ),
            t.CallToolResult(content=[t.TextContent(text="a"), t.TextContent(text="b")]),
        ),
        (
            t.Tool(name="chart", input_schema={"type": "object"}),
            t.CallToolResult(
                content=[
                    t.TextContent(text="chart:"),
                    t.ImageContent(data=PNG, mime_type="image/png"),
                ]
            ),
        ),
        (
            t.Tool(name="record", input_schema={"type": "object"}),
            t.CallToolResult(content=[t.AudioContent(data="UklGRg==", mime_type="audio/wav")]),
        ),
        (
            t.Tool(name="link", input_schema={"type": "object"}),
            t.CallToolResult(content=[t.ResourceLink(uri="file:///r.pdf", name="r")]),
        ),
        (
            t.Tool(name="fail", input_schema={"type": "object"}),
            t.CallToolResult(
                content=[t.TextContent(text="Not allowed: " + "x" * 50)], is_error=True
            ),
        ),
        (
            t.Tool(name="fail_silently", input_schema={"type": "object"}),
            t.CallToolResult(content=[], is_error=True),
        ),
        (
            t.Tool(name="structured", input_schema={"type": "object"}),
            t.CallToolResult(content=[], structured_content={"id": 3}),
        ),
        (
            t.Tool(name="document", input_schema={"type": "object"}),
            t.CallToolResult(
                content=[
                    t.EmbeddedResource(
                        resource=t.TextResourceContents(
                            uri="file:///a.txt", mime_type="text/plain", text="hi"
                        )
                    )
                ]
            ),
        ),
    ]
}


class InProcessServer:
    """A low-level SDK server that pages tools/list by two and records every call."""

    def __init__(self) -> None:
        self.cursors: list[str | None] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.server = Server("client-tests", on_list_tools=self.list_tools, on_call_tool=self.call)

    async def list_tools(
        self, ctx: Any, params: t.PaginatedRequestParams | None
    ) -> t.ListToolsResult:
        cursor = params.cursor if params else None
        self.cursors.append(cursor)
        start = int(cursor or 0)
        tools = [tool for tool, _ in TOOLS.values()]
        more = start + 2 < len(tools)
        return t.ListToolsResult(
            tools=tools[start : start + 2], next_cursor=str(start + 2) if more else None
        )

    async def call(self, ctx: Any, params: t.CallToolRequestParams) -> t.CallToolResult:
        sent = params.model_dump(by_alias=True, exclude_unset=True, exclude={"meta"})
        self.calls.append((params.name, sent))
        result = TOOLS[params.name][1]
        if result is None:
            return t.CallToolResult(content=[t.TextContent(text=json.dumps(sent))])
        return result


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


CONNECTIONS = ["client", "legacy client", "session"]


@asynccontextmanager
async def adapted(
    server: InProcessServer, connection: str, **options: Any
) -> AsyncIterator[list[AdaptedTool]]:
    """Connect to ``server`` as ``connection`` says; yield its tools, adapted."""
    mode = "legacy" if connection == "legacy client" else "auto"
    async with Client(server.server, mode=mode) as client:
        yield await adapt_tools(client.session if connection == "session" else client, **options)


@pytest.mark.anyio
@pytest.mark.parametrize("connection", CONNECTIONS)
async def test_adapt_tools_lists_every_page(connection: str) -> None:
    server = InProcessServer()
    async with adapted(server, connection) as tools:
        assert [tool.name for tool in tools] == list(TOOLS)
        assert server.cursors == [None, "2", "4", "6", "8"]
        echo, texts = tools[0], tools[1]
        assert (echo.title, echo.description) == ("Echo", "Echo the call.")
        assert echo.input_schema == {"type": "object", "properties": {"id": {"type": "integer"}}}
        assert echo.definition.name == "echo"
        assert texts.title == "Texts (old title)"
        assert tools[2].title is None and tools[2].description is None


CALL_CASES: list[tuple[str, Any]] = [
    ("texts", "ab"),
    ("chart", [text_part("chart:"), file_part()]),
    ("structured", '{"id":3}'),
    ("document", '{"uri":"file:///a.txt","mimeType":"text/plain","text":"hi"}'),
    ("record", UnsupportedContentError),
    ("link", UnsupportedContentError),
    ("fail", McpToolError("Not allowed: " + "x" * 50)),
    ("fail_silently", McpToolError("MCP tool returned an error")),
]


@pytest.mark.anyio
@pytest.mark.parametrize("connection", CONNECTIONS)
@pytest.mark.parametrize(("name", "expected"), CALL_CASES, ids=[name for name, _ in CALL_CASES])
async def test_adapted_tools_return_plain_outputs(
    connection: str, name: str, expected: Any
) -> None:
    async with adapted(InProcessServer(), connection) as tools:
        tool = next(tool for tool in tools if tool.name == name)
        if isinstance(expected, McpToolError):
            with pytest.raises(McpToolError) as caught:
                await tool({})
            assert type(caught.value) is McpToolError
            assert caught.value.message == expected.message
        elif isinstance(expected, type):
            with pytest.raises(expected, match=f"^{UNSUPPORTED}$"):
                await tool.call({})
        else:
            assert await tool.call() == expected


ARGUMENT_CASES: list[tuple[str, Any, dict[str, Any]]] = [
    ("None omits the field", None, {"name": "echo"}),
    ("empty dict", {}, {"name": "echo", "arguments": {}}),
    ("dict", {"id": 3}, {"name": "echo", "arguments": {"id": 3}}),
    ("any mapping", MappingProxyType({"id": 3}), {"name": "echo", "arguments": {"id": 3}}),
]


@pytest.mark.anyio
@pytest.mark.parametrize("connection", CONNECTIONS)
async def test_arguments_are_sent_as_given(connection: str) -> None:
    server = InProcessServer()
    async with adapted(server, connection) as tools:
        for name, arguments, sent in ARGUMENT_CASES:
            assert json.loads(await tools[0].call(arguments)) == sent, name
        assert [call for _, call in server.calls] == [sent for _, _, sent in ARGUMENT_CASES]


@pytest.mark.anyio
@pytest.mark.parametrize("arguments", [[1], "id=3", 3, ("id",), {1: "x"}, True])
async def test_other_arguments_raise_type_error_before_any_request(arguments: Any) -> None:
    server = InProcessServer()
    async with adapted(server, "client") as tools:
        with pytest.raises(TypeError):
            await tools[0].call(arguments)
        assert server.calls == []


@pytest.mark.anyio
async def test_processors_bound_outputs_and_error_messages() -> None:
    server = InProcessServer()
    bound = truncate(max_chars=25, marker="[-{chars}]")
    async with adapted(server, "client", processors=[redact("Not allowed"), bound]) as tools:
        by_name = {tool.name: tool for tool in tools}
        assert await by_name["texts"].call() == "ab"
        assert await by_name["document"].call() == '{"uri":"file:///a.tx[-39]'
        with pytest.raises(McpToolError) as caught:
            await by_name["fail"].call()
        assert caught.value.message == "[REDACTED]: " + "x" * 8 + "[-42]"
        assert caught.value.public_message == "The tool failed."
        with pytest.raises(UnsupportedContentError, match=f"^{UNSUPPORTED}$"):
            await by_name["record"].call()


@pytest.mark.anyio
async def test_adapt_tools_stops_a_listing_that_never_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def list_tools(ctx: Any, params: t.PaginatedRequestParams | None) -> t.ListToolsResult:
        return t.ListToolsResult(tools=[], next_cursor="again")

    monkeypatch.setattr(_adapter, "MAX_LIST_PAGES", 5)
    async with Client(Server("endless", on_list_tools=list_tools)) as client:
        with pytest.raises(RuntimeError, match="5 pages"):
            await adapt_tools(client)


@pytest.mark.anyio
async def test_adapt_tools_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="mcp.Client or a ClientSession"):
        await adapt_tools("http://127.0.0.1:1/mcp")  # type: ignore[arg-type]


# -- adapt_tools_sync over real HTTP ---------------------------------------------------

HTTP_SERVER = """
import os
import sys
import threading
import time

import mcp_types as t
import uvicorn
from mcp.server import MCPServer
from mcp.server.mcpserver import Context


def exit_with_parent(parent=os.getppid()):
    # A test run that is killed can't stop this server, so it stops itself.
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


threading.Thread(target=exit_with_parent, daemon=True).start()
server = MCPServer("client-tests")


@server.tool(title="Greet", description="Say hello.")
def greet(name: str) -> str:
    return f"Hello, {name}!"


@server.tool(description="Return the Authorization header received.")
def whoami(ctx: Context) -> str:
    return (ctx.headers or {}).get("authorization", "")


@server.tool()
def chart() -> t.CallToolResult:
    image = t.ImageContent(data=sys.argv[2], mime_type="image/png")
    return t.CallToolResult(content=[t.TextContent(text="chart:"), image])


@server.tool()
def fail() -> t.CallToolResult:
    return t.CallToolResult(content=[t.TextContent(text="Not allowed")], is_error=True)


uvicorn.run(server.streamable_http_app(), fd=int(sys.argv[1]), log_level="warning")
"""


@contextmanager
def http_server(script: str, *args: str) -> Iterator[str]:
    """Run ``script`` as an SDK server on a free port of 127.0.0.1; yield its MCP URL."""
    with socket.socket() as listener:
        # Bound and listening before the child starts: requests wait in the backlog until
        # uvicorn accepts them, so there is no start-up race to poll for.
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        fd = str(listener.fileno())
        process = subprocess.Popen([sys.executable, "-c", script, fd, *args], pass_fds=[int(fd)])
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with http_server(HTTP_SERVER, PNG) as url:
        yield url


def portal_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "mcp-tools-client"]


def test_adapt_tools_sync_lists_and_calls_over_http(server_url: str) -> None:
    with adapt_tools_sync(server_url, timeout=10, read_timeout=10) as tools:
        assert portal_threads()
        by_name = {tool.name: tool for tool in tools}
        assert list(by_name) == ["greet", "whoami", "chart", "fail"]
        greet = by_name["greet"]
        assert (greet.title, greet.description) == ("Greet", "Say hello.")
        assert greet.input_schema["required"] == ["name"]
        assert greet.call({"name": "Ada"}) == "Hello, Ada!"
        assert greet({"name": "Bob"}) == "Hello, Bob!"
        assert by_name["chart"].call() == [text_part("chart:"), file_part()]
        with pytest.raises(McpToolError, match="^Not allowed$"):
            by_name["fail"].call()
        with pytest.raises(TypeError):
            greet.call(["Ada"])
    assert portal_threads() == []
    with pytest.raises(RuntimeError):
        greet.call({"name": "Ada"})


def test_adapt_tools_sync_sends_headers_and_runs_processors(server_url: str) -> None:
    headers = {"Authorization": "Token abc123"}
    with adapt_tools_sync(
        server_url, headers, processors=[redact(r"abc\d+", "***")], timeout=10, read_timeout=10
    ) as tools:
        whoami = next(tool for tool in tools if tool.name == "whoami")
        assert whoami.call() == "Token ***"


def test_adapt_tools_sync_closes_on_an_exception(server_url: str) -> None:
    with pytest.raises(KeyError), adapt_tools_sync(server_url, timeout=10) as tools:
        assert tools
        raise KeyError("mine")  # comes out as is, not wrapped in an ExceptionGroup
    assert portal_threads() == []


def test_adapt_tools_sync_reports_a_refused_connection_plainly() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(Exception) as caught, adapt_tools_sync(f"http://127.0.0.1:{port}/mcp"):
        pass
    assert not isinstance(caught.value, BaseExceptionGroup)
    assert "connect" in str(caught.value).lower()
    assert portal_threads() == []


# -- A hostile server: oversized, compressed and escape-laden answers -------------------

#: Terminal control sequences: retitle (OSC 0), erase the line, write the clipboard
#: (OSC 52), an 8-bit CSI, a bare carriage return and a NUL.
ESCAPES = "\x1b]0;owned\x07\x1b[2K\x1b]52;c;cm0gLXJmIH4=\x07\x9b31m\r\x00"

HOSTILE_SERVER = r"""
import gzip
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ESCAPES = json.loads(sys.argv[2])
TOOLS = [
    {"name": name, "inputSchema": {"type": "object"}}
    for name in ("big", "declared", "gzip", "encoding", "events", "big_event", "sent", "odd")
] + [
    {
        "name": "loud" + ESCAPES,
        "title": "Loud" + ESCAPES,
        "description": "Say" + ESCAPES + "\nsecond line",
        "inputSchema": {"type": "object", "properties": {"a" + ESCAPES: {"type": "string"}}},
    },
    {"name": "oops", "inputSchema": {"type": "object"}},
    {"name": "refused", "inputSchema": {"type": "object"}},
]
sent = {"bytes": None}


def exit_with_parent(parent=os.getppid()):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_DELETE = do_GET

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.id = message["id"]
        method, params = message["method"], message.get("params") or {}
        if method == "initialize":
            return self.result({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "1"},
            })
        if method == "tools/list":
            return self.result({"tools": TOOLS})
        if method != "tools/call":
            return self.error("Method not found")
        name, arguments = params["name"], params.get("arguments") or {}
        if name == "big":
            return self.big(arguments.get("mib", 100))
        if name == "declared":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(100 * 1024 * 1024))
            self.end_headers()
            self.wfile.write(b"{")
            self.close_connection = True
            return
        if name == "gzip":
            return self.result(text("unpacked"), encoding="gzip")
        if name == "encoding":
            return self.result(text(self.headers.get("Accept-Encoding", "")))
        if name == "events":
            return self.events(arguments["count"], arguments["size"])
        if name == "big_event":
            return self.events(0, 0, text("e" * arguments["size"]))
        if name == "odd":
            # A header can't hold C0 controls, but it can hold C1 ones (an 8-bit CSI).
            self.send_response(200)
            self.send_header("Content-Type", "text/x-odd\x9b2J")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if name == "sent":
            return self.result({"content": [], "structuredContent": sent})
        if name.startswith("loud"):
            return self.result(text("Loud" + ESCAPES + "\nend\r\n"))
        if name == "oops":
            return self.result({**text("Failed" + ESCAPES), "isError": True})
        return self.error("Refused" + ESCAPES)

    def result(self, result, encoding=None):
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.id, "result": result}), encoding)

    def error(self, message):
        error = {"code": -32601, "message": message}
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.id, "error": error}))

    def send(self, body, encoding=None):
        data = gzip.compress(body.encode()) if encoding else body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def big(self, mib):
        # Chunked, no Content-Length: only counting what is read can stop it.
        sent["bytes"] = None
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        start, end = json.dumps({"jsonrpc": "2.0", "id": self.id, "result": text("@")}).split("@")
        chunk, count = b"x" * 65536, 0
        try:
            self.chunk(start.encode())
            for _ in range(mib * 16):
                self.chunk(chunk)
                count += len(chunk)
            self.chunk(end.encode())
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True
        sent["bytes"] = count

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def events(self, count, size, result=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for index in range(count):
                params = {"level": "info", "data": str(index).ljust(size, "x")}
                self.event({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
            self.event({"jsonrpc": "2.0", "id": self.id, "result": result or text(str(count))})
        except OSError:
            pass  # the client stopped reading
        self.close_connection = True

    def event(self, message):
        self.wfile.write(b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n")
        self.wfile.flush()


def text(value):
    return {"content": [{"type": "text", "text": value}]}


threading.Thread(target=exit_with_parent, daemon=True).start()
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
server.socket.close()
server.socket = socket.socket(fileno=int(sys.argv[1]))
server.serve_forever()
"""


@pytest.fixture(scope="module")
def hostile_url() -> Iterator[str]:
    with http_server(HOSTILE_SERVER, json.dumps(ESCAPES)) as url:
        yield url


def tools_of(url: str, **options: Any) -> Any:
    """``adapt_tools_sync`` with short timeouts; yields the tools by name."""

    @contextmanager
    def connected() -> Iterator[dict[str, Any]]:
        with adapt_tools_sync(url, timeout=10, read_timeout=30, **options) as tools:
            yield {tool.name: tool for tool in tools}

    return connected()


def bytes_sent(tools: dict[str, Any]) -> int:
    """Return what the hostile server had sent of its last large result when reading stopped."""
    deadline = time.monotonic() + 20
    while (sent := json.loads(tools["sent"].call())["bytes"]) is None:
        assert time.monotonic() < deadline, "the server is still sending"
        time.sleep(0.1)
    return int(sent)


def test_a_response_past_max_response_bytes_is_refused_and_left_unread(hostile_url: str) -> None:
    with tools_of(hostile_url, max_response_bytes=1_000_000) as tools:
        with pytest.raises(MCPError, match=r"larger than max_response_bytes \(1000000 bytes\)"):
            tools["big"].call({"mib": 100})
        # Of 100 MiB, the server could send the bound and what the sockets buffer, no more.
        assert bytes_sent(tools) < 20 * 1024 * 1024
        assert tools["encoding"].call() == "identity"  # the connection goes on


def test_the_default_bound_is_10_mib(hostile_url: str) -> None:
    with tools_of(hostile_url) as tools:
        assert tools["big"].call({"mib": 9}) == "x" * 9 * 1024 * 1024
        with pytest.raises(MCPError, match=r"max_response_bytes \(10485760 bytes\)"):
            tools["big"].call({"mib": 11})


def test_a_declared_length_past_the_bound_is_refused_before_reading(hostile_url: str) -> None:
    with (
        tools_of(hostile_url, max_response_bytes=1_000_000) as tools,
        pytest.raises(MCPError, match="larger than max_response_bytes"),
    ):
        tools["declared"].call()


def test_responses_are_asked_for_uncompressed_and_a_compressed_one_is_refused(
    hostile_url: str,
) -> None:
    with tools_of(hostile_url) as tools:
        assert tools["encoding"].call() == "identity"
        with pytest.raises(MCPError, match=r"compressed response \(gzip\)"):
            tools["gzip"].call()


def test_an_event_stream_is_bounded_event_by_event(hostile_url: str) -> None:
    with tools_of(hostile_url, max_response_bytes=100_000) as tools:
        # 40 events of 50 kB: 2 MB in all, each within the bound.
        assert tools["events"].call({"count": 40, "size": 50_000}) == "40"
        with pytest.raises(MCPError, match="exceeded the 100000 byte limit"):
            tools["big_event"].call({"size": 500_000})


def test_max_response_bytes_must_be_positive(hostile_url: str) -> None:
    with (
        pytest.raises(ValueError, match="max_response_bytes must be positive, not 0"),
        tools_of(hostile_url, max_response_bytes=0),
    ):
        pass


class CountedStream(httpx2.AsyncByteStream):
    """A body of ``chunks`` that counts how many of them were read."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.read = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            self.read += 1
            yield chunk


def answering(stream: CountedStream, **headers: str) -> httpx2.MockTransport:
    return httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers=headers, stream=stream)
    )


@pytest.mark.anyio
@pytest.mark.parametrize(("limit", "read"), [(2500, 3), (3000, 4), (10_000, 10)])
async def test_bounded_http_client_stops_reading_past_the_bound(limit: int, read: int) -> None:
    stream = CountedStream([b"x" * 1000] * 10)
    http = bounded_http_client(max_response_bytes=limit, transport=answering(stream))
    async with http:
        if limit < 10_000:
            with pytest.raises(httpx2.StreamError, match=rf"max_response_bytes \({limit} bytes\)"):
                await http.get("http://server.test/")
        else:
            assert len((await http.get("http://server.test/")).content) == 10_000
    assert stream.read == read


@pytest.mark.anyio
async def test_bounded_http_client_refuses_a_declared_length_unread() -> None:
    stream = CountedStream([b"x" * 1000] * 10)
    transport = answering(stream, **{"Content-Length": "10000"})
    async with bounded_http_client(max_response_bytes=9999, transport=transport) as http:
        with pytest.raises(httpx2.StreamError, match="larger than max_response_bytes"):
            await http.get("http://server.test/")
    assert stream.read == 0


@pytest.mark.anyio
async def test_bounded_http_client_reads_an_event_stream_whole() -> None:
    stream = CountedStream([b"data: x\n\n"] * 1000)
    transport = answering(stream, **{"Content-Type": "text/event-stream", "Content-Length": "9000"})
    async with bounded_http_client(max_response_bytes=100, transport=transport) as http:
        assert len((await http.get("http://server.test/")).content) == 9000


@pytest.mark.anyio
async def test_bounded_http_client_bounds_its_callers_hooks_and_asks_for_identity() -> None:
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers["Accept-Encoding"])
        return httpx2.Response(200, stream=CountedStream([b"more than 10 bytes"]))

    async def hook(response: httpx2.Response) -> None:
        # A hook that reads the body reads it bounded.
        with pytest.raises(httpx2.StreamError, match="max_response_bytes"):
            await response.aread()
        seen.append(f"hook {response.status_code}")

    http = bounded_http_client(
        {"X-Mine": "1"},
        max_response_bytes=10,
        transport=httpx2.MockTransport(handler),
        event_hooks={"response": [hook]},
    )
    async with http, http.stream("GET", "http://server.test/"):
        pass
    assert seen == ["identity", "hook 200"]
    assert http.headers["X-Mine"] == "1"
    assert (http.timeout.connect, http.timeout.read) == (30, 300)  # the SDK's own defaults


# -- Packaging -------------------------------------------------------------------------


def test_client_imports_without_django_settings_or_mcp() -> None:
    code = (
        "import sys, mcp_tools.client as c\n"
        "assert c.to_tool_output({'content': [{'type': 'text', 'text': 'ok'}]}) == 'ok'\n"
        "assert 'mcp' not in sys.modules, 'mcp imported'\n"
        "assert 'httpx2' not in sys.modules, 'httpx2 imported'\n"
        "print(sorted(c.__all__))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "to_tool_output" in done.stdout


def test_client_modules_do_not_import_django_at_top_level() -> None:
    package = Path(__file__).resolve().parents[2] / "mcp_tools" / "client"
    for path in package.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(name.split(".")[0] == "django" for name in names), path.name
