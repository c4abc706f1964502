"""The streams this process holds open for a client: a budget of ``MAX_STREAMS`` in all, of
which each caller may hold ``MAX_STREAMS_PER_CALLER``.

A stream is held while it waits on its client rather than on the server: a handshake-era
ask waiting for the user's answer (up to ``INPUT_TIMEOUT``), and the listeners to come
(``subscriptions/listen``, the GET stream). Under a threaded WSGI server each holds one of
the process's threads, which the package can't count: the operator sizes the budget below
it (docs/deployment.md#held-streams). A stream that would be held past the budget is
refused at once, never queued: a queued one would hold its thread all the same.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest

from ..conf import mcp_settings

__all__ = ["Holds", "NoRoom", "holds", "holds_streams"]


class NoRoom(Exception):
    """Every held stream this process allows is taken, in all or by this caller.

    ``setting`` names the bound that is reached, for the message the refusal carries.
    """

    def __init__(self, setting: str, limit: int) -> None:
        super().__init__(f"{setting} ({limit})")
        self.setting = setting
        self.limit = limit


class Holds:
    """Count the streams held in this process, in all and per caller key
    (``auth.caller.quota_key``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()
        self.total = 0

    def acquire(self, key: str) -> None:
        """Take a held stream for ``key``; raise ``NoRoom`` when none is free for it."""
        limit = int(mcp_settings.MAX_STREAMS)
        share = mcp_settings.MAX_STREAMS_PER_CALLER
        with self._lock:
            if self.total >= limit:
                raise NoRoom("MAX_STREAMS", limit)
            if share is not None and self._held[key] >= int(share):
                raise NoRoom("MAX_STREAMS_PER_CALLER", int(share))
            self._held[key] += 1
            self.total += 1

    def release(self, key: str) -> None:
        """Give back a held stream ``key`` took."""
        with self._lock:
            self._held[key] -= 1
            if self._held[key] <= 0:
                del self._held[key]
            self.total -= 1

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        """Hold a stream for ``key`` while the block runs (``NoRoom`` before it, if none is
        free); released however the block ends: answered, timed out or disconnected."""
        self.acquire(key)
        try:
            yield
        finally:
            self.release(key)

    def held(self, key: str | None = None) -> int:
        """Return the streams held now, in all or by ``key``."""
        with self._lock:
            return self.total if key is None else self._held[key]

    def reset(self) -> None:
        """Forget every hold (a forked child holds none of its parent's streams)."""
        self.__init__()  # type: ignore[misc]


#: The process's one budget.
holds = Holds()
os.register_at_fork(after_in_child=holds.reset)


def holds_streams(request: HttpRequest) -> bool:
    """Whether the server that made ``request`` can hold a listener's stream without
    starving: ASGI, or a threaded WSGI server (gunicorn's gthread, ``runserver``). A
    single-threaded WSGI worker (gunicorn's sync worker, Django's test client) would give
    its only thread to the stream: its capabilities say no listener is served, and none is
    (docs/subscriptions.md#servers)."""
    return isinstance(request, ASGIRequest) or bool(request.META.get("wsgi.multithread"))
