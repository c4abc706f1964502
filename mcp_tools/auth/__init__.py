"""The caller of the endpoint, and the endpoints as OAuth protected resources."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "Caller",
    "caller_key",
    "quota_key",
    "refusal",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Caller": ".caller",
        "caller_key": ".caller",
        "quota_key": ".caller",
        "refusal": ".refusals",
    },
)

if TYPE_CHECKING:
    from .caller import Caller, caller_key, quota_key
    from .refusals import refusal
