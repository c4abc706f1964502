"""Exceptions a view raises to speak to the MCP client."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import status
from rest_framework.exceptions import APIException


class ToolError(APIException):
    """Fail the tool call with this message, kept even when errors are masked.

    Over plain HTTP it is an ordinary 400 response.
    """

    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = _("The tool call failed.")
    default_code = "tool_error"


class InputUnavailable(ToolError):
    """The client can't give the input a view asked for (``elicit``, ``request_input``).

    Raised outside a tool call, in the handshake era, and when the client did not declare
    the capability the request needs. Uncaught, the model reads the message; a 2026-07-28
    client that did not declare the capability gets the protocol's -32021 error instead
    (docs/input.md).
    """

    default_detail = _("This tool needs input from the user, which this client cannot provide")
    default_code = "input_unavailable"

    def __init__(self, detail: Any = None, code: Any = None) -> None:
        super().__init__(detail, code)
        #: The ``ClientCapabilities`` the request needed, when the client lacked them.
        self.required_capabilities: dict[str, Any] | None = None


class ClientDisconnected(Exception):
    """The MCP client has gone away; a long-running view should stop."""
