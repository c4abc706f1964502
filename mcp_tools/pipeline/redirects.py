"""Redirects a call follows: a safe tool's 3xx to another tool its caller may call.

A view of a GET (or HEAD) tool that answers a redirect whose ``Location`` is on the same
site and resolves, in the URLconf the endpoint serves, to a GET tool the caller can see and
call has that tool's view called in-process, as the same caller, at most ``MAX_REDIRECTS``
hops in all. Any other redirect is answered by the formatter: ``Redirect to <Location> was
not followed`` (docs/results.md#redirects).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase
from django.utils.http import url_has_allowed_host_and_scheme

from ..conf import mcp_settings
from ..protocol.results import ToolResult
from ..tools.tool import Tool
from .plans import CallPlan

__all__ = ["Hop", "Redirects"]

#: The methods whose redirects are followed: a client may repeat them (RFC 9110 §9.2.1).
SAFE_METHODS = frozenset({"GET", "HEAD"})
#: The statuses that send a client elsewhere with a ``Location`` (RFC 9110 §15.4); 300
#: offers a choice and 304 sends nowhere.
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

#: Where a path leads: the call plan of the GET tool there, if this caller may call it, and
#: its path arguments (``endpoint.exchange.Exchange.plan_at``); None: nowhere to follow.
Lookup = Callable[[str], tuple[CallPlan, dict[str, Any]] | None]


@dataclass(frozen=True)
class Hop:
    """One redirect to follow: the tool it leads to, its path arguments and query string."""

    plan: CallPlan
    path: dict[str, Any]
    #: The query string as the ``Location`` gave it, percent-encoded.
    query: str
    #: The path and query the redirect led to (``_meta["django-mcp-tools/location"]``).
    url: str


class Redirects:
    """The redirects one call follows: where it has been, and how many hops it made."""

    def __init__(self, request: HttpRequest, limit: int) -> None:
        self.limit = limit
        self.hops = 0
        self.seen = {(request.path_info, request.META.get("QUERY_STRING", ""))}

    @classmethod
    def of(cls, tool: Tool, request: HttpRequest) -> Redirects | None:
        """Return the redirects a call of ``tool`` starting with ``request`` may follow, or
        None: its method is not safe, or ``MAX_REDIRECTS`` is 0."""
        limit = mcp_settings.MAX_REDIRECTS
        if not limit or tool.method not in SAFE_METHODS:
            return None
        return cls(request, limit)

    def follow(
        self, response: HttpResponseBase, request: HttpRequest, lookup: Lookup
    ) -> Hop | ToolResult | None:
        """Return the hop ``response`` (answered to ``request``) leads to; an error result
        when following it would loop or pass ``MAX_REDIRECTS``; or None: no redirect to a
        tool this caller may call, which the formatter answers."""
        if response.status_code not in REDIRECT_STATUSES:
            return None
        location = response.get("Location", "")
        target = same_site(location, request)
        if target is None:
            return None
        path, query, url = target
        found = lookup(path)
        if found is None:
            return None
        plan, arguments = found
        if plan.confirmation is not None:
            return None  # its view runs only once the user said yes: the client calls it
        if (path, query) in self.seen:
            return ToolResult.error(f"Redirect to {location} was not followed: a redirect loop")
        if self.hops >= self.limit:
            return ToolResult.error(
                f"Redirect to {location} was not followed: more than {self.limit} redirects"
            )
        self.hops += 1
        self.seen.add((path, query))
        return Hop(plan, arguments, query, url)


def same_site(location: str, request: HttpRequest) -> tuple[str, str, str] | None:
    """Return the path (``path_info``, decoded), query string and URL (path and query) that
    ``location`` names on ``request``'s own site, or None when it names another.

    Same site as Django's ``url_has_allowed_host_and_scheme`` says it: a relative URL, or an
    absolute one on the request's host or a host ``ALLOWED_HOSTS`` names exactly (a site
    that writes its own domain into its links, as Wagtail's API writes its ``Site``'s,
    serves it; a pattern such as ``*`` or ``.example.com`` names none), never from https
    down to http; under the request's script prefix.
    """
    if not location:
        return None
    hosts = {host for host in settings.ALLOWED_HOSTS if host != "*" and not host.startswith(".")}
    with suppress(DisallowedHost, KeyError):  # a request without a valid host: not its own
        hosts.add(request.get_host())
    if not url_has_allowed_host_and_scheme(location, hosts, require_https=request.is_secure()):
        return None
    joined = urljoin(request.path, location)
    parts = urlsplit(joined)
    # "?" with nothing after it is kept as given: the URL the redirect named.
    has_query = "?" in joined.partition("#")[0]
    url = parts.path + (f"?{parts.query}" if has_query else "")
    path = unquote(parts.path)
    script = request.path.removesuffix(request.path_info)
    if not path.startswith(script):
        return None
    return path[len(script) :] or "/", parts.query, url
