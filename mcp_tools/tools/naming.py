"""Tool names, titles and descriptions derived from a routed view (docs/tools.md).

Titles and descriptions built from a model's verbose names are lazy translations: they are
marked for Django's translation machinery and put into words in the language active when a
client lists the tools (``tools/list`` pages are cached per language).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

from django.db.models import Model
from django.utils.functional import Promise, lazy
from django.utils.text import capfirst
from django.utils.translation import gettext, override
from rest_framework import mixins
from rest_framework.permissions import AND, NOT, OR, OperandHolder, SingleOperandHolder
from rest_framework.views import APIView

from ..core.routes import Route
from ..schemas.introspection import STANDARD_ACTIONS, ViewMethod, lookup_model_field
from ..schemas.queries import Lookup

#: The standard action a generic view's own (DRF's) handler performs, by mixin and method.
GENERIC_ACTIONS: list[tuple[type, str, str]] = [
    (mixins.ListModelMixin, "GET", "list"),
    (mixins.RetrieveModelMixin, "GET", "retrieve"),
    (mixins.CreateModelMixin, "POST", "create"),
    (mixins.UpdateModelMixin, "PUT", "update"),
    (mixins.UpdateModelMixin, "PATCH", "partial_update"),
    (mixins.DestroyModelMixin, "DELETE", "destroy"),
]


def _titles(action: str, singular: str, plural: str) -> str:
    # Spelled out, one gettext call each, so that makemessages finds every message.
    values = {"singular": singular, "plural": plural}
    if action == "list":
        return gettext("List %(plural)s") % values
    if action == "retrieve":
        return gettext("Get %(singular)s") % values
    if action == "create":
        return gettext("Create %(singular)s") % values
    if action == "update":
        return gettext("Update %(singular)s") % values
    if action == "partial_update":
        return gettext("Partially update %(singular)s") % values
    return gettext("Delete %(singular)s") % values


def _sentence(action: str, singular: str, plural: str, lookup: str, an: bool) -> str:
    # Each sentence comes in an "a" and an "an" form, chosen by the model's English name
    # (``an``): a catalog translates both into whatever its language needs.
    values = {"name": singular, "plural": plural, "lookup": lookup}
    if action == "list":
        return gettext("List %(plural)s.") % values
    if action == "retrieve":
        return gettext("Get one %(name)s by %(lookup)s.") % values
    if action == "create":
        text = gettext("Create an %(name)s.") if an else gettext("Create a %(name)s.")
    elif action == "update":
        text = gettext("Replace an %(name)s.") if an else gettext("Replace a %(name)s.")
    elif action == "partial_update":
        text = (
            gettext("Change some fields of an %(name)s.")
            if an
            else gettext("Change some fields of a %(name)s.")
        )
    else:
        text = gettext("Delete an %(name)s.") if an else gettext("Delete a %(name)s.")
    return text % values


def takes_an(word: str) -> bool:
    """Return whether English writes "an" before ``word`` (an order, a user, an hour)."""
    lowered = word.lower()
    if lowered.startswith(("hour", "honest", "honor", "honour", "heir")):
        return True
    if lowered.startswith(("uni", "use", "usu", "uti", "ura", "ure", "uro", "url", "eu", "one")):
        return False
    return lowered[:1] in ("a", "e", "i", "o", "u")


def _later(build: Callable[[], str]) -> str:
    return build()


#: A string built when it is read, in the language active then (a Django lazy string).
later = cast(Callable[[Callable[[], str]], str], lazy(_later, str))


def snake_case(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()


def _basename(route: Route, view_class: type[APIView]) -> str | None:
    initkwargs = getattr(route.callback, "initkwargs", {})
    return initkwargs.get("basename")


def default_name(operation: ViewMethod, several: bool) -> str:
    """Return ``<basename>_<action>`` for a ViewSet action, else the URL name (or the class's).

    An action routed by hand is named by what it does (``ViewMethod.performs``), not by its
    Python name: Wagtail's ``listing_view`` of pages is ``page_list``; a ViewSet routed
    without a basename is named after its model.
    """
    route, view_class, action = operation.route, operation.view_class, operation.action
    if action is not None:
        base = _basename(route, view_class) or _model_name(operation)
        return _action_name(operation, base or snake_case(view_class.__name__), operation.performs)
    base = route.url_name.replace("-", "_") if route.url_name else snake_case(view_class.__name__)
    return f"{base}_{operation.method.lower()}" if several else base


def former_name(operation: ViewMethod, several: bool) -> str | None:
    """Return the name an earlier version gave the tool, when the rule of ``default_name``
    renamed it (a ViewSet's Python action name, its class's name without a basename): the
    admin's row of that name is carried to the new one (``catalog.sync``)."""
    if operation.action is None:
        return None
    base = _basename(operation.route, operation.view_class)
    name = _action_name(operation, base or snake_case(operation.view_class.__name__), None)
    return None if name == default_name(operation, several) else name


def _action_name(operation: ViewMethod, base: str, performs: str | None) -> str:
    action = str(operation.action)
    name = f"{base}_{performs or action}"
    actions = getattr(operation.route.callback, "actions", {})
    if sum(1 for a in actions.values() if a == action) > 1 and action not in STANDARD_ACTIONS:
        name += f"_{operation.method.lower()}"
    return name.replace("-", "_")


def _model_name(operation: ViewMethod) -> str | None:
    try:
        model = operation.model
    except Exception:  # a view that can't say its model without a real request
        return None
    return model._meta.model_name if model is not None else None


def _model_names(model: type[Model] | None, basename: str) -> tuple[Any, Any]:
    """Return the singular and plural names: the model's verbose names (lazy), else words."""
    if model is not None:
        return model._meta.verbose_name, model._meta.verbose_name_plural
    words = basename.replace("_", " ").replace("-", " ")
    return words, words + "s"


def default_title(operation: ViewMethod, several: bool, model: type[Model] | None = None) -> str:
    """Return a human title: from the model's verbose names, else DRF's view name."""
    route, view_class = operation.route, operation.view_class
    method, action = operation.method, operation.action
    if action is not None:
        singular, plural = _model_names(model, _basename(route, view_class) or view_class.__name__)
        performs = operation.performs
        if performs in STANDARD_ACTIONS:
            return later(lambda: _titles(performs, str(singular), str(plural)))
        if performs is not None:  # an action routed by hand at a word of its own: "Find page"
            return later(lambda: f"{capfirst(performs.replace('_', ' '))} {singular}")
        words = action.replace("_", " ")
        return later(lambda: f"{capfirst(str(singular))}: {words}")
    title = view_class().get_view_name()
    return f"{title} ({method})" if several else title


def docstring(obj: Any) -> str | None:
    """Return an object's docstring on one line, or None (DRF's own mixins describe DRF)."""
    doc = getattr(obj, "__doc__", None)
    module = getattr(obj, "__module__", "") or ""
    if not doc or module.startswith("rest_framework"):
        return None
    if isinstance(doc, Promise):  # a translated docstring (drf-spectacular's views): kept lazy
        return lazy(lambda: re.sub(r"\s+", " ", str(doc)).strip(), str)()
    return re.sub(r"\s+", " ", doc).strip() or None


def standard_action(
    view_class: type[APIView], method: str, action: str | None, performs: str | None = None
) -> str | None:
    """Return the standard action a tool performs: a ViewSet's (``performs``: what an action
    routed by hand does), or a generic view's own."""
    if action is not None:
        done = performs or action
        return done if done in STANDARD_ACTIONS else None
    handler = getattr(view_class, method.lower(), None)
    if docstring(handler) is not None or not getattr(handler, "__module__", "").startswith(
        "rest_framework"
    ):
        return None  # a handler of the project's own: it may do anything
    for mixin, mixin_method, name in GENERIC_ACTIONS:
        if method == mixin_method and issubclass(view_class, mixin):
            return name
    return None


def _lookup_words(view_class: type[APIView], model: type[Model]) -> Callable[[], str]:
    lookup = getattr(view_class, "lookup_field", "pk")
    field = lookup_model_field(model, lookup)

    def words() -> str:
        if field is None:
            return lookup.replace("__", " ").replace("_", " ")
        name = str(field.verbose_name)
        return name.lower() if name.isupper() else name  # "ID" reads "id" in a sentence

    return words


#: The standard actions on one object: a text about the collection does not describe them.
SINGLE_OBJECT_ACTIONS = frozenset({"retrieve", "update", "partial_update", "destroy"})
#: Words of a text about a collection: NetBox's "Get a list of site objects.", "all device
#: objects", "Lists the sites."
COLLECTION_WORDS = re.compile(r"\blist of\b|^lists?\b|\ball (?:\w+ ){0,3}objects\b", re.I)


def about_the_list(operation: ViewMethod, text: str) -> bool:
    """Return whether ``text`` speaks of the collection while the tool acts on one object
    (a class docstring, or drf-spectacular's description, written for the list)."""
    standard = standard_action(
        operation.view_class, operation.method, operation.action, operation.performs
    )
    return standard in SINGLE_OBJECT_ACTIONS and bool(COLLECTION_WORDS.search(text.strip()))


def default_description(operation: ViewMethod, title: str, model: type[Model] | None = None) -> str:
    """Return the handler's docstring; else, for a standard action on a model, a sentence of
    what it does followed by the class docstring (unless a single object's action is told
    of the list); else the class docstring, else the title.
    """
    view_class, method, action = operation.view_class, operation.method, operation.action
    own = docstring(operation.handler)
    if own is not None:
        return own
    class_doc = docstring(view_class)
    standard = standard_action(view_class, method, action, operation.performs)
    if standard is None or model is None:
        return class_doc or later(lambda: f"{title}.")
    singular, plural = model._meta.verbose_name, model._meta.verbose_name_plural
    lookup = _lookup_words(view_class, model)
    with override(None):  # the English name decides between "a" and "an"
        an = takes_an(str(singular))

    def describe() -> str:
        sentence = _sentence(standard, str(singular), str(plural), lookup(), an)
        doc = str(class_doc) if class_doc else ""
        if standard in SINGLE_OBJECT_ACTIONS and COLLECTION_WORDS.search(doc):
            return sentence  # "Get one site by id.", not "… Get a list of site objects."
        return f"{sentence} {doc}" if doc else sentence

    return later(describe)


def is_function_view(view_class: type[APIView]) -> bool:
    """Return whether ``@api_view`` made the class (it renames it after the function)."""
    return not view_class.__qualname__.endswith(view_class.__name__)


def view_label(view_class: type[APIView]) -> str:
    """Name a view for messages: its class, or the function ``@api_view`` wraps."""
    return view_class.__name__ if is_function_view(view_class) else view_class.__qualname__


def where(operation: ViewMethod) -> str:
    """Describe a tool's view for messages: ``TodoViewSet list (GET) at /api/todos/``."""
    named_action = f" {operation.action}" if operation.action else ""
    label = view_label(operation.view_class)
    route = operation.route
    # A router's regex reads badly in a message: its parameters as <name> instead.
    shown = route.template if "(?" in route.route else route.route
    return f"{label}{named_action} ({operation.method}) at /{shown}"


#: How many output fields a description names before it says "…".
MAX_NAMED_FIELDS = 8
#: The permissions that restrict nothing: a description does not name them.
OPEN_PERMISSIONS = frozenset({"AllowAny"})


def permission_name(permission: Any) -> str:
    """Name a permission (a class or an instance) as a person reads it; one composed with
    ``&``, ``|`` or ``~`` by its parts: ``"IsAuthenticated and IsAdminUser"``."""
    shapes = {"AND": "{} and {}", "OR": "{} or {}", "NOT": "not {}"}
    if isinstance(permission, OperandHolder | SingleOperandHolder):  # classes composed
        operator = getattr(permission.operator_class, "__name__", "")
        operands = [getattr(permission, "op1_class", None), getattr(permission, "op2_class", None)]
    elif isinstance(permission, AND | OR | NOT):  # an instance of composed classes
        operator = type(permission).__name__
        operands = [getattr(permission, "op1", None), getattr(permission, "op2", None)]
    else:
        return str(getattr(permission, "__name__", type(permission).__name__))
    names = [permission_name(each) for each in operands if each is not None]
    return shapes.get(operator, " ".join("{}" for _ in names)).format(*names)


def _permissions(view: Any) -> list[Any]:
    """Return the permissions a call of the view's action is checked against: what its
    ``get_permissions()`` gives (djoser's sets them per action), else its classes."""
    try:
        return list(view.get_permissions())
    except Exception:  # it reads what a schema's synthetic request lacks
        return list(getattr(view, "permission_classes", ()) or ())


def needs(operation: ViewMethod) -> str:
    """Say what a call needs: the view's permission classes and throttles, by name.

    ``"Needs IsAuthenticated. Throttled: UserRateThrottle (100/day)."``; empty when the view
    lets anyone call it as often as they like.
    """
    view = operation.view
    permissions = [
        name for name in map(permission_name, _permissions(view)) if name not in OPEN_PERMISSIONS
    ]
    throttles = []
    for throttle_class in getattr(view, "throttle_classes", ()) or ():
        try:
            rate = getattr(throttle_class(), "rate", None)
        except Exception:  # a rate the settings don't define: the class name alone
            rate = None
        name = throttle_class.__name__
        throttles.append(f"{name} ({rate})" if rate else name)
    sentences = []
    if permissions:
        sentences.append(
            gettext("Needs %(permissions)s.") % {"permissions": ", ".join(permissions)}
        )
    if throttles:
        sentences.append(gettext("Throttled: %(throttles)s.") % {"throttles": ", ".join(throttles)})
    return " ".join(sentences)


def _field_names(schema: Any) -> str:
    properties = list((schema or {}).get("properties") or {}) if isinstance(schema, dict) else []
    if len(properties) > MAX_NAMED_FIELDS:
        return ", ".join(properties[:MAX_NAMED_FIELDS]) + ", …"
    return ", ".join(properties)


def page_arguments(paginator: Any) -> str:
    """Say how a list tool asks for another page of its paginator."""
    if paginator is None:
        return ""
    for attribute in ("page_query_param", "cursor_query_param", "offset_query_param"):
        param = getattr(paginator, attribute, None)
        if param:
            return param
    return ""


def returns(
    operation: ViewMethod, schema: dict[str, Any] | None, model: type[Model] | None = None
) -> str:
    """Say what a successful call returns: the fields of the object, or of a page's rows,
    and how to ask for the next page; empty when nothing is known of the result."""
    if operation.method == "DELETE":
        return gettext("Returns a confirmation.")
    if not isinstance(schema, dict):
        return ""
    name = str(model._meta.verbose_name) if model is not None else "object"
    plural = str(model._meta.verbose_name_plural) if model is not None else "objects"
    properties = schema.get("properties") or {}
    results = properties.get("results")
    if schema.get("type") == "object" and isinstance(results, dict) and "next" in properties:
        rows = _field_names(results.get("items"))
        page = ", ".join(key for key in properties if key != "results")
        param = page_arguments(getattr(operation.view, "paginator", None))
        values = {"plural": plural, "page": page, "rows": rows, "param": param}
        if rows:
            text = gettext("Returns a page of %(plural)s (%(page)s, results) with %(rows)s.")
        else:
            text = gettext("Returns a page of %(plural)s (%(page)s, results).")
        if param:
            text += " " + gettext("To go on, call again with the %(param)s the result names.")
        return text % values
    items = properties.get("items")
    if schema.get("type") == "object" and isinstance(items, dict) and "meta" in properties:
        # Wagtail's page: its rows under items, their count under meta (offset paging).
        rows = _field_names(items.get("items"))
        values = {"plural": plural, "rows": rows}
        if rows:
            return gettext("Returns a page of %(plural)s (meta, items) with %(rows)s.") % values
        return gettext("Returns a page of %(plural)s (meta, items).") % values
    if schema.get("type") == "array":
        rows = _field_names(schema.get("items"))
        if rows:
            return gettext("Returns a list of %(plural)s with %(rows)s.") % {
                "plural": plural,
                "rows": rows,
            }
        return gettext("Returns a list of %(plural)s.") % {"plural": plural}
    fields = _field_names(schema)
    if not fields:
        return ""
    return gettext("Returns the %(name)s: %(fields)s.") % {"name": name, "fields": fields}


def _lookup_meaning(lookup: Lookup) -> str:
    """``ic (icontains)``, ``n (not)``, ``nic (not icontains)``; ``gt`` when it says itself."""
    expr = lookup.lookup_expr
    if lookup.exclude:
        meaning = (
            gettext("not") if expr == "exact" else gettext("not %(lookup)s") % {"lookup": expr}
        )
    else:
        meaning = expr
    return lookup.suffix if meaning == lookup.suffix else f"{lookup.suffix} ({meaning})"


def lookup_rule(lookups: tuple[Lookup, ...] | list[Lookup]) -> str:
    """State once the lookup variants a list tool's filters take and its schema leaves out
    (``FILTER_LOOKUPS = "exact"``), the filters that take the same ones together:
    ``"Filters also take lookups, written filter__lookup (e.g. name__ic): name, slug: n
    (not), ic (icontains); id: gt, lt."``; empty without any."""
    if not lookups:
        return ""
    by_base: dict[str, list[str]] = {}
    for lookup in lookups:
        by_base.setdefault(lookup.base, []).append(_lookup_meaning(lookup))
    groups: dict[tuple[str, ...], list[str]] = {}
    for base, meanings in by_base.items():
        groups.setdefault(tuple(meanings), []).append(base)
    listed = "; ".join(
        f"{', '.join(bases)}: {', '.join(meanings)}" for meanings, bases in groups.items()
    )
    example = f"{lookups[0].base}__{lookups[0].suffix}"
    return gettext(
        "Filters also take lookups, written filter__lookup (e.g. %(example)s): %(lookups)s."
    ) % {"example": example, "lookups": listed}


def relation_words(relation: Any, listed_by: str | None) -> str:
    """Say what a related argument's values are, and which tool lists them:
    ``"The id of an author; author_list lists them."``"""
    model = relation.model
    if relation.many:
        text = f"{capfirst(relation.key)}s of {model._meta.verbose_name_plural}"
    else:
        name = str(model._meta.verbose_name)
        text = f"The {relation.key} of {'an' if takes_an(name) else 'a'} {name}"
    return f"{text}; {listed_by} lists them." if listed_by else f"{text}."
