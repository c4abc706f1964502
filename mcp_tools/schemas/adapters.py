"""What the package can't read of a class, taught by class: the schema adapters' registry.

The query parameters of a filter backend, a paginator or a view are read from what they
declare: django-filter's FilterSets, DRF's own backends and paginators, drf-spectacular's
``extend_schema``, and DRF's schema interface (``get_schema_operation_parameters()``). A
class that declares its parameters in none of these (Wagtail's API reads its own from
``request.GET``) is taught here, usually from an ``AppConfig.ready()``::

    from mcp_tools.schemas import adapters

    @adapters.register(NearFilter)
    def near_filter(backend, view):
        return [{"name": "near", "in": "query", "schema": {"type": "string"},
                 "description": "A place; the nearest rows come first."}]

An adapter returns OpenAPI parameter objects, the shape of DRF's
``get_schema_operation_parameters()``; only those ``"in": "query"`` become arguments. It is
called with the backend, paginator or view instance and the view (set up for the tool's
action: ``view.action``, ``view.request``), and found along the class's MRO, so an adapter of
a base class serves its subclasses. An adapter of a view class adds its parameters to every
tool of the view, and may name the actions that list a collection (``lists=``), whose
filter backends and paginator then apply as a ViewSet's ``list`` action's do, and may say
what they answer (``output=``: a function of the view returning the JSON Schema of its
body, or None), where the package can't read the view's serializer or its paginator's page.
What a registered adapter says wins over what the package would read itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

Parameter = dict[str, Any]
#: ``(backend, paginator or view instance, view) -> OpenAPI parameter objects``.
Parameters = Callable[[Any, Any], Iterable[Parameter]]
F = TypeVar("F", bound=Parameters)


#: ``(view) -> the JSON Schema of what the view's action answers, or None``.
Output = Callable[[Any], dict[str, Any] | None]


@dataclass(frozen=True)
class Adapter:
    """What one class is taught: its query parameters, and (a view's) actions that list and
    what they answer."""

    parameters: Parameters | None = None
    lists: frozenset[str] = frozenset()
    output: Output | None = None


_adapters: dict[type, Adapter] = {}
#: Bumped by each change, so that tools built before it are built again (``ToolRegistry``).
version = 0


def register(
    target: type, *, lists: Iterable[str] = (), output: Output | None = None
) -> Callable[[F], F]:
    """Register the decorated function as the query parameters of ``target`` (a filter
    backend, paginator or view class) and its subclasses; ``lists`` names a view's actions
    that list a collection, ``output`` says what a view's actions answer. Registering a
    class again replaces its adapter."""

    def decorator(parameters: F) -> F:
        _adapters[target] = Adapter(parameters, frozenset(lists), output)
        _changed()
        return parameters

    return decorator


def unregister(target: type) -> None:
    """Forget what ``target`` was taught (a test's clean-up)."""
    if _adapters.pop(target, None) is not None:
        _changed()


def adapter_for(obj: object) -> Adapter | None:
    """Return the adapter of ``obj``'s class (or of ``obj``, a class), nearest in its MRO."""
    cls = obj if isinstance(obj, type) else type(obj)
    for klass in cls.__mro__:
        found = _adapters.get(klass)
        if found is not None:
            return found
    return None


def lists(view_class: type, action: str) -> bool:
    """Return whether an adapter says ``action`` of ``view_class`` lists a collection."""
    found = adapter_for(view_class)
    return found is not None and action in found.lists


def output(view: Any) -> dict[str, Any] | None:
    """Return the schema of what ``view``'s action answers, as its adapter says, or None."""
    found = adapter_for(view)
    if found is None or found.output is None:
        return None
    return found.output(view)


def parameters(obj: object, view: Any) -> list[Parameter] | None:
    """Return the parameters ``obj``'s adapter gives (``queries`` keeps those of the query),
    or None when it has none."""
    found = adapter_for(obj)
    if found is None or found.parameters is None:
        return None
    return list(found.parameters(obj, view))


def _changed() -> None:
    global version
    version += 1
