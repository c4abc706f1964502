"""The ``requestState`` of input-required results: signed, not stored.

Everything a retry needs travels through the client, signed with Django's signing
(``SECRET_KEY``, and ``SECRET_KEY_FALLBACKS`` while keys rotate): the answers of earlier
rounds, bound to the tool, a digest of the arguments and the caller, with a timestamp
that expires after ``INPUT_STATE_MAX_AGE``. Any worker of any host resumes any call;
nothing is kept server-side (docs/input.md).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.core import signing

from .authentication import Caller
from .conf import mcp_settings
from .protocol.jsonrpc import INVALID_PARAMS, JSONRPCError

SALT = "mcp_tools.request_state"
#: Bumped when the payload's shape changes: older states are then refused, never misread.
VERSION = 1


@dataclass(frozen=True)
class Binding:
    """What a state belongs to: one tool, called with these arguments, by this caller."""

    tool: str
    arguments: str
    caller: str

    @classmethod
    def of(cls, tool: str, arguments: dict[str, Any], caller: Caller) -> Binding:
        return cls(tool, arguments_digest(arguments), caller_key(caller))


def arguments_digest(arguments: dict[str, Any]) -> str:
    """Return a digest of the arguments as received (key order does not matter)."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def caller_key(caller: Caller) -> str:
    """Name the caller: its user (model and primary key), or ``anonymous``."""
    if not caller.is_authenticated:
        return "anonymous"
    user = caller.user
    return f"{user._meta.label_lower}:{user.pk}"


def issue(binding: Binding, answers: dict[str, Any]) -> str:
    """Return the signed state that carries ``answers`` to the next round.

    Raises ``JSONRPCError`` (-32602) when it would be larger than ``MAX_INPUT_BYTES``.
    """
    payload = {
        "v": VERSION,
        "tool": binding.tool,
        "args": binding.arguments,
        "caller": binding.caller,
        "answers": answers,
    }
    state = signing.dumps(payload, salt=SALT, compress=True)
    limit = mcp_settings.MAX_INPUT_BYTES
    if len(state) > limit:
        raise _invalid(f"the answers of this call exceed {limit} bytes")
    return state


def read(state: object, binding: Binding) -> dict[str, Any]:
    """Return the answers ``state`` carries, after checking it belongs to ``binding``.

    Raises ``JSONRPCError`` (-32602) with a clear message for a state that is not a
    string, is too large, was not signed here (forged, truncated, tampered), has expired,
    or was issued for another tool, other arguments or another caller.
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
    if payload.get("caller") != binding.caller:
        raise _invalid("requestState was issued to another caller")
    if payload.get("args") != binding.arguments:
        raise _invalid("requestState was issued for other arguments")
    answers = payload.get("answers")
    return answers if isinstance(answers, dict) else {}


def _invalid(message: str) -> JSONRPCError:
    return JSONRPCError(INVALID_PARAMS, f"Invalid params: {message}")
