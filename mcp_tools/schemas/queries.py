"""JSON Schemas of a list view's query parameters: filter backends and the paginator.

django-filter FilterSets are mapped from their declared filters (each filter's form field,
through a small table), a filter's lookup variants (``name__ic``) folded into its base unless
``FILTER_LOOKUPS`` is ``"all"``; DRF's SearchFilter and OrderingFilter, and the page-number,
limit/offset and cursor paginators, from their own attributes. A backend of another kind
that describes itself with DRF's ``get_schema_operation_parameters`` is read from that, and
one the package can't read from what the schema adapters' registry teaches
(``schemas.adapters``), which wins over all of these.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core import validators
from rest_framework import filters as drf_filters
from rest_framework import pagination

from ..conf import mcp_settings
from . import adapters, fields
from .introspection import lookup_model_field

Schema = dict[str, Any]

try:  # django-filter is optional
    from django_filters import fields as filter_fields
    from django_filters.rest_framework import DjangoFilterBackend
except ImportError:  # pragma: no cover - exercised only without django-filter
    DjangoFilterBackend = None
    filter_fields = None


#: What ``FILTER_LOOKUPS`` takes: "exact" folds a filter's lookup variants into its base
#: (the description states them once); "all" lists each as a parameter of its own.
LOOKUP_MODES: tuple[str, ...] = ("exact", "all")


@dataclass(frozen=True)
class Lookup:
    """A filter's lookup variant, folded into its base: ``name__ic`` is ``name``'s ``ic``,
    django-filter's ``icontains``; NetBox's ``name__n`` is ``exact``, excluded."""

    base: str
    suffix: str
    lookup_expr: str
    exclude: bool = False


@dataclass
class QueryParameters:
    """The query parameters of one tool: their schemas and which are required."""

    properties: dict[str, Schema] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    #: Parameters that name rows of another model (a filter on a foreign key).
    related: list[fields.Relation] = field(default_factory=list)
    #: Lookup variants left out of ``properties`` (``FILTER_LOOKUPS``): their schemas, which
    #: still type a call's arguments, and what each is.
    folded: dict[str, Schema] = field(default_factory=dict)
    lookups: list[Lookup] = field(default_factory=list)

    def add(self, name: str, schema: Schema, *, required: bool = False) -> None:
        self.properties[name] = schema
        if required:
            self.required.append(name)


# django-filter ---------------------------------------------------------------------------


def _choices(field: Any) -> Schema:
    # Django's choice fields offer an empty choice ("---------") that means "no filter".
    labels = {
        value: label for value, label in flat_choices(field.choices) if value not in ("", None)
    }
    return fields.choices_schema(list(labels), labels)


def flat_choices(choices: Any) -> Iterator[tuple[Any, Any]]:
    """Yield ``(value, label)`` of Django's choices, each group's options in its place
    (a group's label, often a lazy translation, is no value)."""
    for value, label in choices:
        if isinstance(label, list | tuple):
            yield from label
        else:
            yield value, label


def _model_choice(field: Any) -> Schema:
    queryset = field.queryset
    if queryset is None:
        return {"type": "string"}
    # NetBox's and Nautobot's filters name a lookup there too: ``pk``, ``module_type__model``.
    model_field = lookup_model_field(queryset.model, field.to_field_name or "pk")
    return fields.model_field_schema(model_field) if model_field else {"type": "string"}


def _csv(field: Any) -> Schema:
    return {"type": "string", "description": "Comma-separated values."}


Builder = Callable[[Any], Schema]

# Django form fields (a filter's ``field``) → schema. Most specific classes first.
FORM_FIELD_SCHEMAS: list[tuple[type, Builder]] = [
    (forms.ModelMultipleChoiceField, lambda f: {"type": "array", "items": _model_choice(f)}),
    (forms.ModelChoiceField, _model_choice),
    (forms.NullBooleanField, lambda f: {"type": "boolean"}),
    (forms.BooleanField, lambda f: {"type": "boolean"}),
    (forms.MultipleChoiceField, lambda f: {"type": "array", "items": _choices(f)}),
    (forms.ChoiceField, _choices),
    # DecimalField and FloatField subclass IntegerField.
    (forms.DecimalField, lambda f: {"type": "number"}),
    (forms.FloatField, lambda f: {"type": "number"}),
    (forms.IntegerField, lambda f: {"type": "integer"}),
    (forms.DateTimeField, lambda f: {"type": "string", "format": "date-time"}),
    (forms.DateField, lambda f: {"type": "string", "format": "date"}),
    (forms.TimeField, lambda f: {"type": "string", "format": "time"}),
    (forms.DurationField, lambda f: {"type": "string", "pattern": fields.DURATION_PATTERN}),
    (forms.UUIDField, lambda f: {"type": "string", "pattern": fields.UUID_PATTERN}),
    (forms.CharField, lambda f: {"type": "string", "pattern": fields.NO_NUL}),
]
if filter_fields is not None:
    FORM_FIELD_SCHEMAS.insert(0, (filter_fields.BaseCSVField, _csv))


def form_field_schema(form_field: Any) -> Schema:
    """Return the schema of one query value that a Django form field reads."""
    for field_class, build in FORM_FIELD_SCHEMAS:
        if isinstance(form_field, field_class):
            return _bounded(build(form_field), form_field)
    return {"type": "string"}


def _bounded(schema: Schema, form_field: Any) -> Schema:
    # Number fields carry their bounds as validators (django-filter's NumberFilter: ±1e50).
    if schema.get("type") not in ("integer", "number"):
        return schema
    for validator in form_field.validators:
        if isinstance(validator, validators.MaxValueValidator):
            schema["maximum"] = fields.json_number(validator.limit_value)
        elif isinstance(validator, validators.MinValueValidator):
            schema["minimum"] = fields.json_number(validator.limit_value)
    return schema


def _described(schema: Schema, text: object) -> Schema:
    if text:
        schema["description"] = str(text)
    return schema


def _filter_label(filterset_class: Any, filter_: Any) -> Any:
    """A filter's label: declared, else django-filter's own from the model field."""
    model = getattr(getattr(filterset_class, "_meta", None), "model", None)
    if model is None:
        return None
    from django_filters.utils import label_for_filter

    label = label_for_filter(model, filter_.field_name, filter_.lookup_expr, filter_.exclude)
    return f"{label}."


def _relation(name: str, form_field: Any, params: QueryParameters) -> bool:
    """Record a filter on a foreign key (described once every tool is built)."""
    queryset = getattr(form_field, "queryset", None)
    if not isinstance(form_field, forms.ModelChoiceField) or queryset is None:
        return False
    key = form_field.to_field_name or queryset.model._meta.pk.name
    many = isinstance(form_field, forms.ModelMultipleChoiceField)
    params.related.append(fields.Relation(name, queryset.model, key, many))
    return True


def _split(filter_: Any) -> bool:
    """Whether a filter is one parameter per bound (a range: ``price_min``, ``price_max``)."""
    form_field = filter_.field
    return isinstance(form_field, forms.MultiValueField) and bool(
        getattr(form_field.widget, "suffixes", None)
    )


def lookup_variant(name: str, filter_: Any, filters: dict[str, Any]) -> Lookup | None:
    """Return what ``name`` is when it is a lookup variant of another filter of the set:
    ``<base>__<suffix>``, on the same model field as the filter ``<base>``, neither of them
    a range, and not required. Else None: ``site__name`` beside ``site`` (a slug) is a
    filter of its own."""
    base, sep, suffix = name.rpartition("__")
    base_filter = filters.get(base) if sep else None
    if base_filter is None or not suffix or filter_.extra.get("required"):
        return None
    if filter_.field_name != base_filter.field_name or _split(filter_) or _split(base_filter):
        return None
    return Lookup(base, suffix, str(filter_.lookup_expr), bool(filter_.exclude))


def filterset_parameters(filterset_class: Any, params: QueryParameters) -> None:
    """Add the declared filters of a FilterSet; a range filter is one parameter per bound.

    With ``FILTER_LOOKUPS = "exact"`` a lookup variant is folded into its base: typed for
    calls, not listed, and named in ``params.lookups``.
    """
    filters = filterset_class.base_filters
    fold = mcp_settings.FILTER_LOOKUPS != "all"
    for name, filter_ in filters.items():
        form_field = filter_.field
        lookup = lookup_variant(name, filter_, filters) if fold else None
        if lookup is not None:
            params.folded[name] = form_field_schema(form_field)
            params.lookups.append(lookup)
            continue
        required = bool(filter_.extra.get("required"))
        help_text = filter_.extra.get("help_text") or filter_.label
        if not _relation(name, form_field, params):
            help_text = help_text or _filter_label(filterset_class, filter_)
        suffixes = getattr(form_field.widget, "suffixes", None)
        if isinstance(form_field, forms.MultiValueField) and suffixes:
            for suffix, sub_field in zip(suffixes, form_field.fields, strict=False):
                sub_name = f"{name}_{suffix}" if suffix else name
                params.add(sub_name, _described(form_field_schema(sub_field), help_text))
            continue
        params.add(name, _described(form_field_schema(form_field), help_text), required=required)
    order = {name: index for index, name in enumerate(filters)}
    params.lookups.sort(key=lambda lookup: order[lookup.base])  # in the order of the filters


def _filterset_class(backend: Any, view: Any) -> Any:
    queryset = getattr(view, "queryset", None)
    if queryset is None:
        queryset = view.get_queryset()
    return backend.get_filterset_class(view, queryset)


# DRF's search and ordering ---------------------------------------------------------------


def _ordering_schema(backend: drf_filters.OrderingFilter, view: Any) -> Schema:
    queryset = getattr(view, "queryset", None)
    if queryset is None:
        queryset = view.get_queryset()
    valid = [
        name for name, _ in backend.get_valid_fields(queryset, view, {"request": view.request})
    ]
    schema: Schema = {"type": "string", "description": str(backend.ordering_description)}
    if valid:
        term = "-?(?:" + "|".join(re.escape(name) for name in valid) + ")"
        schema["pattern"] = f"^{term}(?:,{term})*$"
        schema["description"] += f" One or more of {', '.join(valid)}, comma-separated; "
        schema["description"] += "a leading - sorts in descending order."
    return schema


def openapi_parameters(parameters: Any, params: QueryParameters) -> None:
    """Add OpenAPI parameter objects (DRF's schema interface, an adapter's) of the query."""
    for parameter in parameters:
        if parameter.get("in", "query") != "query":
            continue
        schema = fields.openapi_to_json_schema(parameter.get("schema") or {"type": "string"})
        _described(schema, parameter.get("description"))
        params.add(parameter["name"], schema, required=bool(parameter.get("required")))


def backend_parameters(backend_class: type, view: Any, params: QueryParameters) -> None:
    """Add the query parameters one filter backend reads."""
    backend = backend_class()
    taught = adapters.parameters(backend, view)
    if taught is not None:
        openapi_parameters(taught, params)
    elif DjangoFilterBackend is not None and isinstance(backend, DjangoFilterBackend):
        filterset_class = _filterset_class(backend, view)
        if filterset_class is not None:
            filterset_parameters(filterset_class, params)
    elif isinstance(backend, drf_filters.SearchFilter):
        if backend.get_search_fields(view, view.request):
            params.add(
                backend.search_param,
                {"type": "string", "description": str(backend.search_description)},
            )
    elif isinstance(backend, drf_filters.OrderingFilter):
        params.add(backend.ordering_param, _ordering_schema(backend, view))
    elif hasattr(backend, "get_schema_operation_parameters"):
        openapi_parameters(backend.get_schema_operation_parameters(view), params)


# Pagination ------------------------------------------------------------------------------


def _page_size(limit: int | None, description: Any) -> Schema:
    cap = mcp_settings.MAX_PAGE_SIZE
    maximum = min(limit, cap) if limit and cap else (limit or cap)
    schema: Schema = {"type": "integer", "minimum": 1, "description": str(description)}
    if maximum:
        schema["maximum"] = maximum
    return schema


def paginator_parameters(view: Any, params: QueryParameters) -> None:
    """Add the query parameters of DRF's paginators, the page size capped by MAX_PAGE_SIZE."""
    paginator = getattr(view, "paginator", None)
    taught = adapters.parameters(paginator, view) if paginator is not None else None
    if taught is not None:
        openapi_parameters(taught, params)
    elif isinstance(paginator, pagination.PageNumberPagination):
        if not (paginator.page_size or paginator.page_size_query_param):
            return  # pagination is off
        params.add(
            paginator.page_query_param,
            {"type": "integer", "minimum": 1, "description": str(paginator.page_query_description)},
        )
        if paginator.page_size_query_param:
            params.add(
                paginator.page_size_query_param,
                _page_size(paginator.max_page_size, paginator.page_size_query_description),
            )
    elif isinstance(paginator, pagination.LimitOffsetPagination):
        params.add(
            paginator.limit_query_param,
            _page_size(paginator.max_limit, paginator.limit_query_description),
        )
        params.add(
            paginator.offset_query_param,
            {
                "type": "integer",
                "minimum": 0,
                "description": str(paginator.offset_query_description),
            },
        )
    elif isinstance(paginator, pagination.CursorPagination):
        params.add(
            paginator.cursor_query_param,
            {"type": "string", "description": str(paginator.cursor_query_description)},
        )
        if paginator.page_size_query_param:
            params.add(
                paginator.page_size_query_param,
                _page_size(paginator.max_page_size, paginator.page_size_query_description),
            )
    elif paginator is not None and hasattr(paginator, "get_schema_operation_parameters"):
        openapi_parameters(paginator.get_schema_operation_parameters(view), params)


def query_parameters(view: Any, *, listing: bool = True) -> QueryParameters:
    """Return the query parameters of a view (an instance set up for introspection): a
    list view's filter backends and paginator, then what an adapter teaches of the view."""
    params = QueryParameters()
    if listing:
        for backend_class in getattr(view, "filter_backends", ()) or ():
            backend_parameters(backend_class, view, params)
        paginator_parameters(view, params)
    taught = adapters.parameters(view, view)
    if taught is not None:
        openapi_parameters(taught, params)
    return params
