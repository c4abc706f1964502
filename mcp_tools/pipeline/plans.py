"""The call plan: what every call of one tool shares, worked out once, not per call.

Two calls of a tool differ only in their arguments and their caller. The view they run, as
Django's handler would run it (in the transaction its database asks for), the fixed part
of the view's request (its method, its ``Accept``, and for a route without parameters its
path and the match of it), the question put to the user before the view runs: none of
that changes from one call to the next. A ``CallPlan`` holds it for one tool of one catalog
(one version of the admin state) under one settings generation, made at the tool's first
call; a call then does only what its own arguments and caller need
(docs/performance.md#the-call-plan).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.core.handlers.base import BaseHandler
from django.db import connections
from django.http import HttpResponseBase
from rest_framework.utils.mediatypes import media_type_matches

from ..conf import mcp_settings
from ..inputs.asks import confirmation
from ..tools.tool import Tool
from .arguments import SplitArguments

__all__ = ["CallPlan"]

JSON = "application/json"

# Its make_view_atomic() is Django's own rule for wrapping a view in ATOMIC_REQUESTS.
_handler = BaseHandler()


class CallPlan:
    """What every call of one tool shares (built by ``Catalog.plan``)."""

    __slots__ = (
        "tool",
        "generation",
        "atomic",
        "view",
        "environ",
        "media_type",
        "unargued",
        "confirmation",
        "request_template",
    )

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        #: The settings generation the plan was made under: a settings change makes a new one.
        self.generation = mcp_settings.generation
        #: Each database's ATOMIC_REQUESTS the view was wrapped for: Django's handler reads
        #: them at every request, and tests turn them on in a connection's settings_dict.
        self.atomic = atomic_requests()
        #: The view as Django's handler runs it: wrapped in an atomic block per database
        #: with ``ATOMIC_REQUESTS`` (``non_atomic_requests`` honoured).
        self.view: Callable[..., HttpResponseBase] = _handler.make_view_atomic(tool.route.callback)
        #: Where a call without arguments goes (it needs none), split once; None when every
        #: call must bring some.
        self.unargued: SplitArguments | None = None
        #: The environ items of every call's request to the view, less the caller's.
        if tool.takes_no_arguments:
            self.unargued = SplitArguments(body={} if tool.has_body else None)
        self.environ: Mapping[str, Any] = {"REQUEST_METHOD": tool.method, "HTTP_ACCEPT": "*/*"}
        #: The media type a body is sent as: the JSON type the view's parsers accept.
        self.media_type = json_media_type(tool)
        #: The message template of the tool's confirmation; None when it needs none.
        self.confirmation = confirmation(tool)
        #: What Django's constructor makes of the view's request of a tool without path
        #: arguments, kept from its first call: an ``inner_requests.RequestTemplate``
        #: (which builds the requests, so imports this module).
        self.request_template: Any = None

    @property
    def current(self) -> bool:
        """Whether the settings are still those the plan was made under."""
        return self.generation == mcp_settings.generation and self.atomic == atomic_requests()


def json_media_type(tool: Tool) -> str:
    """Return the JSON media type the tool's view parses: ``application/json`` when one of
    its parsers takes it (or any type), else the first ``+json`` type they declare (a JSON:API
    view's ``application/vnd.api+json``); ``application/json`` when none does."""
    try:
        parsers = tool.operation.view.get_parsers()
    except Exception:  # a view whose parsers need a real request: DRF's default is JSON
        return JSON
    declared = [str(getattr(parser, "media_type", "")) for parser in parsers]
    if any(media_type_matches(media_type, JSON) for media_type in declared):
        return JSON
    return next((each for each in declared if each.partition(";")[0].endswith("+json")), JSON)


def atomic_requests() -> list[bool]:
    """Return each database's ``ATOMIC_REQUESTS``, as ``make_view_atomic`` reads them
    (about 0.3 us: a list, not a tuple of a generator)."""
    return [settings["ATOMIC_REQUESTS"] for settings in connections.settings.values()]
