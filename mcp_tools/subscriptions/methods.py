"""``subscriptions/listen`` (2026-07-28), the handshake era's GET stream, and its
``resources/subscribe`` / ``resources/unsubscribe`` (docs/subscriptions.md).

The handlers check what a client asks and return a ``Listening``: what its stream will hear,
and the acknowledgement it opens with. The transport holds the stream (``endpoint.listening``)
and the process's watcher feeds it (``subscriptions.watcher``).
"""

from __future__ import annotations

from typing import Any

from ..auth.caller import quota_key
from ..core.holds import holds_streams
from ..prompts.methods import serves_prompts
from ..protocol.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    JSONRPCError,
    clip,
)
from ..resources import methods as resources
from ..resources.stamps import read_stamps
from .listeners import Audience, Listening
from .subscribed import MAX_SUBSCRIBED, read_subscribed, subscribe, subscriber_of, unsubscribe

__all__ = [
    "listen",
    "listening_on_get",
    "subscribe_resource",
    "unsubscribe_resource",
]

#: ``SubscriptionFilter``'s flags, each with the kind of list it names.
FLAGS = {
    "toolsListChanged": "tools",
    "resourcesListChanged": "resources",
    "promptsListChanged": "prompts",
}
#: The longest URI a subscription may name.
MAX_URI = 2048


def audience(exchange: Any) -> Audience:
    """Return who the exchange's caller is to the admin's rules, and what its endpoint
    serves."""
    kinds = {"tools"}
    if resources.served_at(exchange) is not None:
        kinds.add("resources")
    if serves_prompts(exchange.endpoint):
        kinds.add("prompts")
    # Tags are the code's: the tools they serve are known now. A toolset's change as the
    # admin changes it: its endpoint hears of every tool its caller may see.
    tagged = exchange.endpoint.tags is not None
    tools = frozenset(t.name for t in exchange.catalog if exchange.serves(t)) if tagged else None
    return Audience(
        group_ids=exchange.visibility.group_ids(),
        kinds=frozenset(kinds),
        tools=tools,
        toolset=exchange.toolset is not None,
    )


def listen(call: Any) -> Listening:
    """Answer ``subscriptions/listen``: the stream it opens, hearing what the client asked
    and the server has (a resource the caller can't read is left out of the
    acknowledgement, as one that does not exist)."""
    notifications = call.message.params.get("notifications")
    if not isinstance(notifications, dict):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: notifications must be an object")
    if not holds_streams(call.request):
        raise JSONRPCError(
            METHOD_NOT_FOUND,
            "Method not found: subscriptions/listen (this server holds no streams: a "
            "single-threaded WSGI worker)",
            status=404,
        )
    if not call.exchange.streams:
        raise JSONRPCError(
            INVALID_REQUEST, "Not Acceptable: the client must accept text/event-stream", status=406
        )
    served = audience(call.exchange)
    honored: dict[str, Any] = {}
    for flag, kind in FLAGS.items():
        value = notifications.get(flag)
        if value is not None and not isinstance(value, bool):
            raise JSONRPCError(INVALID_PARAMS, f"Invalid params: {flag} must be a boolean")
        if value and kind in served.kinds:
            honored[flag] = True
    uris = _uris(notifications.get("resourceSubscriptions"))
    followed = []
    if uris is not None and "resources" in served.kinds:
        followed = [uri for uri in uris if resources.find(call, uri) is not None]
        honored["resourceSubscriptions"] = followed
    return Listening(
        audience=served,
        wants=frozenset(FLAGS[flag] for flag in honored if flag in FLAGS),
        stamps=read_stamps(followed),
        request_id=call.message.id,
        honored=honored,
        holder=quota_key(call.request, call.caller),
    )


def _uris(value: object) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(uri, str) for uri in value):
        raise JSONRPCError(
            INVALID_PARAMS, "Invalid params: resourceSubscriptions must be an array of strings"
        )
    if len(value) > MAX_SUBSCRIBED:
        raise JSONRPCError(
            INVALID_PARAMS,
            f"Invalid params: at most {MAX_SUBSCRIBED} resourceSubscriptions are accepted",
        )
    if any(len(uri) > MAX_URI for uri in value):
        raise JSONRPCError(INVALID_PARAMS, f"Invalid params: a URI is longer than {MAX_URI}")
    return list(dict.fromkeys(value))


def listening_on_get(exchange: Any) -> Listening:
    """Return the handshake era's GET stream of the exchange's caller: every list its
    endpoint serves, and the resources the caller subscribed to."""
    served = audience(exchange)
    subscriber = subscriber_of(exchange.request, exchange.caller)
    follows = "resources" in served.kinds
    return Listening(
        audience=served,
        wants=served.kinds,
        stamps=read_subscribed([subscriber])[subscriber] if follows else {},
        subscriber=subscriber if follows else None,
        holder=quota_key(exchange.request, exchange.caller),
    )


def _uri(call: Any) -> str:
    uri = call.message.params.get("uri")
    if not isinstance(uri, str):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: uri must be a string")
    if len(uri) > MAX_URI:
        raise JSONRPCError(INVALID_PARAMS, f"Invalid params: a URI is longer than {MAX_URI}")
    return uri


def subscribe_resource(call: Any) -> dict[str, Any]:
    """Answer ``resources/subscribe`` (before 2026-07-28): the caller's GET streams hear
    when ``uri`` is updated. A resource the caller can't read is not found."""
    uri = _uri(call)
    if resources.find(call, uri) is None:
        raise resources.not_found(call, uri)
    if not subscribe(subscriber_of(call.request, call.caller), uri):
        raise JSONRPCError(
            INVALID_PARAMS,
            f"Invalid params: a client follows at most {MAX_SUBSCRIBED} resources; "
            f"unsubscribe from one first ({clip(uri)})",
        )
    return {}


def unsubscribe_resource(call: Any) -> dict[str, Any]:
    """Answer ``resources/unsubscribe``: nothing more is heard of ``uri``."""
    unsubscribe(subscriber_of(call.request, call.caller), _uri(call))
    return {}
