"""Validate what the endpoint sent, as captured on the wire, against the official schemas."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "mcp-schema"

RESULT_DEFINITIONS = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "logging/setLevel": "EmptyResult",
}


@cache
def _schema(version: str) -> dict[str, Any]:
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
    if not isinstance(request, dict) or "id" not in request:
        assert status == 202 and body == b"", (status, body)
        return
    message = json.loads(body)
    if "error" in message:
        name = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in _defs(version) else "JSONRPCError"
        validator(version, name).validate(message)
        return
    name = "JSONRPCResultResponse" if "JSONRPCResultResponse" in _defs(version) else "JSONRPCResponse"
    validator(version, name).validate(message)
    assert message["id"] == request["id"]
    definition = RESULT_DEFINITIONS.get(request["method"])
    assert definition, f"no result definition for {request['method']}"
    validator(version, definition).validate(message["result"])


def _defs(version: str) -> dict[str, Any]:
    schema = _schema(version)
    return schema.get("$defs") or schema["definitions"]
