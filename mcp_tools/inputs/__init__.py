"""A view's asks for input: the questions, the handshake-era relay, the signed state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

__all__ = [
    "InputRequired",
    "Inputs",
    "confirm",
    "elicit",
    "request_input",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "InputRequired": ".asks",
        "Inputs": ".asks",
        "confirm": ".asks",
        "elicit": ".asks",
        "request_input": ".asks",
    },
)

if TYPE_CHECKING:
    from .asks import InputRequired, Inputs, confirm, elicit, request_input
