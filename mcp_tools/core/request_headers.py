"""``request.headers`` for the requests of a tool call, at a third of Django's price.

Django builds ``HttpRequest.headers`` (``HttpHeaders``) from the whole ``META`` the first
time something reads it, working out each key's header name again on every request. DRF
reads it on nearly every request: its content negotiation reads ``Accept``, its
``TokenAuthentication`` reads ``Authorization``. A tool call has two requests to read it
of, the /mcp request and the view's, where a direct request has one
(docs/performance.md#the-production-profile). ``headers_of`` builds the same mapping with
each key's name remembered, as header names repeat from request to request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest
from django.http.request import HttpHeaders
from django.utils.datastructures import CaseInsensitiveMapping

#: The header name of each ``META`` key seen so far (None: not a header). Bounded in keys
#: and in their length, so that a client inventing header names (before anything
#: authenticates it) can't grow it; past the bounds a name is worked out each time.
_NAMES: dict[str, str | None] = {}
MAX_REMEMBERED_KEYS = 1024
MAX_REMEMBERED_LENGTH = 64


def remembers(memo: dict[str, Any], key: str) -> bool:
    """Return whether a per-process memo of ``META`` keys has room for ``key``."""
    return len(key) <= MAX_REMEMBERED_LENGTH and len(memo) < MAX_REMEMBERED_KEYS


def _name(key: str) -> str | None:
    name = HttpHeaders.parse_header_name(key)
    if remembers(_NAMES, key):
        _NAMES[key] = name
    return name


def headers_of(meta: Mapping[str, Any]) -> HttpHeaders:
    """Return ``HttpHeaders(meta)``: the same mapping, its names remembered."""
    names = _NAMES
    found = {}
    for key, value in meta.items():
        name = names[key] if key in names else _name(key)
        if name:
            found[name] = value
    headers = HttpHeaders.__new__(HttpHeaders)
    CaseInsensitiveMapping.__init__(headers, found)  # what HttpHeaders.__init__ ends with
    return headers


def read_headers(request: HttpRequest) -> None:
    """Give ``request`` its ``headers`` now, unless something read them already: Django's
    ``cached_property`` keeps them in the instance's ``__dict__``, where it finds them."""
    if "headers" not in request.__dict__:
        request.__dict__["headers"] = headers_of(request.META)
