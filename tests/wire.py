"""Validate what the endpoint sent, as captured on the wire, against the official schemas."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "mcp-schema"
#: The tasks extension's schema (tests/mcp-ext-tasks/README.md), for 2026-07-28's tasks.
EXTENSION_SCHEMA = Path(__file__).resolve().parent / "mcp-ext-tasks" / "schema.json"
EXTENSION_VERSION = "ext-tasks"

RESULT_DEFINITIONS = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "logging/setLevel": "EmptyResult",
    "server/discover": "DiscoverResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    # 2025-11-25's experimental tasks: tasks/result answers what the tools/call would have.
    "tasks/get": "GetTaskResult",
    "tasks/result": "CallToolResult",
    "tasks/list": "ListTasksResult",
    "tasks/cancel": "CancelTaskResult",
}
#: The notifications a listener's stream carries (docs/subscriptions.md).
NOTIFICATION_DEFINITIONS = {
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
}
#: The results of 2026-07-28's tasks extension, defined by its own schema.
EXTENSION_DEFINITIONS = {
    "tasks/get": "GetTaskResult",
    "tasks/update": "UpdateTaskResult",
    "tasks/cancel": "CancelTaskResult",
}


@cache
def _schema(version: str) -> dict[str, Any]:
    if version == EXTENSION_VERSION:
        return json.loads(EXTENSION_SCHEMA.read_text())
    return json.loads((SCHEMA_ROOT / version / "schema.json").read_text())


@cache
def validator(version: str, definition: str) -> jsonschema.protocols.Validator:
    """Return a validator of one definition of a version's schema."""
    schema = _schema(version)
    key = "$defs" if "$defs" in schema else "definitions"
    root = {
        "$schema": schema["$schema"],
        key: schema[key],
        "$ref": f"#/{key}/{definition}",
    }
    cls = jsonschema.validators.validator_for(root)
    return cls(root)


def validate_exchange(version: str, request: Any, status: int, body: bytes) -> None:
    """Check one HTTP exchange: a request (or notification) and what the endpoint answered."""
    if not isinstance(request, dict) or "id" not in request or "method" not in request:
        # A notification, or the client's response to a request of the server's.
        assert status == 202 and body == b"", (status, body)
        return
    message = json.loads(body)
    if "error" in message:
        name = "JSONRPCError"
        if "JSONRPCErrorResponse" in _defs(version):
            name = "JSONRPCErrorResponse"
        validator(version, name).validate(message)
        return
    name = "JSONRPCResponse"
    if "JSONRPCResultResponse" in _defs(version):
        name = "JSONRPCResultResponse"
    validator(version, name).validate(message)
    assert message["id"] == request["id"]
    method, result = request["method"], message["result"]
    if version >= "2026-07-28" and (method in EXTENSION_DEFINITIONS or is_task(result)):
        # The tasks extension's messages: a task handle for a tools/call, tasks/*.
        definition = "CreateTaskResult" if method == "tools/call" else EXTENSION_DEFINITIONS[method]
        validator(EXTENSION_VERSION, definition).validate(result)
        return
    definition = RESULT_DEFINITIONS.get(method)
    assert definition, f"no result definition for {method}"
    if method == "tools/call" and "task" in (request.get("params") or {}):
        definition = "CreateTaskResult"  # 2025-11-25's task-augmented call
    if result.get("resultType") == "input_required":
        assert version >= "2026-07-28" and method in ("tools/call", "prompts/get"), message
        definition = "InputRequiredResult"  # its inputRequests validate as InputRequest
    validator(version, definition).validate(result)


def is_task(result: Any) -> bool:
    """Return whether a 2026-07-28 result is the extension's task handle."""
    return isinstance(result, dict) and result.get("resultType") == "task"


def sse_messages(body: bytes) -> list[Any]:
    """Return the JSON-RPC messages of an SSE body, in order (``data:`` lines per event)."""
    messages = []
    for event in body.decode().replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in event.split("\n") if line.startswith("data:")]
        if data:
            messages.append(json.loads("\n".join(data)))
    return messages


def validate_stream(version: str, request: Any, body: bytes) -> list[Any]:
    """Check an SSE answer: server notifications and requests (the handshake era's input
    requests), then exactly one response, last."""
    messages = sse_messages(body)
    assert messages, "an empty stream"
    *notifications, answer = messages
    for notification in notifications:
        if "id" in notification:
            validate_server_request(version, notification)
        else:
            validator(version, "ServerNotification").validate(notification)
    validate_exchange(version, request, 200, json.dumps(answer).encode())
    return messages


def _defs(version: str) -> dict[str, Any]:
    schema = _schema(version)
    return schema.get("$defs") or schema["definitions"]


def validate_server_request(version: str, message: Any) -> None:
    """Check a request the server sent its client: a JSON-RPC request, and one the version's
    ``ServerRequest`` defines (``elicitation/create``, ``sampling/createMessage``,
    ``roots/list``)."""
    validator(version, "JSONRPCRequest").validate(message)
    validator(version, "ServerRequest").validate(message)
    assert message["method"] in {"elicitation/create", "sampling/createMessage", "roots/list"}


def validate_notification(version: str, message: dict[str, Any]) -> dict[str, Any]:
    """Return a listener's notification once its version's schema accepts it."""
    validator(version, NOTIFICATION_DEFINITIONS[message["method"]]).validate(message)
    return message
