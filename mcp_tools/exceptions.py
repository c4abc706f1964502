"""Exceptions a view raises to speak to the MCP client."""

from __future__ import annotations

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


class ClientDisconnected(Exception):
    """The MCP client has gone away; a long-running view should stop."""
