"""The ``requestState`` of input-required results: signed, not stored.

Everything a retry needs travels through the client, signed with Django's signing
(``SECRET_KEY``, and ``SECRET_KEY_FALLBACKS`` while keys rotate): the answers of earlier
rounds, bound to the tool, a digest of the arguments and the caller (and its credential's
scopes: a weaker token of the same user can't carry it on), with a timestamp
that expires after ``INPUT_STATE_MAX_AGE``, and the keys its round asked, the only ones a
retry may answer. Any worker of any host resumes any call; the one thing kept server-side
is which accepted confirmations a view has already run on, in the shared cache until they
expire, so an accepted confirmation runs the view once (docs/input.md).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.core import signing

from ..auth.caller import Caller, caller_key
from ..auth.credentials import covers
from ..conf import mcp_settings
from ..core.shared_cache import shared_cache
from ..protocol.jsonrpc import INVALID_PARAMS, JSONRPCError

SALT = "mcp_tools.request_state"
#: Bumped when the payload's shape changes: older states are then refused, never misread.
VERSION = 3
#: The shared cache's keys of confirmations in use or spent.
SPENT_PREFIX = "mcp_tools:confirmation:"


@dataclass(frozen=True)
class Binding:
    """What a state belongs to: one tool, called with these arguments, by this caller, with
    a credential of these scopes (None: one without scopes, docs/input.md)."""

    tool: str
    arguments: str
    caller: str
    scopes: tuple[str, ...] | None = None

    @classmethod
    def of(cls, tool: str, arguments: Mapping[str, object], caller: Caller) -> Binding:
        scopes = tuple(sorted(caller.scopes)) if caller.scopes is not None else None
        return cls(tool, arguments_digest(arguments), caller_key(caller), scopes)


def arguments_digest(arguments: Mapping[str, object]) -> str:
    """Return a digest of the arguments as received (key order does not matter)."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Confirmation:
    """An accepted confirmation: named by the state that asked for it, and when it asked."""

    id: str
    asked_at: float

    def expired(self) -> bool:
        max_age: float = mcp_settings.INPUT_STATE_MAX_AGE
        return time.time() - self.asked_at > max_age

    def hold(self) -> bool:
        """Take this confirmation for one run of the view; False when a run has it already.

        One atomic ``add`` in the shared cache, kept until every state that can carry the
        confirmation has expired. ``release()`` gives it back when the run ends asking for
        more input (the view will run again on the retry).
        """
        timeout = mcp_settings.INPUT_STATE_MAX_AGE
        return bool(shared_cache().add(SPENT_PREFIX + self.id, 1, timeout=timeout))

    def release(self) -> None:
        shared_cache().delete(SPENT_PREFIX + self.id)


@dataclass(frozen=True)
class State:
    """What a ``requestState`` carries back: the answers so far and what its round asked."""

    answers: dict[str, object] = field(default_factory=dict)
    #: The keys of the input requests this state was issued with.
    asked: frozenset[str] = frozenset()
    #: This state's own name: a confirmation answered against it is named by it.
    id: str = ""
    issued_at: float = 0.0
    #: The accepted confirmation among ``answers``, if any.
    confirmation: Confirmation | None = None


def issue(
    binding: Binding,
    answers: Mapping[str, object],
    asked: list[str],
    confirmation: Confirmation | None = None,
) -> str:
    """Return the signed state that carries ``answers`` to the next round, which may answer
    the keys in ``asked``.

    Raises ``JSONRPCError`` (-32602) when it would be larger than ``MAX_INPUT_BYTES``.
    """
    payload = {
        "v": VERSION,
        "tool": binding.tool,
        "args": binding.arguments,
        "caller": binding.caller,
        "scopes": binding.scopes,
        "answers": answers,
        "asked": sorted(asked),
        "id": secrets.token_urlsafe(12),
        "at": time.time(),
        "confirmed": [confirmation.id, confirmation.asked_at] if confirmation else None,
    }
    state = signing.dumps(payload, salt=SALT, compress=True)
    limit = mcp_settings.MAX_INPUT_BYTES
    if len(state) > limit:
        raise _invalid(f"the answers of this call exceed {limit} bytes")
    return state


def renew(state: str) -> str:
    """Return ``state`` signed again as if issued now: for a state the server kept (a
    task's, docs/tasks.md), which no client held, whatever time its round waited for the
    answers. A state this server can't read is returned as it is, for ``read`` to refuse."""
    try:
        payload = signing.loads(state, salt=SALT)
    except (signing.BadSignature, ValueError):
        return state
    if not isinstance(payload, dict) or payload.get("v") != VERSION:
        return state
    return signing.dumps({**payload, "at": time.time()}, salt=SALT, compress=True)


def read(state: object, binding: Binding) -> State:
    """Return what ``state`` carries, after checking it belongs to ``binding``.

    Raises ``JSONRPCError`` (-32602) with a clear message for a state that is not a
    string, is too large, was not signed here (forged, truncated, tampered), has expired,
    or was issued for another tool, other arguments or another caller (or the same user
    with a credential of scopes the caller's lacks: a weaker token).
    """
    if not isinstance(state, str):
        raise _invalid("requestState must be a string")
    if len(state) > mcp_settings.MAX_INPUT_BYTES:
        raise _invalid("requestState was not issued by this server")
    try:
        payload = signing.loads(state, salt=SALT, max_age=mcp_settings.INPUT_STATE_MAX_AGE)
    except signing.SignatureExpired:
        raise _invalid("requestState has expired: call the tool again without it") from None
    except (signing.BadSignature, ValueError):
        # ValueError: a signature that holds over bytes that do not decode (never ours).
        raise _invalid("requestState was not issued by this server") from None
    if not isinstance(payload, dict) or payload.get("v") != VERSION:
        raise _invalid("requestState was not issued by this server")
    if payload.get("tool") != binding.tool:
        raise _invalid("requestState was issued for another tool")
    if payload.get("caller") != binding.caller or not covers(binding.scopes, payload["scopes"]):
        raise _invalid("requestState was issued to another caller")
    if payload.get("args") != binding.arguments:
        raise _invalid("requestState was issued for other arguments")
    # Signed by this server in this shape (``issue``): read as written.
    confirmed = payload["confirmed"]
    return State(
        answers=payload["answers"],
        asked=frozenset(payload["asked"]),
        id=payload["id"],
        issued_at=payload["at"],
        confirmation=Confirmation(*confirmed) if confirmed else None,
    )


def _invalid(message: str) -> JSONRPCError:
    return JSONRPCError(INVALID_PARAMS, f"Invalid params: {message}")
