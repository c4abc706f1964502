"""Three WSGI applications of a few lines, outside Django, for ``bench/handoff.py``: what a
streamed answer costs a gunicorn worker before any framework does anything.

- ``plain``: the answer with its ``Content-Length``, as a tool call answered as JSON;
- ``stream``: the same bytes as an SSE stream (no length: gunicorn sends it chunked);
- ``handed``: the stream, its body made by a kept thread while the request's thread waits
  for it on a ``queue.SimpleQueue``, as a streamed call's view runs in a call thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: About the size of the bench's trivial tool call answered as SSE.
BODY = (
    b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text",'
    b'"text":"{\\"status\\":\\"ok\\"}"}],"structuredContent":{"status":"ok"},'
    b'"isError":false}}\n\n'
)
SSE = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache, no-transform")]

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


def plain(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    environ["wsgi.input"].read()
    length = str(len(BODY))
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", length)])
    return [BODY]


def stream(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    environ["wsgi.input"].read()
    start_response("200 OK", SSE)
    return iter([BODY])


_jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
_started: list[threading.Thread] = []


def _serve() -> None:
    while True:
        _jobs.get()()


def handed(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    environ["wsgi.input"].read()
    if not _started:  # started in the worker (gunicorn forks after importing the app)
        _started.append(threading.Thread(target=_serve, daemon=True))
        _started[0].start()
    answer: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    _jobs.put(lambda: answer.put(BODY))
    start_response("200 OK", SSE)

    def relay() -> Iterator[bytes]:
        yield answer.get()

    return relay()
