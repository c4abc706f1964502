"""The endpoint's context objects: one ``Exchange`` per HTTP request, one ``Call`` per message.

Starlette passes one ``Request`` through its handlers and the MCP SDK one ``RequestContext``;
here an ``Exchange`` carries what every message of one request shares (the caller, the
endpoint, the catalog, the visibility answers) and a ``Call`` one JSON-RPC request of it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from django.http import HttpRequest
from django.urls import Resolver404, resolve
from django.utils.functional import cached_property

from ..auth.caller import Caller
from ..auth.refusals import insufficient_scope
from ..catalog.admin_state import Catalog, ToolsetRule, catalog_for
from ..catalog.visibility import Visibility
from ..conf import mcp_settings
from ..pipeline.formatters import BaseFormatter
from ..pipeline.invocation import Invocation
from ..pipeline.plans import CallPlan
from ..protocol import mediatypes, versions
from ..protocol.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, JSONRPCError, Message, clip
from ..protocol.versions import Era
from ..tools.registry import ToolRegistry
from ..tools.tool import Tool
from . import tracing

__all__ = ["Call", "Endpoint", "Exchange"]

EVENT_STREAM = "text/event-stream"


class UnknownToolset(JSONRPCError):
    """A request for a toolset no row names: 404, before any message is answered."""

    def __init__(self, name: str) -> None:
        super().__init__(INVALID_REQUEST, f"Unknown toolset: {clip(name)}", status=404)


class Endpoint(Protocol):
    """What the handlers need of the endpoint that received the request (``MCPView``)."""

    registry: ToolRegistry | None
    tags: Iterable[str] | None

    def get_registry(self) -> ToolRegistry: ...

    def get_formatter(self) -> BaseFormatter: ...

    def get_resource_metadata_url(self, request: HttpRequest) -> str | None: ...

    def serves(self, tool: Tool) -> bool: ...

    def throttle_call(self) -> None: ...


@dataclass(eq=False)
class Exchange:
    """One HTTP request to the endpoint: who made it, to which endpoint, and what every
    message of it shares (a batch's items too): the catalog, the visibility answers.

    Its cached properties are Django's, without the lock ``functools.cached_property``
    takes at every first read on Python 3.11 (3.12 dropped it): two threads that read one
    at once (a streamed call's view thread, and its request thread answering a timeout)
    would at worst each work it out from the exchange."""

    request: HttpRequest
    caller: Caller
    endpoint: Endpoint
    #: The ``tools/call`` messages seen so far (a batch has several).
    calls: int = 0
    #: The media ranges the client accepts, where a tool call's answer may be an SSE
    #: stream; None for a batch, and for a call made in-process (docs/protocol.md).
    accepted: mediatypes.Ranges | None = None
    #: An operator's own call (Try it, ``mcp_call``): a confirmed tool runs unasked, as the
    #: operator chose to run it (docs/input.md).
    operator: bool = False

    @cached_property
    def streams(self) -> bool:
        """Whether a tool call's answer may be an SSE stream: the client reads it."""
        return self.accepted is not None and mediatypes.admits(self.accepted, EVENT_STREAM)

    @cached_property
    def asks(self) -> bool:
        """Whether a handshake-era call may ask its client on a stream: the client names
        ``text/event-stream`` (an MCP client does; a script that accepts ``*/*`` may read
        the stream, but would never answer what it asks)."""
        return self.accepted is not None and mediatypes.names(self.accepted, EVENT_STREAM)

    def count_call(self) -> None:
        """Count a ``tools/call`` against the endpoint's throttles: the request itself was
        counted once, so each further call of a batch is counted as a request of its own.
        Raises the endpoint's 429 refusal (-32029) when a throttle refuses it."""
        self.calls += 1
        if self.calls > 1:
            self.endpoint.throttle_call()

    @property
    def endpoint_path(self) -> str:
        """The path the endpoint answered at, its ``PATH_INFO`` (its OAuth resource,
        docs/oauth.md)."""
        return self.request.path_info

    @cached_property
    def catalog(self) -> Catalog:
        """The request's tools as admins configured them (the admin state's version read at
        most once per ``ADMIN_STATE_MAX_AGE``), of its ``urlconf``."""
        return catalog_for(self.endpoint.get_registry().tools(self.urlconf))

    @cached_property
    def urlconf(self) -> str:
        """The URLconf Django's handler resolved the request with: the request's own
        (``request.urlconf``), else ``ROOT_URLCONF``."""
        return getattr(self.request, "urlconf", None) or mcp_settings.root_urlconf

    @cached_property
    def visibility(self) -> Visibility:
        return Visibility(self.request, self.caller, self.endpoint)

    @cached_property
    def toolset(self) -> ToolsetRule | None:
        """The toolset the request is for (its URL's, ``/mcp/toolsets/<name>``, or the
        endpoint's), or None: every tool of the endpoint. Raises ``UnknownToolset``."""
        name = getattr(self.endpoint, "toolset", None)
        if name is None:
            return None
        toolset = self.catalog.state.toolsets.get(name)
        if toolset is None:
            raise UnknownToolset(name)
        return toolset

    def serves(self, tool: Tool) -> bool:
        """Return whether this request's endpoint serves ``tool``: one of its tags, if it
        has any, and in its toolset, if it names one (docs/tools.md#toolsets)."""
        return self.endpoint.serves(tool) and (self.toolset is None or self.toolset.holds(tool))

    def served(self) -> int:
        """Return how many tools this endpoint serves, whoever asks."""
        if self.endpoint.tags is None and self.toolset is None:
            return len(self.catalog.tools)
        return sum(1 for tool in self.catalog if self.serves(tool))

    def tools(self) -> tuple[list[Tool], Hashable]:
        """Return the tools this request may see, in URLconf order, and what the list
        depends on (equal keys, equal lists)."""
        tags = self.endpoint.tags
        endpoint = (
            tuple(sorted(tags)) if tags is not None else None,
            getattr(self.endpoint, "toolset", None),
        )
        return self.visibility.visible_tools(self.catalog, self.serves, endpoint)

    def page(self, start: int, size: int) -> tuple[list[Tool], int | None]:
        """Return a page of the tools this request may see, from the catalog's position
        ``start`` on, and the next page's start (``Visibility.page``)."""
        return self.visibility.page(self.catalog, self.serves, start, size)

    def sees(self, name: str) -> bool:
        """Return whether this request may see (and call) the tool ``name``."""
        tool = self.catalog.tools.get(name)
        return tool is not None and self.serves(tool) and self.visibility.sees(tool, self.catalog)

    def plan(self, name: str) -> CallPlan | None:
        """Return the call plan of the tool ``name`` if this request may call it, else None
        (an unknown tool).

        The same rule as ``tools()``: a tool this request can't see can't be called.
        """
        # First, whatever the name: the caller's groups, read once per request when a rule
        # names any, so that an unknown name, a disabled tool and one hidden by its groups
        # take the same reads to refuse (docs/security.md).
        self.visibility.read_groups(self.catalog)
        return self.catalog.plan(self.catalog.tools[name]) if self.sees(name) else None

    def plan_at(self, path: str) -> tuple[CallPlan, dict[str, Any]] | None:
        """Return the call plan of the GET tool whose view Django runs for ``path`` (a
        ``path_info``) if this request may call it, with its path arguments; else None.

        Where a redirect leads (docs/results.md#redirects): resolved in the URLconf this
        request's tools come from, and called under the same rule as ``plan()``.
        """
        try:
            match = resolve(path, self.urlconf)
        except Resolver404:
            return None
        for tool in self.catalog:
            route = tool.route
            if (
                tool.method == "GET"
                and route.callback is match.func
                and route.match_route == match.route
            ):
                plan = self.plan(tool.name)
                # What the path captured, without the pattern's extra kwargs (Django 4.1+; the
                # stubs lack it).
                captured = match.captured_kwargs  # type: ignore[attr-defined]
                return None if plan is None else (plan, dict(captured))
        return None

    def refusal(self, name: str) -> JSONRPCError:
        """Answer a call of a tool this request may not call: an unknown tool, or, when the
        token lacks only scopes, 403 with an insufficient_scope challenge (step-up)."""
        tool = self.catalog.tools.get(name)
        if tool is not None and self.serves(tool):
            scopes = self.visibility.missing_scopes(tool, self.catalog.rule(name))
            if scopes:
                return insufficient_scope(self.request, self.endpoint, scopes)
        return JSONRPCError(INVALID_PARAMS, f"Unknown tool: {clip(name)}")


@dataclass(eq=False)
class Call:
    """One JSON-RPC request of an exchange, with what the handlers need to answer it."""

    exchange: Exchange
    message: Message
    era: Era
    #: The request's span (a shared no-op without OpenTelemetry), ended once it is answered.
    trace: tracing.NoTrace = tracing.NO_TRACE
    #: The tool call this request is, once it is one (reported when it is answered).
    invocation: Invocation[Call] | None = None
    #: Whether ``message`` is the ``tools/call`` a ``call_tool`` call stood for, unwrapped
    #: (docs/tools.md#large-apis).
    unwrapped: bool = False
    #: The ``ToolTask`` this call runs as, in a task worker (``task_runs``): reported with
    #: the call (``tool_called``'s ``task_id``), so that its logged row links to the task.
    task_id: str | None = None

    @property
    def version(self) -> str:
        return self.era.version

    @property
    def request(self) -> HttpRequest:
        return self.exchange.request

    @property
    def caller(self) -> Caller:
        return self.exchange.caller

    @property
    def endpoint(self) -> Endpoint:
        return self.exchange.endpoint

    @cached_property
    def client_name(self) -> str:
        """Name the client: its ``clientInfo`` (2026-07-28 ``_meta``), else its User-Agent."""
        info = self.message.meta.get(versions.CLIENT_INFO_META_KEY)
        name = info.get("name") if isinstance(info, dict) else None
        if not isinstance(name, str):
            name = self.request.META.get("HTTP_USER_AGENT", "")
        return name[:200]
