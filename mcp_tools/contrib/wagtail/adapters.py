"""Wagtail API v2's query parameters, as Wagtail's documentation describes them.

Wagtail's filter backends and paginator read ``request.GET`` themselves and declare nothing
DRF's schema interface can read, so each is taught to the schema adapters' registry
(``mcp_tools.schemas.adapters``): paging (``limit``, ``offset``), ``order``, ``search``,
the tree filters (``child_of``, ``descendant_of``, ``ancestor_of``, ``translation_of``),
``locale``, the page ``type`` and the fields of the listed model as filters, and ``fields``
and ``rich_text_format`` on every view. A page type's own fields filter only with
``type`` naming it, which their descriptions say; the site's page types give at most
``MAX_TYPE_FIELDS`` of them, so a site with many types keeps a definition a model can
afford (the rest still filter when passed by name).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from wagtail.api.v2 import filters, pagination, views
from wagtail.models import Page, get_page_models

from mcp_tools.schemas import adapters

#: At most this many fields of the site's page types become filters of the pages listing.
MAX_TYPE_FIELDS = 30
#: At most this many page types are named in ``type``'s description.
MAX_NAMED_TYPES = 12

Parameter = dict[str, Any]


def query(name: str, schema: dict[str, Any], description: str) -> Parameter:
    return {"name": name, "in": "query", "schema": schema, "description": description}


def _field_schema(field: Any) -> dict[str, Any]:
    """A filter value as Wagtail's ``FieldsFilter`` converts it."""
    if isinstance(field, models.BooleanField):
        return {"type": "boolean"}
    if isinstance(field, models.IntegerField | models.AutoField):
        return {"type": "integer"}
    if isinstance(field, models.ForeignKey):
        return _field_schema(field.target_field)
    if isinstance(field, models.DateTimeField):
        return {"type": "string", "format": "date-time"}
    if isinstance(field, models.DateField):
        return {"type": "string", "format": "date"}
    return {"type": "string"}


def _db_fields(view: Any, model: Any) -> list[Any]:
    """The model's fields the view lets a caller filter and order by (``locale`` has a
    filter of its own)."""
    names = view.get_available_fields(model, db_fields_only=True)
    found = []
    for name in names:
        if name == "locale":
            continue
        try:
            found.append(model._meta.get_field(name))
        except Exception:  # an attname such as owner_id: its field is named without _id
            continue
    return found


def _label(model: Any) -> str:
    return f"{model._meta.app_label}.{model.__name__}"


def _page_types(view: Any) -> list[Any]:
    """The site's page types other than the view's model (none for a view of no pages)."""
    if not issubclass(view.model, Page):
        return []

    return [model for model in get_page_models() if model is not view.model]


@adapters.register(filters.FieldsFilter)
def fields_filter(backend: Any, view: Any) -> list[Parameter]:
    model = view.model
    found = []
    taken = set()
    for field in _db_fields(view, model):
        taken.add(field.name)
        schema = _field_schema(field)
        if field.name == "tags":
            schema = {"type": "string"}
            text = "Tag names, comma-separated: only items with every one of them."
        else:
            text = f"Only items whose {field.name} is this value."
        found.append(query(field.name, schema, text))
    by_name: dict[str, list[Any]] = {}
    for page_type in _page_types(view):
        for field in _db_fields(view, page_type):
            if field.name not in taken:
                by_name.setdefault(field.name, []).append((page_type, field))
    for name, owners in list(by_name.items())[:MAX_TYPE_FIELDS]:
        types = ", ".join(_label(owner) for owner, _ in owners)
        text = (
            f"Only items whose {name} is this value; applies only with type set to one "
            f"page type that has it: {types}."
        )
        found.append(query(name, _field_schema(owners[0][1]), text))
    return found


@adapters.register(filters.OrderingFilter)
def ordering_filter(backend: Any, view: Any) -> list[Parameter]:
    names = [field.name for field in _db_fields(view, view.model)]
    text = (
        f"Sort by one or more of {', '.join(names)} (with type, that type's fields too), "
        "comma-separated; a leading - sorts in descending order; random for a random order "
        "(alone, and not with offset)."
    )
    return [query("order", {"type": "string"}, text)]


@adapters.register(filters.SearchFilter)
def search_filter(backend: Any, view: Any) -> list[Parameter]:
    if not getattr(settings, "WAGTAILAPI_SEARCH_ENABLED", True):
        return []
    return [
        query(
            "search",
            {"type": "string"},
            "Words to search for; best matches first unless order is given.",
        ),
        query(
            "search_operator",
            {"type": "string", "enum": ["and", "or"]},
            "With search: and finds items with every word, or with any (the default).",
        ),
    ]


def _page_or_root(name: str, what: str, root: bool = True) -> Parameter:
    page = {"type": "integer", "minimum": 1}
    if not root:
        return query(name, page, f"The id of a page: {what}.")
    schema = {"anyOf": [page, {"type": "string", "enum": ["root"]}]}
    return query(name, schema, f"The id of a page, or root for the site's home page: {what}.")


@adapters.register(filters.ChildOfFilter)
def child_of_filter(backend: Any, view: Any) -> list[Parameter]:
    return [_page_or_root("child_of", "only its direct children")]


@adapters.register(filters.DescendantOfFilter)
def descendant_of_filter(backend: Any, view: Any) -> list[Parameter]:
    return [_page_or_root("descendant_of", "only pages below it, at any depth (not with child_of)")]


@adapters.register(filters.AncestorOfFilter)
def ancestor_of_filter(backend: Any, view: Any) -> list[Parameter]:
    return [_page_or_root("ancestor_of", "only the pages above it", root=False)]


@adapters.register(filters.TranslationOfFilter)
def translation_of_filter(backend: Any, view: Any) -> list[Parameter]:
    return [_page_or_root("translation_of", "only its translations")]


@adapters.register(filters.LocaleFilter)
def locale_filter(backend: Any, view: Any) -> list[Parameter]:
    return [query("locale", {"type": "string"}, "A language code (en, fr): only items in it.")]


@adapters.register(pagination.WagtailPagination)
def wagtail_pagination(paginator: Any, view: Any) -> list[Parameter]:
    limit_max = getattr(settings, "WAGTAILAPI_LIMIT_MAX", 20)
    default = min(20, limit_max) if limit_max else 20
    limit: dict[str, Any] = {"type": "integer", "minimum": 0}
    if limit_max:
        limit["maximum"] = limit_max
    return [
        query("limit", limit, f"How many items to return (default {default})."),
        query(
            "offset",
            {"type": "integer", "minimum": 0},
            "How many items to skip: to go on, call again with offset increased by limit "
            "until it reaches meta.total_count.",
        ),
    ]


def _fields(view: Any) -> Parameter:
    model = view.model
    listing = view.action == "listing_view"
    defaults = view.get_listing_default_fields(model) if listing else ["all"]
    text = (
        "Which fields to return, comma-separated: a name adds a field to the defaults "
        f"({', '.join(defaults)}), -name leaves one out, * gives them all, and _ starts from "
        "none (_,title); name(a,b) picks a related object's fields."
    )
    return query("fields", {"type": "string"}, text)


def _rich_text_format() -> Parameter | None:
    try:
        from wagtail.api.rich_text import APIRichText
    except ImportError:  # Wagtail before 8: rich text is always the database's HTML
        return None
    formats = sorted(APIRichText._serializers())
    schema = {"type": "string", "enum": formats}
    return query("rich_text_format", schema, "How rich text fields are written.")


def _types(view: Any) -> Parameter:
    names = [_label(model) for model in _page_types(view)]
    named = ", ".join(names[:MAX_NAMED_TYPES]) + (", …" if len(names) > MAX_NAMED_TYPES else "")
    text = (
        "A page type as app_label.ModelName, or several comma-separated: only pages of it. "
        f"With one type, its own fields can be filtered, ordered by and returned. Types: {named}."
    )
    return query("type", {"type": "string"}, text)


def _item(view: Any, listing: bool) -> dict[str, Any]:
    """One item as Wagtail writes it: its id, its meta and its fields (those ``fields``
    names; by default, of a listing, the view's listing defaults)."""
    model = view.model
    meta_names = view.get_meta_fields_names(model)
    body_names = view.get_body_fields_names(model)
    shown = view.get_listing_default_fields(model) if listing else body_names + meta_names
    meta: dict[str, Any] = {name: {} for name in meta_names if name in shown}
    properties: dict[str, Any] = {"id": {"type": "integer"}}
    properties["meta"] = {"type": "object", "properties": meta}
    properties.update((name, {}) for name in body_names if name in shown and name != "id")
    return {"type": "object", "properties": properties}


def answers(view: Any) -> dict[str, Any] | None:
    """What the views answer: a listing's page (``meta.total_count``, ``items``), an item;
    the find view answers its item's detail, where the call follows its redirect."""
    if view.action == "listing_view":
        meta = {"type": "object", "properties": {"total_count": {"type": "integer"}}}
        items = {"type": "array", "items": _item(view, listing=True)}
        return {"type": "object", "properties": {"meta": meta, "items": items}}
    if view.action in ("detail_view", "find_view"):
        return _item(view, listing=False)
    return None


@adapters.register(views.BaseAPIViewSet, lists=["listing_view"], output=answers)
def api_viewset(view: Any, _view: Any) -> list[Parameter]:
    found = [_fields(view)]
    rich_text = _rich_text_format()
    if rich_text is not None:
        found.append(rich_text)
    if view.action == "find_view":
        if issubclass(view.model, Page):
            found.append(_types(view))  # the find view looks among its queryset's pages
        if "html_path" in view.find_query_parameters:
            found.append(
                query(
                    "html_path",
                    {"type": "string"},
                    "The page's path on the site (/blog/a-post/); or give id.",
                )
            )
        found.append(query("id", {"type": "integer", "minimum": 1}, "The item's id."))
    elif view.action == "listing_view" and issubclass(view.model, Page):
        found.append(_types(view))
        found.append(
            query(
                "site",
                {"type": "string"},
                "A site's hostname (with :port unless 80): only its pages.",
            )
        )
    return found
