"""A stamp per resource URI: what tells a subscribed client that a resource changed.

A site says when a resource changed: ``resource_updated("todo://7")`` after its data
changed, or ``updated_by(Todo, "todo://{pk}")`` once, to say it after every save and delete
of a ``Todo`` (docs/subscriptions.md#resources-that-change). Either writes a new random
stamp for the URI in the shared cache, after the transaction commits, and tells every
process (``core.broadcast``); a process holding a client's subscription to that URI sends
``notifications/resources/updated`` when it hears of it, or when it sees the stamp move at
its next poll.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from django.db import models, transaction
from django.db.models import signals

from ..core import broadcast
from ..core.shared_cache import shared_cache
from .resource import VARIABLE

__all__ = ["read_stamps", "resource_updated", "updated_by"]

logger = logging.getLogger("mcp_tools")

PREFIX = "mcp_tools:resource-stamp:"
#: Seconds a stamp is kept: a subscription held longer than this whose resource never
#: changed sees the stamp go, and hears of an update it may read again for nothing.
STAMP_TIMEOUT = 24 * 60 * 60


def stamp_key(uri: str) -> str:
    """The shared cache's key of ``uri``'s stamp (a digest: a URI may be long or odd)."""
    return PREFIX + hashlib.sha256(uri.encode()).hexdigest()


def read_stamps(uris: Iterable[str]) -> dict[str, str | None]:
    """Return the stamp of each URI now (None: never changed, or forgotten), one read."""
    uris = list(uris)
    if not uris:
        return {}
    found = shared_cache().get_many([stamp_key(uri) for uri in uris])
    return {uri: found.get(stamp_key(uri)) for uri in uris}


def resource_updated(*uris: str, using: str | None = None) -> None:
    """Tell clients subscribed to ``uris`` that those resources changed: once the current
    transaction of ``using`` commits (at once outside one)."""
    for uri in uris:
        if not isinstance(uri, str):
            raise TypeError(f"resource_updated: a URI must be a string, not {uri!r}")
    transaction.on_commit(lambda: _stamp(uris), using=using)


def _stamp(uris: Iterable[str]) -> None:
    stamps = {uri: secrets.token_hex(8) for uri in uris}
    try:
        shared_cache().set_many(
            {stamp_key(uri): stamp for uri, stamp in stamps.items()}, timeout=STAMP_TIMEOUT
        )
    except Exception:
        logger.warning("Stamping the resources %s failed", ", ".join(stamps), exc_info=True)
    for uri, stamp in stamps.items():
        broadcast.publish({"uri": uri, "stamp": stamp})


def uri_of(template: str, instance: models.Model) -> str:
    """Fill ``template``'s ``{variables}`` with the attributes of ``instance`` of their
    names (``{pk}``, ``{slug}``)."""
    return VARIABLE.sub(lambda match: str(getattr(instance, match.group(1))), template)


def updated_by(
    model: type[models.Model], *templates: str | Callable[[Any], Iterable[str]]
) -> Callable[[], None]:
    """Say that every save and delete of a ``model`` row updates the resources named by
    ``templates``: a URI template filled from the row (``"todo://{pk}"``), or a function of
    the row returning URIs. Call it once, from an ``AppConfig.ready()``; it returns what
    undoes it (for a test)."""
    if not templates:
        raise TypeError("updated_by: name at least one URI template")
    for template in templates:
        if isinstance(template, str):
            missing = [name for name in VARIABLE.findall(template) if name != "pk"]
            fields = {field.attname for field in model._meta.concrete_fields}
            fields |= {field.name for field in model._meta.concrete_fields}
            unknown = [name for name in missing if name not in fields]
            if unknown:
                raise TypeError(
                    f"updated_by({model.__name__}, {template!r}): {model.__name__} has no "
                    f"field {', '.join(unknown)}"
                )
        elif not callable(template):
            raise TypeError(f"updated_by: {template!r} is neither a URI template nor callable")

    def changed(sender: Any, instance: models.Model, raw: bool = False, **kwargs: Any) -> None:
        if raw:  # loaddata
            return
        uris: list[str] = []
        for template in templates:
            if isinstance(template, str):
                uris.append(uri_of(template, instance))
            else:
                uris.extend(template(instance))
        if uris:
            resource_updated(*uris, using=kwargs.get("using"))

    uid = f"mcp_tools.updated_by:{model._meta.label}:{templates!r}"
    signals.post_save.connect(changed, sender=model, weak=False, dispatch_uid=uid)
    signals.post_delete.connect(changed, sender=model, weak=False, dispatch_uid=uid)

    def undo() -> None:
        signals.post_save.disconnect(sender=model, dispatch_uid=uid)
        signals.post_delete.disconnect(sender=model, dispatch_uid=uid)

    return undo
