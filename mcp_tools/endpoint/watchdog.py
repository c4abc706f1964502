"""One thread that runs each armed action at its time, unless it is cancelled first.

A streamed call under gunicorn arms one (``streaming.sync_events``): past ``CALL_TIMEOUT``
and its grace, a write its client stopped reading is cut. Nearly every call ends long
before, so the action is cancelled; a ``threading.Timer`` per stream would start a thread
per call for that (docs/performance.md#streaming).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable

logger = logging.getLogger("mcp_tools")

#: Cancelled entries the heap may hold before it is rebuilt without them (at least half
#: of it must be cancelled too): a stream's entry goes when it ends, not at its deadline.
MAX_CANCELLED = 64


class Alarm:
    """One armed action; ``cancel()`` it once it is not wanted."""

    __slots__ = ("action", "watchdog")

    def __init__(self, action: Callable[[], None], watchdog: Watchdog) -> None:
        self.action: Callable[[], None] | None = action
        self.watchdog = watchdog

    def cancel(self) -> None:
        if self.action is not None:
            self.action = None
            self.watchdog.cancelled()


class Watchdog:
    """Run armed actions at their time on one daemon thread, started at the first ``arm``."""

    def __init__(self, name: str = "mcp-tools-watchdog") -> None:
        self.name = name
        self._condition = threading.Condition()
        self._heap: list[tuple[float, int, Alarm]] = []
        self._order = itertools.count()
        self._cancelled = 0
        self._thread: threading.Thread | None = None

    def arm(self, delay: float, action: Callable[[], None]) -> Alarm:
        """Run ``action`` in ``delay`` seconds, on the watchdog's thread."""
        alarm = Alarm(action, self)
        with self._condition:
            entry = (time.monotonic() + max(delay, 0.0), next(self._order), alarm)
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name=self.name, daemon=True)
                self._thread.start()
            elif self._heap[0] is entry:
                self._condition.notify()  # sooner than what the thread waits for
        return alarm

    def cancelled(self) -> None:
        with self._condition:
            self._cancelled += 1
            if self._cancelled > MAX_CANCELLED and self._cancelled * 2 > len(self._heap):
                self._heap = [entry for entry in self._heap if entry[2].action is not None]
                heapq.heapify(self._heap)
                self._cancelled = 0

    @property
    def pending(self) -> int:
        """How many entries the heap holds (cancelled ones not yet dropped included)."""
        return len(self._heap)

    def _next(self) -> Callable[[], None]:
        """Wait for the next action due and return it."""
        with self._condition:
            while True:
                heap = self._heap
                while heap and heap[0][2].action is None:
                    heapq.heappop(heap)
                    self._cancelled -= 1
                if not heap:
                    self._condition.wait()
                    continue
                left = heap[0][0] - time.monotonic()
                if left > 0:
                    self._condition.wait(left)
                    continue
                alarm = heapq.heappop(heap)[2]
                action, alarm.action = alarm.action, None
                if action is not None:
                    return action

    def _watch(self) -> None:
        while True:
            action = self._next()
            try:
                action()
            except Exception:
                logger.exception("A watchdog action failed")

    def reset(self) -> None:
        """Forget every alarm and the thread (a forked child has none of its parent's)."""
        self.__init__(self.name)  # type: ignore[misc]


watchdog = Watchdog()
os.register_at_fork(after_in_child=watchdog.reset)
