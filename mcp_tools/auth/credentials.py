"""A caller's credential, named without its secret: what a task's worker checks again.

A task runs later, in another process, without the /mcp request's headers: the worker
must hand its view the ``request.auth`` the view would have seen, and refuse to run once
that credential is revoked or expired (docs/tasks.md#who-runs-the-view). A credential is
carried as a *reference* to its row, never as the secret a client sends:

- a token row whose primary key is an integer (django-oauth-toolkit's ``AccessToken``) by
  its model and primary key;
- a token row whose primary key may be the secret itself (DRF's ``authtoken.Token``, whose
  key is its primary key) by a keyed digest of that key and its user, found again among the
  user's rows;
- no credential object (sessions, Basic, ``RemoteUser``) as nothing.

Anything else (a JWT, a string the authentication class returns) can't be checked again
without its secret: ``reference()`` raises ``Uncarried``.

A credential's *scopes* are what it may do short of its user's full power: a DOT token's
``scope``; None for a credential without scopes (a session, a DRF key), which may do all
its user may.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

__all__ = [
    "Revoked",
    "Uncarried",
    "covers",
    "reference",
    "restore",
    "scopes_of",
]

#: The salt of the digests that name a token row whose primary key may be its secret.
SALT = "mcp_tools.auth.credentials"
#: Primary keys that are a row's number, never its secret.
COUNTED_KEYS = (models.AutoField, models.BigAutoField, models.SmallAutoField)


class Uncarried(Exception):
    """The credential is not a row the worker can find again (a JWT, a bare string)."""


class Revoked(Exception):
    """The credential a reference names is gone (revoked, rotated) or has expired."""


def reference(auth: object) -> dict[str, Any] | None:
    """Return what names ``auth`` (``request.auth``) without its secret; None for none.

    Raises ``Uncarried`` for a credential that is not a model row, or a row whose primary
    key may be its secret and that belongs to no user to find it among.
    """
    if auth is None:
        return None
    if not isinstance(auth, models.Model) or auth.pk is None:
        raise Uncarried(type(auth).__name__)
    meta = auth._meta
    if isinstance(meta.pk, COUNTED_KEYS):
        return {"model": meta.label_lower, "pk": auth.pk}
    owner = user_field(type(auth))
    if owner is None:
        raise Uncarried(type(auth).__name__)
    return {
        "model": meta.label_lower,
        "digest": digest(auth.pk),
        "user": getattr(auth, owner.attname),
    }


def restore(ref: dict[str, Any] | None) -> object:
    """Return the credential ``ref`` names, as its row stands now; None for none.

    Raises ``Revoked`` when the row is gone (a revoked DOT token, a regenerated DRF key) or
    says it has expired.
    """
    if ref is None:
        return None
    try:
        model = apps.get_model(ref["model"])
    except (LookupError, ValueError, KeyError):
        raise Revoked() from None
    rows = model._default_manager.all()
    if "pk" in ref:
        found = rows.filter(pk=ref["pk"]).first()
    else:
        owner = user_field(model)
        candidates = rows.filter(**{owner.name: ref["user"]}) if owner is not None else []
        found = next((row for row in candidates if matches(row.pk, ref["digest"])), None)
    if found is None or expired(found):
        raise Revoked()
    return found


def user_field(model: type[models.Model]) -> models.Field[Any, Any] | None:
    """Return the field of ``model`` that names its user (DRF's ``Token.user``), if one does."""
    user_model = get_user_model()
    for each in model._meta.concrete_fields:
        if each.is_relation and each.related_model is user_model:
            return each
    return None


def digest(key: object, secret: str | None = None) -> str:
    return salted_hmac(SALT, str(key), secret=secret, algorithm="sha256").hexdigest()


def matches(key: object, expected: str) -> bool:
    """Return whether ``key`` has the digest ``expected``, under the current secret key or
    one still accepted while keys rotate (``SECRET_KEY_FALLBACKS``)."""
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return any(constant_time_compare(digest(key, secret), expected) for secret in secrets)


def expired(token: object) -> bool:
    """Return whether a token row says it has expired: DOT's ``is_expired()``, or an
    ``expires`` / ``expiry`` stamp in the past (django-rest-knox)."""
    is_expired = getattr(token, "is_expired", None)
    if callable(is_expired):
        return bool(is_expired())
    for name in ("expires", "expiry", "expires_at"):
        stamp = getattr(token, name, None)
        if isinstance(stamp, datetime):
            return stamp <= timezone.now()
    return False


def scopes_of(auth: object) -> frozenset[str] | None:
    """Return the scopes ``auth`` was granted (a DOT token's ``scope``), or None for a
    credential without scopes, which may do all its user may."""
    scope = getattr(auth, "scope", None)
    if isinstance(scope, str):
        return frozenset(scope.split())
    return None


def covers(reader: Collection[str] | None, creator: Collection[str] | None) -> bool:
    """Return whether a credential with the scopes ``reader`` may do all that one with
    ``creator`` could: unscoped (None) covers everything, and is covered only by itself."""
    if reader is None:
        return True
    if creator is None:
        return False
    return set(creator) <= set(reader)
