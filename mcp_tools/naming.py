"""Tool names, titles and descriptions derived from a routed view (docs/tools.md)."""

from __future__ import annotations

import re
from typing import Any

from rest_framework.views import APIView

from .routes import Route

STANDARD_ACTIONS = {
    "list": "List {plural}",
    "retrieve": "Get {singular}",
    "create": "Create {singular}",
    "update": "Update {singular}",
    "partial_update": "Partially update {singular}",
    "destroy": "Delete {singular}",
}


def snake_case(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()


def _basename(route: Route, view_class: type[APIView]) -> str | None:
    initkwargs = getattr(route.callback, "initkwargs", {})
    return initkwargs.get("basename")


def default_name(
    route: Route, view_class: type[APIView], method: str, action: str | None, several: bool
) -> str:
    """Return ``<basename>_<action>`` for a ViewSet action, else the URL name (or the class's)."""
    if action is not None:
        name = f"{_basename(route, view_class) or snake_case(view_class.__name__)}_{action}"
        actions = getattr(route.callback, "actions", {})
        if sum(1 for a in actions.values() if a == action) > 1 and action not in STANDARD_ACTIONS:
            name += f"_{method.lower()}"
        return name.replace("-", "_")
    base = route.url_name.replace("-", "_") if route.url_name else snake_case(view_class.__name__)
    return f"{base}_{method.lower()}" if several else base


def _model_names(view_class: type[APIView], basename: str) -> tuple[str, str]:
    queryset = getattr(view_class, "queryset", None)
    model = getattr(queryset, "model", None)
    if model is not None:
        return str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
    words = basename.replace("_", " ").replace("-", " ")
    return words, words + "s"


def default_title(
    route: Route, view_class: type[APIView], method: str, action: str | None, several: bool
) -> str:
    """Return a human title: from the model's verbose names, else DRF's view name."""
    if action is not None:
        singular, plural = _model_names(
            view_class, _basename(route, view_class) or view_class.__name__
        )
        if action in STANDARD_ACTIONS:
            return STANDARD_ACTIONS[action].format(singular=singular, plural=plural)
        return f"{singular.capitalize()}: {action.replace('_', ' ')}"
    title = view_class().get_view_name()
    return f"{title} ({method})" if several else title


def docstring(obj: Any) -> str | None:
    """Return an object's docstring on one line, or None (DRF's own mixins describe DRF)."""
    doc = getattr(obj, "__doc__", None)
    module = getattr(obj, "__module__", "") or ""
    if not doc or module.startswith("rest_framework"):
        return None
    return re.sub(r"\s+", " ", doc).strip() or None


def default_description(handler: Any, view_class: type[APIView], title: str) -> str:
    """Return the handler's docstring, else the class docstring, else the title."""
    return docstring(handler) or docstring(view_class) or f"{title}."


def where(route: Route, view_class: type[APIView], method: str, action: str | None) -> str:
    """Describe a tool's view for messages: ``TodoViewSet list (GET) at /api/todos/``."""
    named_action = f" {action}" if action else ""
    return f"{view_class.__qualname__}{named_action} ({method}) at /{route.route}"
