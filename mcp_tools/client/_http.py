"""The HTTP client of a connection: every response body read with a bound, none compressed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2

#: The SDK's default timeouts (``create_mcp_http_client``): a call may take minutes to answer.
DEFAULT_TIMEOUT = httpx2.Timeout(30.0, read=300.0)

#: A body of these is a stream of events, bounded event by event (``max_sse_event_size``).
EVENT_STREAM = "text/event-stream"


class ResponseTooLarge(httpx2.StreamError):
    """Signal a response body past ``max_response_bytes``: reading stopped at the bound.

    A ``StreamError``, as the SDK's transport expects of a body it could not read: it
    answers the request it was reading for with a JSON-RPC error carrying this message.
    """


class CompressedResponse(httpx2.StreamError):
    """Signal a compressed response body, refused: its decoded size has no bound."""


def bounded_http_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | float | None = None,
    auth: httpx2.Auth | None = None,
    *,
    max_response_bytes: int,
    **options: Any,
) -> httpx2.AsyncClient:
    """Return an ``httpx2.AsyncClient`` that reads at most ``max_response_bytes`` of a body.

    Past the bound, or at a ``Content-Length`` past it, reading the body raises
    ``ResponseTooLarge`` and the connection is closed, the rest unread. An event stream
    (``text/event-stream``) is not bounded as a whole: it may last, and the SDK bounds each
    of its events (pass ``max_sse_event_size`` to ``streamable_http_client``). Responses
    are asked for uncompressed, and a compressed one is refused (``CompressedResponse``):
    a few kilobytes of gzip decode to gigabytes.

    The signature up to ``auth`` is the SDK's ``McpHttpClientFactory``, its default
    timeouts the SDK's too (30 s, and 300 s to read); ``options`` go to
    ``httpx2.AsyncClient``.
    """
    if max_response_bytes < 1:
        raise ValueError(f"max_response_bytes must be positive, not {max_response_bytes}")

    async def bound(response: httpx2.Response) -> None:
        response.stream = BoundedStream(response, max_response_bytes)

    hooks = dict(options.pop("event_hooks", None) or {})
    # First, so that a hook of the caller's that reads the body reads it bounded too.
    hooks["response"] = [bound, *hooks.get("response", ())]
    client = httpx2.AsyncClient(
        headers=headers,
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        auth=auth,
        event_hooks=hooks,
        **options,
    )
    client.headers["Accept-Encoding"] = "identity"
    return client


class BoundedStream(httpx2.AsyncByteStream):
    """A response's body, refused once it grows past ``limit`` bytes."""

    def __init__(self, response: httpx2.Response, limit: int) -> None:
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        self.stream = stream
        self.limit = limit
        self.bounded = not response.headers.get("Content-Type", "").startswith(EVENT_STREAM)
        self.refusal = _refusal(response, limit if self.bounded else None)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.refusal is not None:
            raise self.refusal
        read = 0
        async for chunk in self.stream:
            read += len(chunk)
            if self.bounded and read > self.limit:
                raise _too_large(self.limit)
            yield chunk

    async def aclose(self) -> None:
        await self.stream.aclose()


def _refusal(response: httpx2.Response, limit: int | None) -> httpx2.StreamError | None:
    """Return the error a body is refused with before any of it is read, if any."""
    encodings = response.headers.get("Content-Encoding", "identity").replace(" ", "").lower()
    if encodings not in ("", "identity"):
        return CompressedResponse(
            f"The server sent a compressed response ({encodings}) although asked for none; "
            "it is refused, unread."
        )
    declared = response.headers.get("Content-Length", "")
    if limit is not None and declared.isdigit() and int(declared) > limit:
        return _too_large(limit)
    return None


def _too_large(limit: int) -> ResponseTooLarge:
    return ResponseTooLarge(
        f"The server's response is larger than max_response_bytes ({limit} bytes); "
        "it is refused, the rest unread."
    )
