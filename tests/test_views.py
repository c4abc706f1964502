"""The /mcp endpoint's transport rules and its answers to bad input: never a 500."""

import json

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

JSON = "application/json"
ACCEPT = "application/json, text/event-stream"


@pytest.fixture
def client(alice):
    return Client(headers={"Authorization": f"Token {alice.token}", "Accept": ACCEPT})


def post(client, body, **kwargs):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post("/mcp", data=data, content_type=kwargs.pop("content_type", JSON), **kwargs)


def rpc(method, params=None, id=1):
    message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def error_of(response):
    payload = json.loads(response.content)
    assert set(payload) == {"jsonrpc", "id", "error"}
    return payload["error"]


@pytest.mark.parametrize(
    ("requested", "answered"),
    [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
        (None, "2025-11-25"),
    ],
)
def test_initialize_echoes_a_supported_handshake_version(client, requested, answered):
    response = post(client, rpc("initialize", {"protocolVersion": requested, "capabilities": {}}))
    result = json.loads(response.content)["result"]
    assert result["protocolVersion"] == answered
    assert result["serverInfo"] == {
        "name": "mcp-tools-tests",
        "version": "0.1.0",
        "title": "Test server",
    }
    assert result["capabilities"] == {"tools": {"listChanged": False}, "logging": {}}
    assert "Mcp-Session-Id" not in response


def test_initialize_sends_instructions_from_settings(client, settings):
    settings.MCP_TOOLS = {"INSTRUCTIONS": "Be brief."}
    result = json.loads(post(client, rpc("initialize", {"capabilities": {}})).content)["result"]
    assert result["instructions"] == "Be brief."
    assert result["serverInfo"] == {"name": "django-mcp-tools", "version": "0.1.0"}


def test_ping_answers_an_empty_result(client):
    assert json.loads(post(client, rpc("ping", id="a")).content) == {
        "jsonrpc": "2.0",
        "id": "a",
        "result": {},
    }


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 7, "result": {}},
    ],
)
def test_notifications_and_responses_get_202_without_body(client, message):
    response = post(client, message)
    assert response.status_code == 202
    assert response.content == b""


@pytest.mark.parametrize("method", ["resources/list", "prompts/get", "nope"])
def test_unknown_methods_answer_method_not_found_at_once(client, method):
    response = post(client, rpc(method))
    assert error_of(response) == {"code": -32601, "message": f"Method not found: {method}"}


@pytest.mark.parametrize("method", ["get", "delete"])
def test_get_and_delete_are_not_allowed(client, method):
    response = getattr(client, method)("/mcp")
    assert response.status_code == 405
    assert response["Allow"] == "POST"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("{not json", 400, -32700),
        ("   ", 400, -32700),
        (b"\xff\xfe", 400, -32700),
        ("[]", 400, -32600),
        ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', 400, -32600),
        ('"just a string"', 400, -32600),
        ('{"id": 1, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "1.0", "id": 1, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1, "method": 5}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1}', 400, -32600),
    ],
)
def test_malformed_json_rpc_gets_a_clear_error(client, body, status, code):
    # 2025-11-25: batches are refused (only 2025-03-26, the header-less default, has them).
    response = post(client, body, headers={"MCP-Protocol-Version": "2025-11-25"})
    assert response.status_code == status
    assert error_of(response)["code"] == code


def test_a_deeply_nested_body_is_refused(client, settings):
    settings.MCP_TOOLS = {"MAX_JSON_DEPTH": 5}
    params = {"a": {"b": {"c": {"d": {"e": 1}}}}}
    response = post(client, rpc("ping", params))
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


def test_an_oversized_body_is_refused_before_parsing(client, settings):
    settings.MCP_TOOLS = {"MAX_REQUEST_BYTES": 100}
    response = post(client, rpc("ping", {"pad": "x" * 200}))
    assert response.status_code == 413
    assert error_of(response)["code"] == -32600


def test_non_json_content_type_is_unsupported(client):
    response = post(client, json.dumps(rpc("ping")), content_type="text/plain")
    assert response.status_code == 415


def test_accept_that_excludes_json_is_not_acceptable(alice):
    client = Client(headers={"Authorization": f"Token {alice.token}", "Accept": "text/html"})
    assert post(client, rpc("ping")).status_code == 406


@pytest.mark.parametrize(
    ("origin", "status"),
    [("http://evil.example", 403), ("http://testserver", 200), ("null", 403)],
)
def test_foreign_origins_are_forbidden(alice, origin, status):
    client = Client(headers={"Authorization": f"Token {alice.token}", "Origin": origin})
    assert post(client, rpc("ping")).status_code == status


def test_allowed_origins_setting_admits_an_origin(alice, settings):
    settings.MCP_TOOLS = {"ALLOWED_ORIGINS": ["https://app.example"]}
    client = Client(
        headers={"Authorization": f"Token {alice.token}", "Origin": "https://app.example"}
    )
    assert post(client, rpc("ping")).status_code == 200


def test_missing_credentials_get_401_with_a_bearer_challenge():
    response = post(Client(), rpc("tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert error_of(response)["message"] == "Authentication credentials were not provided."


def test_a_bad_token_gets_401_with_an_invalid_token_challenge():
    response = post(Client(headers={"Authorization": "Token nope"}), rpc("tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer error="invalid_token"'


def test_an_unsupported_protocol_version_header_is_a_bad_request(client):
    response = post(client, rpc("tools/list"), headers={"MCP-Protocol-Version": "1999-01-01"})
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


def test_session_callers_must_pass_csrf(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    refused = post(client, rpc("ping"))
    assert refused.status_code == 403
    assert error_of(refused)["message"].startswith("CSRF Failed")
    client.cookies["csrftoken"] = "a" * 32
    assert post(client, rpc("ping"), headers={"X-CSRFToken": "a" * 32}).status_code == 200


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"name": "todo_list", "arguments": []}, "Invalid params: arguments must be an object"),
        ({"name": "todo_list", "arguments": "x"}, "Invalid params: arguments must be an object"),
        ({"name": "todo_list", "arguments": 3}, "Invalid params: arguments must be an object"),
        ({"name": "no_such_tool"}, "Unknown tool: no_such_tool"),
        ({"name": 5}, "Invalid params: name must be a string"),
        ({}, "Invalid params: name must be a string"),
    ],
)
def test_bad_tool_calls_get_invalid_params(client, params, message):
    response = post(client, rpc("tools/call", params))
    assert response.status_code == 200
    assert error_of(response) == {"code": -32602, "message": message}


@pytest.mark.parametrize("arguments", [None, {}])
def test_null_or_absent_arguments_mean_an_empty_object(client, arguments):
    params = {"name": "todo_list"}
    if arguments is not None:
        params["arguments"] = arguments
    result = json.loads(post(client, rpc("tools/call", params)).content)["result"]
    assert result["isError"] is False


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        ({"title": 5}, "Invalid arguments: $.title: 5 is not of type 'string'"),
        ({}, "Invalid arguments: $: 'title' is a required property"),
        (
            {"title": "ok", "colour": "red"},
            "Invalid arguments: $: Additional properties are not allowed ('colour' was unexpected)",
        ),
        (
            {"title": "x" * 201, "done": "yes"},
            "Invalid arguments: $.done: 'yes' is not of type 'boolean'\n"
            f"Invalid arguments: $.title: '{'x' * 201}' is too long",
        ),
    ],
)
def test_wrong_arguments_are_a_tool_error_with_one_line_per_problem(client, arguments, text):
    params = {"name": "todo_create", "arguments": arguments}
    result = json.loads(post(client, rpc("tools/call", params)).content)["result"]
    assert result == {"content": [{"type": "text", "text": text}], "isError": True}


def test_a_path_argument_that_leaves_its_pattern_never_reaches_another_view(client):
    params = {"name": "file_get", "arguments": {"name": "../../api/todos"}}
    result = json.loads(post(client, rpc("tools/call", params)).content)["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Invalid arguments: $.name:")


def test_a_server_fault_is_a_json_rpc_internal_error_without_a_traceback(alice, settings, caplog):
    # DjangoModelPermissions needs a queryset the endpoint does not have: a misconfiguration.
    settings.MCP_TOOLS = {
        "PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"]
    }
    client = Client(
        headers={"Authorization": f"Token {alice.token}"}, raise_request_exception=False
    )
    response = post(client, rpc("tools/list"))
    assert response.status_code == 500
    assert response["Content-Type"] == JSON
    error = error_of(response)
    assert error["code"] == -32603 and error["message"] == "Internal error"
    assert error["data"]["errorRef"] in caplog.text
    assert b"Traceback" not in response.content
