"""The process's watcher: one thread, while this process holds listeners, that hears of
changes and tells the listeners they concern.

It hears of changes two ways: the messages of ``core.broadcast`` (Redis pub/sub, where the
shared cache is Redis: at once; this process's own at once, whatever the cache), and by
polling what every process can read, at ``ADMIN_STATE_MAX_AGE``: the admin state's version
stamp, the stamps of the resources its listeners follow, and the handshake era's
subscription sets. Polling alone carries every change, so a lost message is a change
heard a poll later, never one lost (docs/subscriptions.md#across-processes).

Nothing runs without listeners: the thread starts with the first and ends after the last.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from django.db import close_old_connections, connections

from ..catalog.admin_state import read_version
from ..conf import mcp_settings
from ..core import broadcast
from ..resources.stamps import read_stamps
from . import changes
from .listeners import Listener
from .subscribed import read_subscribed

__all__ = ["Watcher", "watcher"]

logger = logging.getLogger("mcp_tools")

#: The longest wait for a message before the watcher looks whether it still has listeners.
MAX_WAIT = 1.0


class Watcher:
    """Tell this process's listeners of the changes that concern them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: set[Listener] = set()
        self._thread: threading.Thread | None = None
        self._woken = threading.Event()
        self._messages: list[dict[str, Any]] = []
        self._snapshot: changes.Snapshot | None = None
        #: Polls done, for tests that wait for the watcher to have looked.
        self.polls = 0
        broadcast.on_message(self.hear)

    def add(self, listener: Listener) -> None:
        """Start telling ``listener``; the thread starts with the first listener.

        The first listener of the process reads the admin state it starts from here, on its
        request's thread: a change saved once its stream is open is one it hears of."""
        first = changes.snapshot(read_version()) if self._snapshot is None else None
        with self._lock:
            if self._snapshot is None:  # the thread stopped meanwhile: read under the lock
                self._snapshot = first or changes.snapshot(read_version())
            self._listeners.add(listener)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="mcp-tools-watcher", daemon=True
                )
                self._thread.start()
        self._woken.set()

    def remove(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.discard(listener)

    def finish_all(self) -> None:
        """End every listener's stream gracefully: this process is stopping."""
        for listener in self.listeners():
            if listener.finish is not None:
                try:
                    listener.finish()
                except Exception:
                    logger.exception("Ending a listener's stream failed")

    def listeners(self) -> list[Listener]:
        with self._lock:
            return list(self._listeners)

    def hear(self, message: dict[str, Any]) -> None:
        """Take a message this process published: handled on the watcher's thread."""
        if self._thread is None:
            return  # nobody listens here
        with self._lock:
            self._messages.append(message)
        self._woken.set()

    def reset(self) -> None:
        """Forget every listener and the thread (a forked child has neither)."""
        self.__init__()  # type: ignore[misc]

    # -- the thread -------------------------------------------------------------------------

    def _active(self) -> bool:
        with self._lock:
            if not self._listeners:
                self._thread = None
                self._snapshot = None
                return False
            return True

    def _run(self) -> None:
        feed = None
        try:
            polled = -float("inf")
            while self._active():
                if feed is None:
                    feed = broadcast.feed()
                due_in = polled + mcp_settings.ADMIN_STATE_MAX_AGE - time.monotonic()
                wait = min(max(due_in, 0), MAX_WAIT)
                messages = self._wait(feed, wait)
                if messages is None:  # Redis went away: polled until it is back
                    feed = None
                    messages = []
                with self._lock:
                    messages += self._messages
                    self._messages = []
                due = time.monotonic() - polled >= mcp_settings.ADMIN_STATE_MAX_AGE
                if not (messages or due):
                    continue
                try:
                    close_old_connections()
                    self._tell(messages, due)
                except Exception:  # the thread never dies of it: its listeners would hear nothing
                    logger.exception("Looking for changes failed; trying again at the next poll")
                if due:
                    polled = time.monotonic()
                    self.polls += 1
        finally:
            if feed is not None:
                feed.close()
            try:
                connections.close_all()  # this thread's own connections
            except Exception:
                logger.warning("Closing the watcher's connections failed", exc_info=True)

    def _wait(self, feed: broadcast.Feed | None, timeout: float) -> list[dict[str, Any]] | None:
        if feed is None:
            self._woken.wait(timeout)
            self._woken.clear()
            return []
        if self._woken.is_set():  # this process's own message: no need to wait
            self._woken.clear()
            timeout = 0
        try:
            return feed.wait(timeout)
        except Exception:
            logger.warning("Reading changes from Redis failed: polling", exc_info=True)
            feed.close()
            return None

    def _tell(self, messages: list[dict[str, Any]], due: bool) -> None:
        listeners = self.listeners()
        for message in messages:
            uri, stamp = message.get("uri"), message.get("stamp")
            if isinstance(uri, str) and (stamp is None or isinstance(stamp, str)):
                for listener in listeners:
                    listener.updated(uri, stamp)
        subscribed = any(isinstance(message.get("subscriber"), str) for message in messages)
        if due or subscribed:
            self._follow_subscribed(listeners)
        if due or any("admin" in message for message in messages):
            self._tell_admin_changes(listeners)
        if due:
            self._tell_updates(listeners)

    def _tell_admin_changes(self, listeners: list[Listener]) -> None:
        version = read_version()
        old = self._snapshot
        if old is not None and old.version == version:
            return
        new = self._snapshot = changes.snapshot(version)
        if old is None:
            return  # the first look: what it sees is where listeners start
        found = changes.diff(old, new)
        if found:
            for listener in listeners:
                listener.changed(found)

    def _tell_updates(self, listeners: list[Listener]) -> None:
        followed = set().union(*(listener.uris for listener in listeners))
        stamps = read_stamps(followed)
        for listener in listeners:
            for uri in listener.uris:
                listener.updated(uri, stamps.get(uri))

    def _follow_subscribed(self, listeners: list[Listener]) -> None:
        subscribers = {listener.subscriber for listener in listeners} - {None}
        if not subscribers:
            return
        sets = read_subscribed(subscribers)  # type: ignore[arg-type]
        for listener in listeners:
            if listener.subscriber is not None:
                listener.follow(sets.get(listener.subscriber, {}))


#: The process's one watcher.
watcher = Watcher()
os.register_at_fork(after_in_child=watcher.reset)
