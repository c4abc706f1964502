"""One OpenTelemetry span per JSON-RPC request, by the MCP semantic conventions.

Recorded with the OpenTelemetry SDK's in-memory exporter (docs/observability.md).
"""

from __future__ import annotations

import asyncio
import sys
from unittest import mock

import httpx2
import pytest
from django.core.asgi import get_asgi_application
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.trace import SpanKind, StatusCode

from mcp_tools.endpoint import handlers, tracing
from mcp_tools.test import MCPClient
from tests.helpers import MODERN

TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
PARENT_ID = 0x00F067AA0BA902B7
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


class Recorder(SpanProcessor):
    """Keep the spans that end while a test listens (the provider outlives the test)."""

    def __init__(self) -> None:
        self.listening = False
        self.finished: list = []

    def on_end(self, span) -> None:
        if self.listening:
            self.finished.append(span)

    def named(self, name: str):
        found = [span for span in self.finished if span.name == name]
        assert len(found) == 1, [span.name for span in self.finished]
        return found[0]


#: The one recorder of the process, whichever modules use the fixture (tasks/test_runs too).
_installed: list[Recorder] = []


@pytest.fixture(scope="session")
def recorder():
    """Install the SDK's tracer provider once: OpenTelemetry lets a process set it once."""
    if not _installed:
        processor = Recorder()
        provider = TracerProvider()
        provider.add_span_processor(processor)
        trace.set_tracer_provider(provider)
        _installed.append(processor)
    return _installed[0]


@pytest.fixture
def spans(recorder):
    recorder.finished.clear()
    recorder.listening = True
    yield recorder
    recorder.listening = False
    recorder.finished.clear()


@pytest.fixture
def modern(alice):
    return MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=MODERN)


def http_span():
    """Stand in for the HTTP server span a Django instrumentation would have opened."""
    return trace.get_tracer("tests").start_as_current_span("POST /mcp", kind=SpanKind.SERVER)


pytestmark = pytest.mark.django_db


def test_a_tool_call_has_one_server_span_named_and_attributed_by_the_conventions(modern, spans):
    modern.call_tool("greet_get")
    span = spans.named("tools/call greet_get")
    assert span.kind is SpanKind.SERVER
    assert dict(span.attributes) == {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "greet_get",
        "mcp.protocol.version": MODERN,
        "jsonrpc.request.id": "1",
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "network.protocol.version": "1.1",
        "client.address": "127.0.0.1",
    }
    assert span.status.status_code is StatusCode.UNSET


def test_the_clients_trace_context_is_the_parent_and_the_http_span_a_link(modern, spans):
    meta = {"traceparent": TRACEPARENT, "tracestate": "rojo=00f067aa0ba902b7"}
    with http_span() as outer:
        modern.call_tool("greet_get", meta=meta)
    span = spans.named("tools/call greet_get")
    assert span.context.trace_id == TRACE_ID
    assert span.parent.span_id == PARENT_ID and span.parent.is_remote
    assert span.context.trace_state.get("rojo") == "00f067aa0ba902b7"
    assert [link.context for link in span.links] == [outer.get_span_context()]


@pytest.mark.parametrize("meta", [{}, {"traceparent": "garbage"}, {"traceparent": 42}])
def test_without_a_valid_trace_context_the_span_is_a_child_of_the_http_requests(
    modern, spans, meta
):
    with http_span() as outer:
        modern.call_tool("greet_get", meta=meta)
    span = spans.named("tools/call greet_get")
    assert span.parent.span_id == outer.get_span_context().span_id
    assert span.context.trace_id == outer.get_span_context().trace_id
    assert list(span.links) == []


def test_every_request_of_the_handshake_era_has_its_span(mcp, spans):
    mcp.initialize()
    mcp.rpc("ping")
    mcp.rpc("tools/list")
    names = [span.name for span in spans.finished]
    assert names == ["initialize", "ping", "tools/list"]
    assert {span.attributes["mcp.protocol.version"] for span in spans.finished} == {"2025-11-25"}
    assert "gen_ai.operation.name" not in spans.finished[2].attributes


def test_a_json_rpc_error_is_the_spans_error_type(modern, spans):
    response = modern.send(modern.message("tools/call", {"name": "nope"}))
    assert response.status_code == 200
    span = spans.named("tools/call nope")
    assert span.attributes["error.type"] == "-32602"
    assert span.attributes["rpc.response.status_code"] == "-32602"
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "Unknown tool: nope"


def test_a_tool_error_and_a_masked_exception_are_tool_errors(modern, spans):
    modern.call_tool("test_error_handling")
    failed = modern.call_tool("boom")
    assert spans.named("tools/call test_error_handling").attributes["error.type"] == "tool_error"
    boom = spans.named("tools/call boom")
    assert boom.attributes["error.type"] == "tool_error"
    assert boom.attributes["mcp_tools.error_ref"] == failed["_meta"]["django-mcp-tools/errorRef"]
    assert boom.status.status_code is StatusCode.ERROR


def test_an_answer_refused_as_too_large_is_a_tool_error_on_its_span(modern, spans, settings):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 60}  # under the answer, over the body
    result = modern.call_tool("greet_get")
    assert result["isError"] is True and result["content"][0]["text"].startswith("Response too")
    assert spans.named("tools/call greet_get").attributes["error.type"] == "tool_error"


def test_an_internal_error_names_its_exception_class_and_reference(modern, spans):
    def broken(call):
        raise RuntimeError("secret detail")

    with mock.patch.dict(handlers.MODERN_HANDLERS, {"tools/list": broken}):
        payload = modern.answer_of(modern.send(modern.message("tools/list")))
    span = spans.named("tools/list")
    assert span.attributes["error.type"] == "RuntimeError"
    assert span.attributes["rpc.response.status_code"] == "-32603"
    assert span.attributes["mcp_tools.error_ref"] == payload["error"]["data"]["errorRef"]
    assert span.status.description == "Internal error"  # never the exception's message
    assert span.events == ()


def test_an_input_required_round_is_marked_as_such(alice, spans):
    asking = MCPClient(
        headers={"Authorization": f"Token {alice.token}"},
        protocol_version=MODERN,
        client_capabilities={"elicitation": {}},
    )
    asking.call_tool("test_input_required_result_elicitation")
    span = spans.named("tools/call test_input_required_result_elicitation")
    assert span.attributes["mcp_tools.result_type"] == "input_required"
    assert "error.type" not in span.attributes


def test_a_streamed_calls_span_ends_in_its_worker_and_parents_what_the_view_traces(modern, spans):
    message = modern.message("tools/call", {"name": "traced_work", "_meta": {"progressToken": 1}})
    response = modern.send(message)
    assert response["Content-Type"] == "text/event-stream"
    b"".join(response.streaming_content)
    server = spans.named("tools/call traced_work")
    inner = spans.named("inside the view")
    assert inner.parent.span_id == server.context.span_id
    assert server.end_time >= inner.end_time


@pytest.mark.django_db(transaction=True)
def test_the_official_sdk_clients_trace_continues_into_the_servers_span(alice, spans):
    async def scenario():
        http = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=get_asgi_application()),
            base_url="http://testserver",
            headers={"Authorization": f"Token {alice.token}"},
        )
        transport = streamable_http_client("http://testserver/mcp", http_client=http)
        async with http, Client(transport) as client:
            return await client.call_tool("greet_get")

    called = asyncio.run(asyncio.wait_for(scenario(), timeout=30))
    assert called.is_error is False
    client_span = spans.named("MCP send tools/call greet_get")
    server_span = spans.named("tools/call greet_get")
    assert server_span.context.trace_id == client_span.context.trace_id
    assert server_span.parent.span_id == client_span.context.span_id


def test_without_opentelemetry_every_trace_is_the_shared_no_op(modern, spans):
    # As in a process where nothing imported the API (or it is not installed).
    with (
        mock.patch.object(tracing, "trace", None),
        mock.patch.dict(sys.modules, {"opentelemetry.trace": None}),
    ):
        assert modern.call_tool("greet_get")["isError"] is False
    assert spans.finished == []


def test_the_api_is_taken_up_once_something_imported_it(modern, spans):
    # A provider set after the endpoint's first request (the API imported only then) is used.
    with mock.patch.object(tracing, "trace", None):
        assert modern.call_tool("greet_get")["isError"] is False
    assert [span.name for span in spans.finished] == ["tools/call greet_get"]


def test_a_clients_method_and_id_are_bounded_in_the_span(mcp, spans):
    # 200,000 characters with CR/LF: named _OTHER, as OpenTelemetry names an unknown HTTP
    # method; the id attribute is clipped.
    hostile = "x\r\n" * 66_667
    mcp.send({"jsonrpc": "2.0", "id": "i" * 100_000, "method": hostile})
    [span] = spans.finished
    assert span.name == "_OTHER"
    assert span.attributes["mcp.method.name"] == "_OTHER"
    assert len(span.attributes["jsonrpc.request.id"]) == 128
    mcp.rpc("tools/list")
    assert spans.finished[-1].name == "tools/list"


def test_a_call_through_call_tool_is_traced_as_the_tool_it_called(modern, spans, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "always"}
    modern.call_tool("call_tool", {"name": "greet_get", "arguments": {}})
    span = spans.named("tools/call greet_get")
    assert span.attributes["gen_ai.tool.name"] == "greet_get"
    modern.call_tool("search_tools", {"query": "greet"})
    assert spans.named("tools/call search_tools").attributes["gen_ai.tool.name"] == "search_tools"
