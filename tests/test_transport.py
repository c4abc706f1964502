"""Transport rules (DESIGN §6.6), each with its hostile case: a clear 4xx, never a 500."""

from __future__ import annotations

import io
import json

import pytest
from django.core.handlers.wsgi import LimitedStream
from django.test import Client, RequestFactory

from mcp_tools.views import MCPView

pytestmark = pytest.mark.django_db

PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})


@pytest.fixture
def headers(alice):
    return {"Authorization": f"Token {alice.token}"}


def post(headers, body=PING, content_type="application/json", **extra):
    client = Client(headers={**headers, **extra.pop("client_headers", {})})
    return client.post("/mcp", data=body, content_type=content_type, **extra)


@pytest.mark.parametrize(
    ("accept", "status"),
    [
        ("application/json", 200),
        ("application/json, text/event-stream", 200),
        ("application/*", 200),
        ("*/*", 200),
        ("text/event-stream", 406),
        ("text/html", 406),
        ("image/png;q=1, text/*", 406),
        (",,,;;;", 406),
    ],
)
def test_accept(headers, accept, status):
    assert post(headers, client_headers={"Accept": accept}).status_code == status


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json", 200),
        ("application/json; charset=utf-8", 200),
        ("Application/JSON", 200),
        ("text/plain", 415),
        ("application/jsonx", 415),
        ("application/x-www-form-urlencoded", 415),
        ("multipart/form-data; boundary=x", 415),
        ("", 415),
    ],
)
def test_content_type(headers, content_type, status):
    assert post(headers, content_type=content_type).status_code == status


@pytest.mark.parametrize(
    ("origin", "allowed", "status"),
    [
        ("http://testserver", [], 200),
        ("http://evil.example", [], 403),
        ("http://testserver.evil.example", [], 403),
        ("http://testserver:8080", [], 403),
        ("null", [], 403),
        ("http://[", [], 403),
        ("https://app.example", ["https://app.example"], 200),
        ("https://app.example:444", ["https://app.example"], 403),
    ],
)
def test_origin(headers, settings, origin, allowed, status):
    settings.MCP_TOOLS = {"ALLOWED_ORIGINS": allowed}
    response = post(headers, client_headers={"Origin": origin})
    assert response.status_code == status
    if status == 403:
        assert json.loads(response.content)["error"]["code"] == -32600


@pytest.mark.parametrize("host", ["evil.example", "testserver.evil.example", "bad host", "[::1"])
def test_a_host_outside_allowed_hosts_is_refused(headers, host):
    response = post(headers, HTTP_HOST=host)
    assert response.status_code == 400


def test_the_view_refuses_a_foreign_host_itself_without_middleware(alice):
    request = RequestFactory().post("/mcp", PING, content_type="application/json", HTTP_HOST="evil")
    response = MCPView.as_view()(request)
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == -32600


@pytest.mark.parametrize("method", ["get", "delete", "put", "patch", "options", "head"])
def test_other_http_methods_are_405_with_allow_post(headers, method):
    response = getattr(Client(headers=headers), method)("/mcp")
    assert response.status_code == 405
    assert response["Allow"] == "POST"


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"x": [1]}},
        {"jsonrpc": "2.0", "id": 3, "result": {"anything": True}},
        {"jsonrpc": "2.0", "id": "r", "error": {"code": -1, "message": "no"}},
    ],
)
def test_notifications_and_responses_are_202_without_a_body(headers, message):
    response = post(headers, json.dumps(message))
    assert response.status_code == 202 and response.content == b""


def test_a_body_over_max_request_bytes_is_413(headers, settings):
    settings.MCP_TOOLS = {"MAX_REQUEST_BYTES": 64}
    response = post(
        headers, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "p": "x" * 64})
    )
    assert response.status_code == 413


def test_a_lying_content_length_is_read_only_that_far(alice, settings):
    settings.MCP_TOOLS = {"MAX_REQUEST_BYTES": 64}
    request = RequestFactory().post(
        "/mcp", PING, content_type="application/json", HTTP_AUTHORIZATION=f"Token {alice.token}"
    )
    stream = io.BytesIO(b'{"jsonrpc":"2.0","id":1,"method":"ping","p":"' + b"x" * 1_000_000)
    request.META["CONTENT_LENGTH"] = "10"
    request._stream = LimitedStream(stream, 10)
    response = MCPView.as_view()(request)
    assert response.status_code == 400  # ten bytes of JSON: a parse error, never the rest
    assert stream.tell() == 10


@pytest.mark.parametrize("content_length", ["-5", "abc", "1e9", "99999999999999999999"])
def test_a_malformed_content_length_is_never_a_500(headers, content_length):
    response = post(headers, CONTENT_LENGTH=content_length)
    assert response.status_code in (200, 400, 413)


@pytest.mark.parametrize(
    ("depth", "status", "code"),
    [(10, 200, None), (65, 400, -32600), (100_000, 400, -32600)],
)
def test_json_nesting_is_bounded(headers, settings, depth, status, code):
    settings.MCP_TOOLS = {"MAX_REQUEST_BYTES": 1_000_000}
    params = "[" * depth + "]" * depth
    body = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"deep":' + params + "}}"
    response = post(headers, body)
    assert response.status_code == status
    if code is not None:
        assert json.loads(response.content)["error"]["code"] == code


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"null",
        b"\x00\x01",
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"todo_list","_meta":5}}',
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":[1]}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\\ud800"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\ud800"}}',
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, null, []]',
    ],
)
def test_garbage_never_yields_a_500(headers, body):
    assert post(headers, body).status_code < 500


@pytest.mark.parametrize(
    "header",
    ["", "2025-11-25 ", "x" * 10_000, "2026-07-28", "\u00e9"],
)
def test_a_bad_protocol_version_header_is_400(headers, header):
    response = post(headers, client_headers={"MCP-Protocol-Version": header})
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == -32600
