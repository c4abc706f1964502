"""A prompt's images: the site's own static files, found as ``collectstatic`` finds them.

Why static files (docs/prompts.md#images): they are part of the site, reviewed with its code,
and the finders look in the static directories only, so a path typed in the admin can't
read another file of the server; a URL would make the server fetch what staff name.
"""

from __future__ import annotations

from django.apps import apps
from django.core.exceptions import SuspiciousFileOperation

from .messages import MAX_IMAGE_BYTES

__all__ = ["read_static"]


def read_static(path: str) -> bytes | None:
    """Return the bytes of the static file ``path`` (at most ``MAX_IMAGE_BYTES`` and one
    more), or None where there is none, or no static files app. A path leaving the
    static directories (``../x.png``) is none: the finders raise on it, and the admin's
    form must say "no such file", not answer 400."""
    if not apps.is_installed("django.contrib.staticfiles"):
        return None
    from django.contrib.staticfiles import finders

    try:
        found = finders.find(path)
    except SuspiciousFileOperation:
        return None
    if not isinstance(found, str):
        return None
    with open(found, "rb") as file:
        return file.read(MAX_IMAGE_BYTES + 1)
