"""The site's ``server.json``: its listing in the official MCP registry (docs/registry.md).

The registry lists a remote MCP server by a reverse-DNS name, a one-line description, a
version and the URL of its Streamable HTTP endpoint. ``SERVER_JSON_SCHEMA`` states the
rules of the registry's published schema (2025-12-11) that this listing relies on, so a
listing that would be refused is refused here first, with the field that is wrong.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft7Validator

SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

SERVER_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["$schema", "name", "description", "version", "remotes"],
    "properties": {
        "$schema": {"const": SCHEMA_URL},
        # Exactly one slash: the namespace (reverse DNS of a domain one controls), the name.
        "name": {
            "type": "string",
            "minLength": 3,
            "maxLength": 200,
            "pattern": r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$",
        },
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        # One concrete version: never "latest", never a range.
        "version": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "not": {"enum": ["latest"]},
            "pattern": r"^[^\s^~*<>=|]+$",
        },
        "websiteUrl": {"type": "string", "pattern": r"^https?://"},
        "icons": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["src"],
                "properties": {
                    "src": {"type": "string", "pattern": r"^https://"},
                    "mimeType": {"type": "string"},
                    "sizes": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "remotes": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["type", "url"],
                "properties": {
                    "type": {"enum": ["streamable-http", "sse"]},
                    "url": {"type": "string", "pattern": r"^https?://"},
                    "headers": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["name"],
                            "properties": {
                                "name": {"type": "string"},
                                "description": {"type": "string"},
                                "isRequired": {"type": "boolean"},
                                "isSecret": {"type": "boolean"},
                            },
                        },
                    },
                },
            },
        },
    },
}

_validator = Draft7Validator(SERVER_JSON_SCHEMA)


def listing(
    *,
    name: str,
    description: str,
    version: str,
    url: str,
    title: str | None = None,
    website_url: str | None = None,
    icons: list[dict[str, Any]] | None = None,
    authorization: str | None = None,
) -> dict[str, Any]:
    """Return the ``server.json`` document; ``authorization`` describes a required header."""
    document: dict[str, Any] = {"$schema": SCHEMA_URL, "name": name}
    if title:
        document["title"] = title
    document["description"] = description
    document["version"] = version
    if website_url:
        document["websiteUrl"] = website_url
    if icons:
        document["icons"] = icons
    remote: dict[str, Any] = {"type": "streamable-http", "url": url}
    if authorization:
        remote["headers"] = [
            {
                "name": "Authorization",
                "description": authorization,
                "isRequired": True,
                "isSecret": True,
            }
        ]
    document["remotes"] = [remote]
    return document


def problems(document: dict[str, Any]) -> list[str]:
    """Return one line per rule of the registry's schema that ``document`` breaks."""
    return [
        f"{error.json_path}: {error.message}"
        for error in sorted(_validator.iter_errors(document), key=lambda e: e.json_path)
    ]
