"""The cache every worker of every host shares, for what must reach them all.

That is ``MCP_TOOLS["CACHE"]``, unless it is a cache each process keeps for itself
(``LocMemCache``, Django's default, or ``DummyCache``, which keeps nothing): then Django's
own database cache stands in for it, on this app's table ``mcp_tools_cache`` (made by its
migrations, so no ``createcachetable`` is needed). A query per read, but correct under any
number of processes (docs/deployment.md).

Through it go the answers to the handshake era's questions (``client_requests``) and the
accepted confirmations already run on (``request_state``). The admin state's version,
read at most once per ``ADMIN_STATE_MAX_AGE``, goes to the database's own counter instead
(``catalog``).
"""

from __future__ import annotations

from typing import Any

from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.locmem import LocMemCache

from ..conf import mcp_settings

TABLE = "mcp_tools_cache"
#: Far above what is ever pending (each entry lives minutes at most): Django's database
#: cache culls a third of the rows, expired first, past ``MAX_ENTRIES``.
MAX_ENTRIES = 100_000

_fallback: tuple[int, DatabaseCache] | None = None


class AppDatabaseCache(DatabaseCache):
    """Django's database cache on ``mcp_tools_cache``, routed as this app's models are: a
    database router that keeps ``mcp_tools`` in a database of its own finds the table
    where this app's migrations made it (Django routes its own cache as ``django_cache``)."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(TABLE, params)
        from ..models import SharedCacheEntry

        self.cache_model_class = SharedCacheEntry


def is_per_process(cache: BaseCache) -> bool:
    """Whether ``cache`` can't carry a value to other processes (each keeps its own, or none)."""
    return isinstance(cache, LocMemCache | DummyCache)


def shared_cache() -> BaseCache:
    """Return ``MCP_TOOLS["CACHE"]``, or the database cache standing in for a per-process one."""
    global _fallback
    cache = caches[mcp_settings.CACHE]
    if not is_per_process(cache):
        return cache
    generation = mcp_settings.generation
    if _fallback is None or _fallback[0] != generation:
        params = {"KEY_PREFIX": "mcp_tools", "OPTIONS": {"MAX_ENTRIES": MAX_ENTRIES}}
        _fallback = (generation, AppDatabaseCache(params))
    return _fallback[1]
