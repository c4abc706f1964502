"""News every process hears at once: Redis pub/sub, where the shared cache is Redis.

A change of the admin state, or of a resource a client subscribed to, is written where every
process reads it (the admin state's version stamp, a resource's stamp in the shared cache):
a process that listens for changes polls those at ``ADMIN_STATE_MAX_AGE``. Where
``MCP_TOOLS["CACHE"]`` is Django's ``RedisCache``, the change is also published on one
channel of that Redis, through the redis-py client the cache already holds, so that every
listening process hears of it at once (docs/subscriptions.md). Elsewhere, and when Redis
can't be reached, nothing is published: the polled stamps still carry the change.

A message is a small JSON object; this process's own listeners (``on_message``) hear what
it publishes without the round trip, whatever the cache.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.base import BaseCache

from ..conf import mcp_settings

__all__ = ["Feed", "feed", "on_message", "publish"]

logger = logging.getLogger("mcp_tools")

#: The channel's name, made a key of the cache (its ``KEY_PREFIX`` and ``VERSION``), so two
#: sites sharing one Redis don't hear each other.
CHANNEL = "mcp_tools:changes"

_local: list[Callable[[dict[str, Any]], None]] = []
_lock = threading.Lock()


def on_message(receiver: Callable[[dict[str, Any]], None]) -> None:
    """Hand ``receiver`` every message this process publishes, as it publishes it."""
    with _lock:
        if receiver not in _local:
            _local.append(receiver)


def redis_cache() -> BaseCache | None:
    """Return ``MCP_TOOLS["CACHE"]`` where it is Django's ``RedisCache``, else None."""
    cache = caches[mcp_settings.CACHE]
    try:
        from django.core.cache.backends.redis import RedisCache
    except ImportError:  # pragma: no cover - Django < 4.0 has no RedisCache
        return None
    return cache if isinstance(cache, RedisCache) else None


def publish(message: dict[str, Any]) -> None:
    """Tell every process ``message``: this one's receivers at once, the others through
    Redis where the shared cache is Redis. Never raises: a message lost is a change heard
    at the next poll instead."""
    with _lock:
        receivers = list(_local)
    for receiver in receivers:
        try:
            receiver(message)
        except Exception:
            logger.exception("A receiver of the change %r failed", message)
    cache = redis_cache()
    if cache is None:
        return
    try:
        client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
        client.publish(cache.make_key(CHANNEL), json.dumps(message))
    except Exception:
        logger.warning("Publishing the change %r on Redis failed", message, exc_info=True)


class Feed:
    """The messages of every process, read from Redis's channel (``wait``)."""

    def __init__(self, cache: BaseCache) -> None:
        client = cache._cache.get_client(write=False)  # type: ignore[attr-defined]
        self._pubsub = client.pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(cache.make_key(CHANNEL))

    def wait(self, timeout: float) -> list[dict[str, Any]]:
        """Return the messages that came within ``timeout`` seconds (the first one ends the
        wait, with any that came with it)."""
        found = []
        message = self._pubsub.get_message(timeout=max(timeout, 0))
        while message is not None:
            if message.get("type") == "message":
                try:
                    value = json.loads(message["data"])
                except (TypeError, ValueError):
                    value = None
                if isinstance(value, dict):
                    found.append(value)
            message = self._pubsub.get_message(timeout=0)
        return found

    def close(self) -> None:
        try:
            self._pubsub.close()
        except Exception:  # the connection is gone already
            logger.debug("Closing the change feed failed", exc_info=True)


_failing = False


def feed() -> Feed | None:
    """Return a feed of every process's messages where the shared cache is Redis, else
    None (the caller polls). None too when Redis can't be reached now: polled until then
    (logged once, not at every try)."""
    global _failing
    cache = redis_cache()
    if cache is None:
        return None
    try:
        found = Feed(cache)
    except Exception:
        if not _failing:
            logger.warning("Listening for changes on Redis failed: polling", exc_info=True)
        _failing = True
        return None
    _failing = False
    return found
