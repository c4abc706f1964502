"""Read a listener's SSE stream from the Django test client, event by event, with time
bounds (the stream never ends by itself)."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any

from mcp_tools.test import MCPClient

#: What a threaded WSGI server says of itself: the endpoint then holds listeners' streams.
THREADED = {"wsgi.multithread": True}
EVENT_STREAM = "text/event-stream"


class Stream:
    """The events of one streamed response, read on a thread of their own."""

    def __init__(self, response: Any) -> None:
        assert response.streaming, response.content
        self.response = response
        self._events: queue.Queue[Any] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for chunk in self.response.streaming_content:
                for line in chunk.decode().splitlines():
                    if line.startswith("data: "):
                        self._events.put(json.loads(line[len("data: ") :]))
        except ValueError:  # closed while it read
            pass

    def next(self, timeout: float = 5.0) -> Any:
        """Return the next message; fail the test when none comes within ``timeout``."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s") from None

    def quiet(self, timeout: float) -> bool:
        """Return whether no message comes within ``timeout`` seconds."""
        try:
            event = self._events.get(timeout=timeout)
        except queue.Empty:
            return True
        raise AssertionError(f"an event came: {event}")

    def close(self) -> None:
        self.response.close()
        self._reader.join(timeout=5)
        assert not self._reader.is_alive()


def client(user: Any = None, version: str = "2026-07-28", **extra: Any) -> MCPClient:
    headers = {"Authorization": f"Token {user.token}"} if user is not None else {}
    return MCPClient(
        headers=headers, protocol_version=version, mcp_path="/mcp", **{**THREADED, **extra}
    )


def listen(mcp: MCPClient, notifications: dict[str, Any], path: str = "/mcp") -> Any:
    """POST ``subscriptions/listen``; return the response and the message sent."""
    mcp.mcp_path = path
    message = mcp.message("subscriptions/listen", {"notifications": notifications})
    return mcp.send(message), message
