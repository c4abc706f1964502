"""Call a tool as a user, through the same pipeline as the endpoint, and print the result."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.management.base import BaseCommand, CommandError, CommandParser

from mcp_tools.auth.caller import Caller
from mcp_tools.conf import mcp_settings
from mcp_tools.endpoint import local
from mcp_tools.models import ExposedTool
from mcp_tools.pipeline import arguments as tool_arguments
from mcp_tools.protocol.jsonrpc import JSONRPCError, NotStrictJSON
from mcp_tools.protocol.versions import HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION


class Command(BaseCommand):
    help = (
        "Call an MCP tool in-process as a user (--user), through the endpoint's pipeline "
        "(visibility, argument checks, the view with its own permissions, the result "
        "contract, the call log), and print the JSON-RPC result. Exits 1 when the tool "
        "answers an error."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="The tool's name (see mcp_list).")
        parser.add_argument(
            "--user",
            help="The username to call as (default: anonymous; a tool that needs a user is "
            "hidden from anonymous callers).",
        )
        parser.add_argument(
            "--args", dest="arguments", default="{}", metavar="JSON", help="The arguments object."
        )
        parser.add_argument(
            "--protocol-version", default=LATEST_HANDSHAKE_VERSION, choices=HANDSHAKE_VERSIONS
        )
        parser.add_argument(
            "--endpoint",
            metavar="URL_NAME",
            help="The URL name of the endpoint to call through (default: mcp_tools:endpoint, "
            "else the first mounted endpoint that serves the tool).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            # Read as the endpoint reads a request body, so --args can't pass what it refuses.
            arguments = tool_arguments.loads(options["arguments"])
        except NotStrictJSON as exc:
            raise CommandError(f"--args is not valid JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise CommandError("--args must be a JSON object, e.g. '{\"pk\": 1}'.")
        user = self.user(options["user"])
        try:
            path, endpoint = local.mounted_endpoint(options["endpoint"], tool=options["name"])
        except local.NoEndpoint as exc:
            raise CommandError(str(exc)) from None
        request = local.endpoint_request(path, host=self.host())
        request.user = user
        # The user is handed to every view, whatever its authentication classes: this is
        # the operator acting as that user, not a request carrying their credentials.
        caller = Caller.acting_as(user) if user.is_authenticated else self.anonymous()
        try:
            result = local.call_tool(
                request,
                caller,
                options["name"],
                arguments,
                endpoint=endpoint,
                protocol_version=options["protocol_version"],
            )
        except JSONRPCError as error:
            message = error.message
            if message.startswith("Unknown tool:"):
                message = self.hidden(options["name"], endpoint, user, message)
            raise CommandError(message) from None
        self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
        if result.get("isError"):
            raise CommandError("The tool answered an error.", returncode=1)

    def hidden(self, name: str, endpoint: Any, user: Any, message: str) -> str:
        """Say why tool ``name`` is unknown to ``user``: no such tool, or hidden, and how."""
        if not endpoint.serves_name(name):
            return f"{message} (no such tool: see manage.py mcp_list)"
        if not ExposedTool.objects.filter(name=name, enabled=False).exists():
            if not user.is_authenticated:
                return (
                    f"Tool {name!r} is hidden from anonymous callers: it needs a user. "
                    "Call it as one with --user USERNAME."
                )
            return (
                f"Tool {name!r} is hidden from user {user.get_username()!r}: they are not in "
                "its allowed groups, or its view's permissions refuse them "
                "(see manage.py mcp_list)."
            )
        return f"Tool {name!r} is disabled in admin (see manage.py mcp_list)."

    def user(self, username: str | None) -> Any:
        if username is None:
            return AnonymousUser()
        model = get_user_model()
        try:
            return model._default_manager.get_by_natural_key(username)
        except model.DoesNotExist:
            raise CommandError(f"No user {username!r}.") from None

    def anonymous(self) -> Caller:
        return Caller(user=AnonymousUser(), auth=None, authentication_classes=())

    def host(self) -> str:
        # A host the project allows: the views' absolute URLs are built with it.
        allowed = [host for host in mcp_settings.allowed_hosts if "*" not in host]
        host = allowed[0] if allowed else "localhost"
        return host.lstrip(".")
