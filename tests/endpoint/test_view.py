"""The HTTP transport (``mcp_tools.views``): each rule with its hostile case, never a 500.

The rules are docs/protocol.md's transport rules and docs/security.md's bounds: methods,
``Host``, ``Origin``, ``Content-Type``, ``Accept``, the body's size and nesting, batches,
authentication and CSRF, and when a tool call answers as JSON or as an SSE stream.
"""

from __future__ import annotations

import io
import json
import logging

import pytest
from django.core.handlers.wsgi import LimitedStream
from django.test import RequestFactory

from mcp_tools.test import MCPClient
from mcp_tools.views import MCPView
from tests.helpers import error_of

pytestmark = pytest.mark.django_db

JSON = "application/json"
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})


# -- HTTP methods ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["get", "delete", "put", "patch", "options", "head"])
def test_other_http_methods_are_405_with_allow_post(mcp, method):
    response = getattr(mcp, method)(mcp.path)
    assert response.status_code == 405
    assert response["Allow"] == "POST"


# -- Host and Origin -------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "testserver.evil.example", "bad host", "[::1"])
def test_a_host_outside_allowed_hosts_is_refused(mcp, host):
    response = mcp.send(PING, headers={"Host": host})
    assert response.status_code == 400


def test_the_view_refuses_a_foreign_host_itself_without_middleware(alice):
    request = RequestFactory().post("/mcp", PING, content_type="application/json", HTTP_HOST="evil")
    response = MCPView.as_view()(request)
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == -32600


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
        # The scheme and the port count, not just the host (the request is http, port 80).
        ("https://testserver", [], 403),
        ("ftp://testserver", [], 403),
        ("//testserver", [], 403),
        ("testserver", [], 403),
        ("http://testserver:443", [], 403),
        ("http://testserver:80", [], 200),
        ("HTTP://TestServer", [], 200),
        # An origin is a scheme, a host and a port: nothing else.
        ("http://testserver/", [], 403),
        ("http://user@testserver", [], 403),
        ("http://testserver?x", [], 403),
        ("http://testserver:99999", [], 403),
    ],
)
def test_origin(mcp, settings, origin, allowed, status):
    settings.MCP_TOOLS = {"ALLOWED_ORIGINS": allowed}
    response = mcp.send(PING, headers={"Origin": origin})
    assert response.status_code == status
    if status == 403:
        assert json.loads(response.content)["error"]["code"] == -32600


@pytest.mark.parametrize(
    ("secure", "host", "origin", "status"),
    [
        (True, "testserver", "https://testserver", 200),
        (True, "testserver", "https://testserver:443", 200),
        (True, "testserver", "http://testserver", 403),
        (False, "testserver:8000", "http://testserver:8000", 200),
        (False, "testserver:8000", "http://testserver", 403),
        (False, "127.0.0.1:8000", "http://127.0.0.1:8000", 200),
        (False, "[::1]:8000", "http://[::1]:8000", 200),
        (False, "[::1]:8000", "http://[::1]:8001", 403),
    ],
)
def test_the_origin_must_be_the_requests_own_scheme_host_and_port(
    alice, settings, secure, host, origin, status
):
    settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1", "[::1]"]
    request = RequestFactory().post(
        "/mcp",
        PING,
        content_type="application/json",
        secure=secure,
        HTTP_HOST=host,
        HTTP_ORIGIN=origin,
        HTTP_AUTHORIZATION=f"Token {alice.token}",
    )
    assert MCPView.as_view()(request).status_code == status


# -- Content-Type and Accept -----------------------------------------------------------------


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
def test_content_type(mcp, content_type, status):
    assert mcp.send(PING, content_type=content_type).status_code == status


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
        ("application/json;q=0", 406),
        ("application/json;q=0, text/event-stream", 406),
    ],
)
def test_accept(mcp, accept, status):
    assert mcp.send(PING, headers={"Accept": accept}).status_code == status


# -- The body: its size and its nesting ------------------------------------------------------


def test_an_oversized_body_is_refused_before_parsing(mcp, settings):
    settings.MCP_TOOLS = {"MAX_REQUEST_BYTES": 100}
    response = mcp.send(mcp.message("ping", {"pad": "x" * 200}))
    assert response.status_code == 413
    assert error_of(response)["code"] == -32600


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
def test_a_malformed_content_length_is_never_a_500(mcp, content_length):
    response = mcp.send(PING, headers={"Content-Length": content_length})
    assert response.status_code in (200, 400, 413)


def test_a_deeply_nested_body_is_refused(mcp, settings):
    settings.MCP_TOOLS = {"MAX_JSON_DEPTH": 5}
    params = {"a": {"b": {"c": {"d": {"e": 1}}}}}
    response = mcp.send(mcp.message("ping", params))
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


@pytest.mark.parametrize(
    ("depth", "status", "code"),
    [(10, 200, None), (65, 400, -32600), (100_000, 400, -32600)],
)
def test_json_nesting_is_bounded(mcp, settings, depth, status, code):
    settings.MCP_TOOLS = {"MAX_REQUEST_BYTES": 1_000_000}
    params = "[" * depth + "]" * depth
    body = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"deep":' + params + "}}"
    response = mcp.send(body)
    assert response.status_code == status
    if code is not None:
        assert json.loads(response.content)["error"]["code"] == code


# -- Batches ---------------------------------------------------------------------------------


def test_a_batch_of_notifications_only_is_accepted_with_202(mcp):
    # No MCP-Protocol-Version: 2025-03-26 applies, the one version with batches.
    batch = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    response = mcp.send(batch, headers={"MCP-Protocol-Version": None})
    assert response.status_code == 202 and response.content == b""


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_batches_are_refused_outside_2025_03_26(mcp, version):
    response = mcp.send([mcp.message("ping", {})], headers={"MCP-Protocol-Version": version})
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == -32600


def test_a_batch_longer_than_max_batch_size_is_refused_whole_before_any_item_runs(mcp):
    from tests.testapp.models import Entry

    write = {"name": "entry_write", "arguments": {"label": "x"}}
    batch = [mcp.message("tools/call", write) for _ in range(21)]
    response = mcp.send(batch, headers={"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == -32600 and "21" in error["message"] and "20" in error["message"]
    assert Entry.objects.count() == 0
    answers = mcp.send(batch[:20], headers={"MCP-Protocol-Version": "2025-03-26"})
    assert len(json.loads(answers.content)) == 20
    assert Entry.objects.count() == 20


def test_max_batch_size_is_a_setting(mcp, settings):
    settings.MCP_TOOLS = {"MAX_BATCH_SIZE": 2}
    batch = [mcp.message("ping") for _ in range(3)]
    response = mcp.send(batch, headers={"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 400
    assert len(json.loads(mcp.send(batch[:2], headers={"MCP-Protocol-Version": None}).content)) == 2


# -- Authentication and CSRF -----------------------------------------------------------------


def test_missing_credentials_get_401_with_the_first_classs_challenge(anonymous_mcp):
    # DRF's rule: the first authentication class's authenticate_header(), "Token" here, so
    # no client starts an OAuth flow the site does not offer (docs/security.md).
    response = anonymous_mcp.send(anonymous_mcp.message("tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert error_of(response)["message"] == "Authentication credentials were not provided."


def test_a_bad_token_gets_401_with_the_same_challenge():
    client = MCPClient(headers={"Authorization": "Token nope"})
    response = client.send(client.message("tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert error_of(response)["message"] == "Invalid token."


def test_session_callers_must_pass_csrf(alice):
    client = MCPClient(enforce_csrf_checks=True)
    client.force_login(alice)
    refused = client.send(client.message("ping"))
    assert refused.status_code == 403
    assert error_of(refused)["message"].startswith("CSRF Failed")
    client.cookies["csrftoken"] = "a" * 32
    accepted = client.send(client.message("ping"), headers={"X-CSRFToken": "a" * 32})
    assert accepted.status_code == 200


# -- JSON or an SSE stream -------------------------------------------------------------------


def test_without_event_stream_in_accept_the_answer_is_plain_json(mcp):
    params = {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 1}}
    response = mcp.send(mcp.message("tools/call", params), headers={"Accept": "application/json"})
    assert not response.streaming and response["Content-Type"] == "application/json"
    assert json.loads(response.content)["result"]["isError"] is False


def test_a_plain_call_is_plain_json(mcp):
    params = {"name": "test_tool_with_progress", "arguments": {}}
    response = mcp.send(mcp.message("tools/call", params))
    assert not response.streaming


def test_invalid_arguments_of_a_stream_tool_answer_at_once_as_json(mcp):
    params = {"name": "session_counter", "arguments": {"step": "one"}}
    response = mcp.send(mcp.message("tools/call", params))
    assert not response.streaming
    result = json.loads(response.content)["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Invalid arguments:")


def test_a_get_probe_is_answered_405_without_a_warning_in_the_log(mcp):
    # Clients probe GET for the optional server stream on every connection (docs/protocol.md);
    # Django's own 405 logs "Method Not Allowed (GET): /mcp" on django.request each time.
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    loggers = [logging.getLogger(name) for name in ("django.request", "mcp_tools")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        response = mcp.get(mcp.path)
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
    assert (response.status_code, response["Allow"]) == (405, "POST")
    assert [r.getMessage() for r in records if r.levelno >= logging.WARNING] == []


# -- the endpoints the URLconf mounts -------------------------------------------------------


def test_served_registries_are_the_default_then_each_mounted_one_once(settings):
    import types

    from django.urls import path

    from mcp_tools.endpoint.mounts import served_registries
    from mcp_tools.tools.registry import ToolRegistry, registry

    first, second = ToolRegistry(), ToolRegistry()
    module = types.ModuleType("served_urls")
    module.urlpatterns = [
        path("a/mcp", MCPView.as_view(registry=second)),
        path("b/mcp", MCPView.as_view(registry=first, tags=["x"])),
        path(
            "<slug:tenant>/mcp", MCPView.as_view(registry=first)
        ),  # no one path: served all the same
        path("c/mcp", MCPView.as_view(registry=second)),
    ]
    settings.ROOT_URLCONF = module
    assert served_registries() == (registry, second, first)
    module = types.ModuleType("unserved_urls")
    module.urlpatterns = []
    settings.ROOT_URLCONF = module  # a new URLconf: found again
    assert served_registries() == (registry,)  # its tools are the project's, mounted or not


def test_a_long_method_a_batch_cannot_carry_is_clipped_in_its_refusal(mcp):
    from mcp_tools.protocol.versions import PROTOCOL_VERSION_META_KEY

    method = "m" * 200_000
    message = {"jsonrpc": "2.0", "id": 1, "method": method}
    message["params"] = {"_meta": {PROTOCOL_VERSION_META_KEY: "2026-07-28"}}
    response = mcp.send([message], headers={"MCP-Protocol-Version": "2025-03-26"})
    [answer] = json.loads(response.content)
    assert answer["error"]["code"] == -32600
    assert answer["error"]["message"].endswith("… cannot be batched")
    assert len(response.content) < 500
