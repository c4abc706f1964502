"""What of a project's DRF defaults the endpoint takes for its own policy (docs/security.md).

The endpoint is a view with no model: a default permission class that reads the view's
queryset (DRF's ``DjangoModelPermissions`` and its subclasses, as NetBox's
``TokenPermissions``) can't answer for it. The endpoint takes what such a class asks of
every caller before it looks at the model (an authenticated user, or anyone where it lets
anonymous callers read), and each tool's view still applies the class itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

from rest_framework.permissions import AllowAny, DjangoModelPermissions, IsAuthenticated

__all__ = ["for_endpoint", "needs_model", "stand_in"]


def needs_model(permission_class: Any) -> TypeGuard[type[DjangoModelPermissions]]:
    """Return whether ``permission_class`` reads a view's queryset in ``has_permission``."""
    return isinstance(permission_class, type) and issubclass(
        permission_class, DjangoModelPermissions
    )


def stand_in(permission_class: type[DjangoModelPermissions]) -> type:
    """Return what the endpoint takes in place of ``permission_class``."""
    return IsAuthenticated if permission_class.authenticated_users_only else AllowAny


def for_endpoint(defaults: Sequence[Any]) -> list[Any]:
    """Return the project's default permission classes as the endpoint applies them."""
    return [stand_in(each) if needs_model(each) else each for each in defaults]
