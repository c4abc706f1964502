"""Listeners end with their worker: a gunicorn worker told to stop (SIGTERM) waits for its
requests up to its graceful timeout (30 s by default), and a listener's never ends by
itself. Installed from ``MCPToolsConfig.ready()`` in a gunicorn worker, in front of its own
handler: the worker stops taking requests, then every listener's stream ends gracefully
(a ``subscriptions/listen`` with its result, which tells the client to listen again), and
the worker exits as soon as the streams are sent (docs/subscriptions.md#servers).
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType

__all__ = ["end_listeners_on_exit"]


def end_listeners_on_exit() -> None:
    """Chain SIGTERM's handler of the gunicorn worker this process is (else nothing)."""
    if threading.current_thread() is not threading.main_thread():
        return
    workers = sys.modules.get("gunicorn.workers.base")
    previous = signal.getsignal(signal.SIGTERM)
    if workers is None or not isinstance(getattr(previous, "__self__", None), workers.Worker):
        return  # not a gunicorn worker (its arbiter with --preload, a command, uvicorn)
    gunicorns = previous
    assert callable(gunicorns)

    def handle(number: int, frame: FrameType | None) -> None:
        gunicorns(number, frame)  # it stops taking requests
        loaded = sys.modules.get("mcp_tools.subscriptions.watcher")
        if loaded is not None:  # a process that never held a listener has none to end
            threading.Thread(target=loaded.watcher.finish_all, daemon=True).start()

    signal.signal(signal.SIGTERM, handle)
    signal.siginterrupt(signal.SIGTERM, False)  # as gunicorn set it: requests go on
