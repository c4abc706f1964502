"""Helpers of the prompts' tests: a client per era whose every answer is checked against
that version's wire schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_tools.prompts.registry import prompt_registry
from mcp_tools.test import MCPClient
from tests.wire import validate_exchange

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]


class CheckedClient(MCPClient):
    """An ``MCPClient`` that validates each answer against its version's schema."""

    def exchange(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request; return its whole JSON-RPC answer (result or error), checked."""
        message = self.message(method, params)
        response = self.send(message)
        validate_exchange(self.protocol_version, message, response.status_code, response.content)
        return json.loads(response.content)


@pytest.fixture(autouse=True)
def _conformance_rows(conformance_prompts):
    """Every prompts test sees the conformance app's rows, whatever ran before it."""


@pytest.fixture
def client_for(alice):
    def make(version: str = "2025-11-25", user: Any = None, **kwargs: Any) -> CheckedClient:
        token = (user or alice).token
        return CheckedClient(
            headers={"Authorization": f"Token {token}"}, protocol_version=version, **kwargs
        )

    return make


@pytest.fixture
def code_prompts(monkeypatch):
    """The default registry, given back as it was after the test."""
    monkeypatch.setattr(prompt_registry, "_prompts", dict(prompt_registry._prompts))
    return prompt_registry
