"""A resource template variable's completion (``ref/resource``): the values of the view's
own queryset, as this caller would see them (docs/resources.md#completion).

Only the variable the view looks its object up by (``lookup_url_kwarg``, else
``lookup_field``) completes, and only where that field holds text (a slug, a code, a
name). Its values come from ``filter_queryset(get_queryset())`` of the view set up for this
caller as the view's own authentication finds them, with the template's other variables as
the view's URL arguments, after its permission classes admitted the caller with them:
prefix-matched, ordered, bounded. Where the permission classes check objects, each row is
asked as ``get_object()`` would ask it before its value is offered, so no value names a
row the view would refuse this caller. A view without a queryset, one that overrides a
step of DRF's retrieve (``get``, ``retrieve``, ``get_object``, ``check_object_permissions``:
who reads a row is then decided in code this can't ask), a variable of another kind, a
template whose other variables are not given yet, or a view that refuses the caller
completes to nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import FieldDoesNotExist, PermissionDenied, ValidationError
from django.db import models
from django.http import Http404
from rest_framework.exceptions import APIException
from rest_framework.permissions import BasePermission

from ..protocol.jsonrpc import INVALID_PARAMS, JSONRPCError, clip
from ..resources.methods import typed as typed_arguments
from ..resources.methods import visible
from ..resources.resource import variables_of
from .values import MAX_VALUES, Completion

__all__ = ["MAX_ROWS_ASKED", "resource_values"]

#: The most rows whose object permissions one completion asks: past them it answers what
#: it found, with ``hasMore``, rather than scan a table for the rows a caller may read.
MAX_ROWS_ASKED = 1000

#: The model fields whose values complete: text a user types the start of.
TEXT_FIELDS = (models.CharField, models.TextField)


def resource_values(
    call: Any, uri: str, variable: str, typed: str, context: Mapping[str, str]
) -> Completion:
    """Return the completion of ``variable`` of the resource template ``uri`` for the
    caller of ``call``, given what they ``typed`` and the other variables' values; -32602
    for a template this caller can't see, or a variable it doesn't have."""
    found = next(
        (
            tool
            for resource, tool in visible(call)[0]
            if resource.is_template and resource.address == uri
        ),
        None,
    )
    if found is None:
        raise JSONRPCError(INVALID_PARAMS, f"Invalid params: unknown resource template {clip(uri)}")
    variables = variables_of(uri)
    if variable not in variables:
        raise JSONRPCError(
            INVALID_PARAMS, f"Invalid params: {clip(uri)} has no variable {clip(variable)}"
        )
    if "\x00" in typed or any("\x00" in value for value in context.values()):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: a value holds a NUL character")
    others = {name: context[name] for name in variables if name != variable and name in context}
    if len(others) < len(variables) - 1:
        return Completion()  # the view's URL needs the other variables first
    request = call.exchange.visibility.view_request(found)
    if request is None:
        return Completion()  # the view's own authentication refuses the caller
    view = found.operation.view_with(request)
    field = getattr(view, "lookup_field", None)
    if field is None or variable != (getattr(view, "lookup_url_kwarg", None) or field):
        return Completion()
    if decides_in_code(view):
        return Completion()  # who reads a row is decided in code this can't ask
    view.kwargs = typed_arguments(found, others)
    try:
        # Asked again with the URL's other variables, which a permission may read.
        view.check_permissions(request)
        queryset = view.filter_queryset(view.get_queryset())
        if not isinstance(queryset.model._meta.get_field(field), TEXT_FIELDS):
            return Completion()
        rows = (
            queryset.filter(**{f"{field}__istartswith": typed})
            .exclude(**{f"{field}__isnull": True})
            .order_by(field)
        )
        permissions = view.get_permissions()
        checked = [permission for permission in permissions if checks_objects(permission)]
        if not checked:
            values = list(rows.values_list(field, flat=True).distinct()[: MAX_VALUES + 1])
            return Completion(tuple(values[:MAX_VALUES]), None, len(values) > MAX_VALUES)
        return permitted(rows, field, request, view, checked)
    except (
        APIException,
        Http404,
        PermissionDenied,
        FieldDoesNotExist,
        KeyError,
        ValueError,
        ValidationError,
    ):
        # The view refuses the caller, or can't build its queryset from these values, or
        # its lookup is no field of the queryset's model (``author__slug``): nothing to offer.
        return Completion()


#: What a retrieve view may override to decide who reads a row: where any is the view's own
#: (not Django REST framework's), completion can't ask it and offers nothing.
DECIDING = ("get", "retrieve", "get_object", "check_object_permissions")


def decides_in_code(view: Any) -> bool:
    """Return whether ``view`` overrides a step of DRF's retrieve (``DECIDING``)."""
    for name in DECIDING:
        method = getattr(type(view), name, None)
        if method is not None and not method.__module__.startswith("rest_framework."):
            return True
    return False


def checks_objects(permission: BasePermission) -> bool:
    """Return whether ``permission`` checks objects itself (DRF's default admits every one)."""
    own = type(permission).has_object_permission
    return own is not BasePermission.has_object_permission


def permitted(
    rows: Any, field: str, request: Any, view: Any, permissions: list[BasePermission]
) -> Completion:
    """Return the distinct ``field`` values of the ``rows`` each of ``permissions`` admits,
    asking at most ``MAX_ROWS_ASKED`` rows."""
    values: list[str] = []
    for asked, row in enumerate(rows[: MAX_ROWS_ASKED + 1].iterator(), start=1):
        if asked > MAX_ROWS_ASKED or len(values) > MAX_VALUES:
            return Completion(tuple(values[:MAX_VALUES]), None, True)
        try:
            admitted = all(each.has_object_permission(request, view, row) for each in permissions)
        except (APIException, Http404, PermissionDenied):
            admitted = False
        value = getattr(row, field)
        if admitted and value not in values:
            values.append(value)
    return Completion(tuple(values[:MAX_VALUES]), None, len(values) > MAX_VALUES)
