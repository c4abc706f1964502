"""The handshake era's resource subscriptions: each caller's set of URIs, in the shared cache.

``resources/subscribe`` and ``resources/unsubscribe`` come as requests of their own, on any
worker of any host, and the notifications go on the caller's GET stream, held by one of
them. A stateless server has no session to keep them in: they are kept per caller (its
user, or an anonymous client's address, as ``MAX_STREAMS_PER_CALLER`` counts it), so each
of the caller's GET streams hears of them (docs/subscriptions.md#the-handshake-era).

Each URI is kept with its stamp as it was subscribed to: a GET stream that starts following
it at its next poll hears of an update made in between.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from ..core import broadcast
from ..core.shared_cache import shared_cache
from ..resources.stamps import read_stamps

__all__ = ["MAX_SUBSCRIBED", "read_subscribed", "subscribe", "unsubscribe"]

PREFIX = "mcp_tools:subscribed:"
#: The most URIs one caller follows; past it, ``resources/subscribe`` is refused.
MAX_SUBSCRIBED = 100
#: Seconds a caller's set outlives its last change.
TIMEOUT = 24 * 60 * 60


def _key(subscriber: str) -> str:
    return PREFIX + hashlib.sha256(subscriber.encode()).hexdigest()


def read_subscribed(subscribers: Iterable[str]) -> dict[str, dict[str, str | None]]:
    """Return each subscriber's URIs, each with its stamp as it was subscribed to; one read."""
    subscribers = list(subscribers)
    found = shared_cache().get_many([_key(subscriber) for subscriber in subscribers])
    return {subscriber: dict(found.get(_key(subscriber)) or {}) for subscriber in subscribers}


def subscribe(subscriber: str, uri: str) -> bool:
    """Add ``uri`` to the subscriber's set; False when the set is full already."""
    uris = read_subscribed([subscriber])[subscriber]
    if uri not in uris:
        if len(uris) >= MAX_SUBSCRIBED:
            return False
        uris[uri] = read_stamps([uri]).get(uri)
        _write(subscriber, uris)
    return True


def unsubscribe(subscriber: str, uri: str) -> None:
    """Take ``uri`` from the subscriber's set (nothing when it is not in it)."""
    uris = read_subscribed([subscriber])[subscriber]
    if uri in uris:
        del uris[uri]
        _write(subscriber, uris)


def _write(subscriber: str, uris: dict[str, str | None]) -> None:
    # Read, changed and written: two subscribes of one caller at the same instant may keep
    # one of them; a client subscribes once per URI, and may do so again.
    shared_cache().set(_key(subscriber), uris, timeout=TIMEOUT)
    broadcast.publish({"subscriber": hashlib.sha256(subscriber.encode()).hexdigest()})
