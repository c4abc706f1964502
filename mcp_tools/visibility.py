"""Who sees which tool: the one rule of ``tools/list`` and ``tools/call``.

A caller sees, and may call, a tool when the admin has it enabled, the caller is in one of
its allowed groups (if it has any), and the view's permission classes admit the caller:
``has_permission`` on a view set up for that action, with a request as the view itself
would see the caller. Object permissions (``has_object_permission``) are the view's to
check when it runs, as in DRF. A hidden tool is an unknown tool, never a 403 that names it,
but for an OAuth token that lacks only scopes (``missing_scopes``: the 403 of a step-up).
"""

from __future__ import annotations

import copy
import logging
import threading
from typing import Any

from django.http import HttpRequest
from rest_framework.exceptions import APIException
from rest_framework.request import Request

from .authentication import Caller, missing_scopes
from .catalog import Rule
from .schemas.introspection import view_for
from .tools import Tool

logger = logging.getLogger("mcp_tools")

#: Tools whose permission classes raised: warned about once per process.
_warned: set[str] = set()
_warned_lock = threading.Lock()


class Visibility:
    """Decide, for one /mcp request, which tools its caller sees."""

    def __init__(self, request: HttpRequest, caller: Caller) -> None:
        self.request = request
        self.caller = caller
        self._group_ids: frozenset[int] | None = None
        #: Per (method, authentication): the view's request, or None when the view's own
        #: authentication refuses the caller's credentials.
        self._requests: dict[Any, Request | None] = {}

    def admits(self, tool: Tool, rule: Rule) -> bool:
        """Return whether the caller sees (and may call) ``tool`` under the admin's ``rule``."""
        return self.rule_admits(rule) and self.permitted(tool)

    def rule_admits(self, rule: Rule) -> bool:
        """Return whether the admin's rule admits the caller: enabled, and its groups."""
        return rule.enabled and not (rule.group_ids and not rule.group_ids & self.group_ids())

    def missing_scopes(self, tool: Tool, rule: Rule) -> list[str] | None:
        """Return the scopes the caller's token needs for ``tool`` when they are all it
        lacks (the admin's rule admits the caller), else None: a step-up can help.

        Asked of the authentication class that accepted the token (``insufficient_scope``,
        ``mcp_tools.contrib.oauth``); the view's own permission classes say what they need.
        """
        if not self.rule_admits(rule):
            return None
        request = self.view_request(tool)
        if request is None:
            return None
        view = view_for(tool.view_class, tool.route, tool.method, tool.action, request)
        try:
            return missing_scopes(self.caller.authenticator, request, view)
        except Exception:
            logger.warning(
                "Tool %s: its required scopes could not be read", tool.name, exc_info=True
            )
            return None

    def group_ids(self) -> frozenset[int]:
        """Return the caller's groups, read once per request, and only if a rule needs them."""
        if self._group_ids is None:
            user = self.caller.user
            if getattr(user, "is_authenticated", False):
                self._group_ids = frozenset(user.groups.values_list("pk", flat=True))
            else:
                self._group_ids = frozenset()
        return self._group_ids

    def permitted(self, tool: Tool) -> bool:
        """Return whether the view's permission classes admit the caller (``has_permission``)."""
        request = self.view_request(tool)
        if request is None:
            return False  # the view's own authentication refuses the caller's credentials
        view = view_for(tool.view_class, tool.route, tool.method, tool.action, request)
        try:
            return all(p.has_permission(request, view) for p in view.get_permissions())
        except APIException:
            return False  # NotAuthenticated, PermissionDenied raised rather than returned
        except Exception:
            # A permission class that can't answer here (it needs the object, a queryset the
            # view builds late, ...): listed, and the view decides when it runs.
            with _warned_lock:
                first = tool.name not in _warned
                _warned.add(tool.name)
            if first:
                logger.warning(
                    "Tool %s: its permission classes raised on has_permission; it is listed to "
                    "every caller and the view decides when it runs",
                    tool.name,
                    exc_info=True,
                )
            return True

    def view_request(self, tool: Tool) -> Request | None:
        """Return the DRF request the tool's view would see (its method, the caller as the
        view's own authentication reads the credentials), or None when that refuses them.

        Built once per (method, authentication) of this /mcp request.
        """
        identity = self.caller.identity_for(tool.view_class)
        key = (tool.method, identity is not None or tool.view_class)
        if key not in self._requests:
            # A copy of the /mcp request, so that nothing DRF writes (the user) reaches it.
            http = copy.copy(self.request)
            http.method = tool.method
            if identity is not None:
                http._force_auth_user, http._force_auth_token = identity  # type: ignore[attr-defined]
                self._requests[key] = Request(http)
            else:
                view = view_for(tool.view_class, tool.route, tool.method, tool.action)
                request = Request(http, authenticators=view.get_authenticators())
                try:
                    request.user  # noqa: B018  (authenticate now, as the view would)
                except APIException:
                    self._requests[key] = None
                else:
                    self._requests[key] = request
        return self._requests[key]
