"""The process's worker slots for streamed calls: at most ``MAX_STREAMS`` views run off
their request's thread at once.

Apart from ``endpoint.streaming``, which loads with the process's first stream: the
transport asks whether a slot is free before a handshake-era call that may have to stream
later (``MCPView.run_invocation``), so a worker that streams nothing never imports the
streams' machinery (docs/performance.md#memory).
"""

from __future__ import annotations

import threading

from ..conf import mcp_settings

__all__ = ["StreamSlots", "slots"]


class StreamSlots:
    """Count the worker threads of streamed calls in this process, up to ``MAX_STREAMS``.

    A view that ignores a timeout or a disconnect keeps its thread until it returns (no
    Python thread can be stopped from outside), so the number of threads is bounded here.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active = 0

    def acquire(self) -> bool:
        """Take a slot; False when every slot is taken (the call then runs inline)."""
        with self._lock:
            if self.active >= mcp_settings.MAX_STREAMS:
                return False
            self.active += 1
            return True

    def release(self) -> None:
        with self._lock:
            self.active -= 1

    def free(self) -> bool:
        """Whether a slot is free now (a hint: another call may take it first)."""
        return self.active < mcp_settings.MAX_STREAMS


slots = StreamSlots()
