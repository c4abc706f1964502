"""A listener: one client's open stream of notifications, and what it hears.

``subscriptions/listen`` (2026-07-28) names what it wants; the handshake era's GET stream
hears every list it has and the resources its caller subscribed to with
``resources/subscribe``. A listener hears a list changed only where the change touched a
row its caller may see, before or after, by the admin's rule (enabled, groups), and, for
tools, one its endpoint serves (docs/subscriptions.md#what-a-client-hears).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..catalog.admin_state import Rule

if TYPE_CHECKING:  # the watcher loads what changed with the process's first listener
    from ..protocol.jsonrpc import RequestId
    from .changes import Change

__all__ = ["Audience", "Listener", "Listening"]

#: What a listener sends: a notification's method and params; False when its stream could
#: not take it (a client far behind: the news is dropped, the next list is current anyway).
Send = Callable[[str, dict[str, Any]], bool]


@dataclass(frozen=True)
class Audience:
    """Who a listener's caller is to the admin's rules, and what its endpoint serves."""

    #: The caller's groups, read when the stream opened.
    group_ids: frozenset[int]
    #: The kinds of list its endpoint serves (a toolset's serves tools alone).
    kinds: frozenset[str]
    #: The tools its endpoint serves by name (None: all, or those of a toolset).
    tools: frozenset[str] | None = None
    #: The endpoint serves a toolset: whatever a toolset changes, its list may have.
    toolset: bool = False

    def admits(self, rule: Rule | None) -> bool:
        """Whether the admin's ``rule`` lets this caller see the row (the tools' rule)."""
        if rule is None or not rule.enabled:
            return False
        return not (rule.group_ids and not rule.group_ids & self.group_ids)

    def sees(self, change: Change) -> bool:
        """Whether ``change`` may change a list this caller sees."""
        if change.kind not in self.kinds:
            return False
        if change.toolsets and self.toolset:
            return True
        for name, (before, after) in change.rules.items():
            if change.kind == "tools" and self.tools is not None and name not in self.tools:
                continue
            if self.admits(before) or self.admits(after):
                return True
        return False


@dataclass
class Listening:
    """A stream of notifications about to open: for whom, what it hears, how it starts."""

    audience: Audience
    #: The kinds of list it hears of.
    wants: frozenset[str]
    #: The resources it follows, with their stamps now.
    stamps: dict[str, str | None] = field(default_factory=dict)
    #: Whose handshake-era subscription set it follows (the GET stream), else None.
    subscriber: str | None = None
    #: The ``subscriptions/listen`` request's id (its notifications carry it), else None.
    request_id: RequestId | None = None
    #: The ``SubscriptionFilter`` it honours, for its acknowledgement (listen only).
    honored: dict[str, Any] | None = None
    #: Whose share of the held streams it takes (``auth.caller.quota_key``).
    holder: str = "anonymous"

    @property
    def on_get(self) -> bool:
        """Whether it is the handshake era's GET stream (no ``subscriptions/listen``)."""
        return self.request_id is None


@dataclass(eq=False)
class Listener:
    """One open stream: what it wants to hear, and where its notifications go."""

    audience: Audience
    #: The kinds of list it hears of (``toolsListChanged`` and the like).
    wants: frozenset[str]
    send: Send
    #: The resource URIs it follows, each with the stamp it last saw.
    stamps: dict[str, str | None] = field(default_factory=dict)
    #: Whose ``resources/subscribe`` set it follows (the handshake era's GET stream), read
    #: again at each poll; None: the URIs of its ``subscriptions/listen``.
    subscriber: str | None = None
    #: What ends its stream gracefully (its server stops), if anything does.
    finish: Callable[[], None] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def uris(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self.stamps)

    def changed(self, changes: Iterable[Change]) -> None:
        """Hear a new version of the admin state: each list it wants that the change may
        have changed for its caller, once."""
        for change in changes:
            if change.kind in self.wants and self.audience.sees(change):
                self.send(f"notifications/{change.kind}/list_changed", {})

    def updated(self, uri: str, stamp: str | None) -> None:
        """Hear that ``uri`` now has ``stamp``: an update, where it follows ``uri`` and last
        saw another stamp."""
        with self._lock:
            if uri not in self.stamps or self.stamps[uri] == stamp:
                return
            self.stamps[uri] = stamp
        self.send("notifications/resources/updated", {"uri": uri})

    def follow(self, stamps: dict[str, str | None]) -> None:
        """Follow exactly the URIs of ``stamps`` (a subscriber's set read again, each with
        its stamp when it was subscribed to), keeping the stamps already seen of those it
        followed."""
        with self._lock:
            self.stamps = {uri: self.stamps.get(uri, stamp) for uri, stamp in stamps.items()}
