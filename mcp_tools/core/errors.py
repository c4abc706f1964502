"""Unexpected failures: each gets an error reference and is logged once, under it.

The one convention for every fault the client can't be told about (a view's exception, a
masked 5xx, a failing result processor, a fault of the server itself): a new reference,
one ERROR record on the ``mcp_tools`` logger that names it (with the traceback when there
is one), and Django's ``got_request_exception`` signal, as Django's own handler sends it.
The client sees only the reference: in a tool result's ``_meta`` or a JSON-RPC error's
``data``.
"""

from __future__ import annotations

import logging
import uuid

from django.core.signals import got_request_exception
from django.http import HttpRequest

logger = logging.getLogger("mcp_tools")


def report(
    what: str, *args: object, exc: BaseException | None = None, request: HttpRequest | None = None
) -> str:
    """Log ``what % args`` with a new error reference; return that reference.

    With ``exc`` the traceback is logged and ``got_request_exception`` sent for ``request``.
    """
    reference = uuid.uuid4().hex
    logger.error(f"{what} (error reference %s)", *args, reference, exc_info=exc)
    if exc is not None and request is not None:
        got_request_exception.send(sender=None, request=request)
    return reference
