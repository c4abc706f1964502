"""drf-spectacular's annotations, when it is installed: what ``@extend_schema`` declares.

Many DRF projects already describe their API for drf-spectacular: ``@extend_schema(request=,
responses=, summary=, description=, parameters=, tags=, exclude=)`` on a view or an action,
``@extend_schema_view`` per action, ``@extend_schema_field`` on custom fields, and some a
schema class of their own (NetBox's ``NetBoxAutoSchema``, an AutoSchema subclass that swaps
a body's serializer for a writable variant and adds parameters). This module reads them
through spectacular's own machinery: the operation's schema class, composed as its generator
composes it (a handler's annotation over the view's class), set up as ``get_operation`` sets
it up, asked through its public methods (``get_request_serializer``, ``get_override_parameters``,
...); and its table of basic types (``build_basic_type``). What the schema names (a
serializer, a field) is then mapped by this package's own field mapper (``schemas.fields``):
spectacular writes OpenAPI 3.0, whose ``nullable`` and single read/write component a JSON
Schema validator would read differently.

Without drf-spectacular nothing here imports it, and every question answers "nothing
declared": the tools are exactly what they are without it.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, cast
from weakref import WeakKeyDictionary

from rest_framework import serializers
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSetMixin

from ..core.routes import Route

logger = logging.getLogger("mcp_tools")


class _NotDeclared:
    def __repr__(self) -> str:
        return "NOT_DECLARED"

    def __bool__(self) -> bool:
        return False


#: What an annotation did not say (``None`` is a declaration: "no request body").
NOT_DECLARED: Any = _NotDeclared()


@dataclass(frozen=True)
class Operation:
    """What the annotations of one operation (a view's method or a ViewSet's action) say."""

    excluded: bool = False
    #: ``request=``: a serializer (class or instance), a basic type, a dict, None, or
    #: NOT_DECLARED.
    request: Any = NOT_DECLARED
    #: ``responses=``, as given (a serializer, a dict by status code, ...), or NOT_DECLARED.
    responses: Any = NOT_DECLARED
    summary: str | None = None
    description: Any = None
    tags: tuple[str, ...] = ()
    #: ``parameters=``: ``OpenApiParameter``s and serializers, as given.
    parameters: tuple[Any, ...] = ()
    #: Why the annotations could not be read, when they could not.
    error: str | None = None
    #: The method of the schema class that raised (``module.Class.method``), when one did.
    raised_in: str | None = None
    #: The schema's methods that raised (``get_request_serializer``, ...): what they would
    #: declare is left out, the rest is read.
    unread: tuple[str, ...] = ()


NOTHING = Operation()


@cache
def installed() -> bool:
    """Return whether drf-spectacular can be imported (read once per process)."""
    try:
        import drf_spectacular.openapi  # noqa: F401
    except ImportError:
        return False
    return True


def operation(view: Any, route: Route, method: str) -> Operation:
    """Return what drf-spectacular's annotations declare for one tool's operation.

    ``view`` is an introspection view (``introspection.view_for``), kept alive by the caller.
    Each method of the schema is asked on its own: one that raises costs what it answers
    (``Operation.unread``), not the rest.
    """
    if not installed():
        return NOTHING
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.plumbing import ComponentRegistry

    try:
        schema_class = _schema_class(view, method)
        if schema_class is None:
            return NOTHING
        probe = _probe_class(schema_class)()
    except _Unreadable as exc:
        return Operation(error=str(exc))
    except Exception as exc:  # a schema class that can't be composed or made
        logger.debug("drf-spectacular schema of %r not made", view, exc_info=True)
        return Operation(error=f"{type(exc).__name__}: {exc}")
    # As SchemaGenerator.parse() and AutoSchema.get_operation() set it up.
    probe.view = view
    probe.registry = ComponentRegistry()
    probe.method = method.upper()
    probe.path = "/" + re.sub(r"<(\w+)>", r"{\1}", route.template)
    probe.path_regex = "^" + route.regex
    probe.path_prefix = ""
    answers: dict[str, Any] = {}
    faults: list[tuple[str, Exception]] = []
    with GENERATOR_STATS.silence():  # its warnings are for a schema being generated
        for name in _ASKED:
            try:
                answers[name] = _declared(probe, name)
            except Exception as exc:
                logger.debug("%s() of %r's schema raised", name, view, exc_info=True)
                faults.append((name, exc))
    declared = Operation(
        excluded=bool(answers.get("is_excluded")),
        request=answers.get("get_request_serializer", NOT_DECLARED),
        responses=answers.get("get_response_serializers", NOT_DECLARED),
        summary=_text(answers.get("get_summary")),
        description=answers.get("get_description") or None,
        tags=tuple(str(tag) for tag in answers.get("get_tags") or ()),
        parameters=tuple(answers.get("get_override_parameters") or ()),
    )
    if not faults:
        return declared
    first = faults[0][1]
    raised_in = _raised_in(first, probe) or f"{_dotted(schema_class)}.{faults[0][0]}"
    return dataclasses.replace(
        declared,
        error=f"{raised_in} raised {type(first).__name__}: {first}",
        raised_in=raised_in,
        unread=tuple(name for name, _ in faults),
    )


#: The schema's methods asked, in the order ``AutoSchema.get_operation()`` asks them.
_ASKED = (
    "is_excluded",
    "get_description",
    "get_summary",
    "get_override_parameters",
    "get_tags",
    "get_request_serializer",
    "get_response_serializers",
)


def _dotted(klass: type) -> str:
    return f"{klass.__module__}.{klass.__qualname__}"


class _Unreadable(Exception):
    """Annotations drf-spectacular itself could not read in this configuration."""


def _text(value: object) -> str | None:
    return str(value) if value else None


def _declared(probe: Any, name: str) -> Any:
    """What the schema's ``name()`` answers, or NOT_DECLARED where it passed on spectacular's
    own default unchanged (``SpectacularDefaults``): this package works that out itself."""
    value = getattr(probe, name)()
    defaults = getattr(probe, _DEFAULTS, {})
    if name in defaults and value is defaults[name]:
        return NOT_DECLARED
    return value


def _raised_in(exc: BaseException, probe: Any) -> str | None:
    """The innermost method of the schema class that raised ``exc`` (``module.Class.method``)."""
    found = None
    traceback = exc.__traceback__
    while traceback is not None:
        frame = traceback.tb_frame
        if frame.f_locals.get("self") is probe:
            module = frame.f_globals.get("__name__", "")
            if module != __name__:
                found = f"{module}.{frame.f_code.co_qualname}"
        traceback = traceback.tb_next
    return found


def _handler(view: Any, method: str) -> Any:
    if isinstance(view, ViewSetMixin) and getattr(view, "action", None):
        return getattr(view, view.action, None)
    return getattr(view, method.lower(), None)


def _view_schema_class(view_class: type[APIView]) -> type | None:
    """The class of the view's ``schema`` (DRF's default: ``DEFAULT_SCHEMA_CLASS``)."""
    from rest_framework.schemas.inspectors import DefaultSchema

    for klass in view_class.__mro__:
        if "schema" in vars(klass):
            schema = vars(klass)["schema"]
            break
    else:
        return None
    if schema is None:
        return None
    if isinstance(schema, DefaultSchema):
        return _default_schema_class()
    return schema if isinstance(schema, type) else type(schema)


def _default_schema_class() -> type:
    from rest_framework.settings import api_settings

    return cast(type, api_settings.DEFAULT_SCHEMA_CLASS)  # imported from its dotted path


def _schema_class(view: Any, method: str) -> type | None:
    """Compose the schema class of an operation as drf-spectacular's generator does."""
    from drf_spectacular.openapi import AutoSchema

    view_class = _view_schema_class(type(view))
    declared = getattr(_handler(view, method), "kwargs", {}).get("schema")
    if declared is None:
        schema_class = view_class
    else:
        schema_class = declared if isinstance(declared, type) else type(declared)
        if view_class is not None and not issubclass(schema_class, view_class):
            # A handler's annotation built on DEFAULT_SCHEMA_CLASS, over a view that set its
            # own schema class: the handler's layers go on top of the view's classes.
            default = _default_schema_class().__mro__
            layers = tuple(klass for klass in schema_class.__mro__ if klass not in default)
            schema_class = _rearranged(layers + view_class.__mro__)
    if schema_class is None or issubclass(schema_class, AutoSchema):
        return schema_class
    if any(klass.__module__.startswith("drf_spectacular") for klass in schema_class.__mro__):
        base = next(k for k in schema_class.__mro__ if k.__module__.startswith("rest_framework"))
        raise _Unreadable(
            f"its schema class builds on {base.__module__}.{base.__qualname__}, not on "
            "drf-spectacular's AutoSchema"
        )
    return None  # DRF's own schema class and no annotation: nothing declared


_rearranged_classes: dict[tuple[type, ...], type] = {}


def _rearranged(bases: tuple[type, ...]) -> type:
    klass = _rearranged_classes.get(bases)
    if klass is None:
        klass = _rearranged_classes[bases] = type("RearrangedSchema", bases, {})
    return klass


_probes: WeakKeyDictionary[type, type] = WeakKeyDictionary()


def _probe_class(schema_class: type) -> type:
    """Return ``schema_class`` on a base that tells its declarations from spectacular's defaults.

    Each ``@extend_schema`` layer answers what it was given and asks ``super()`` for the
    rest. Where those are the only layers, the base answers "not declared" where
    spectacular's own AutoSchema would work out a default (the view's serializer, its
    docstring, its path): this package works it out itself. A schema class of the project's
    own (an AutoSchema subclass, as NetBox's) post-processes what ``super()`` answers, so
    below it the base answers as AutoSchema does, with the view's real serializer, and
    remembers each answer: what comes up through the layers unchanged is still "not
    declared", and what the class made of it is what the tool takes.
    """
    probe = _probes.get(schema_class)
    if probe is None:
        from drf_spectacular.openapi import AutoSchema

        layers = tuple(klass for klass in schema_class.__mro__ if klass not in AutoSchema.__mro__)
        own = any(not _is_spectacular(klass) and vars(klass).keys() - _EMPTY for klass in layers)
        base = _defaults_base() if own else _probe_base()
        probe = _probes[schema_class] = type("DeclaredSchema", (*layers, base), {})
    return probe


#: What a class defines though it defines no method.
_EMPTY = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__"})


def _is_spectacular(klass: type) -> bool:
    """Whether ``klass`` is drf-spectacular's (an ``@extend_schema`` layer) or this module's."""
    return klass.__module__.startswith("drf_spectacular") or klass.__module__ == __name__


#: The attribute of a probe where ``SpectacularDefaults`` keeps the defaults it answered.
_DEFAULTS = "_mcp_tools_defaults"


@cache
def _probe_base() -> type:
    from drf_spectacular.openapi import AutoSchema

    class NothingDeclared(AutoSchema):
        def is_excluded(self) -> bool:
            return False

        def get_request_serializer(self) -> Any:
            return NOT_DECLARED

        def get_response_serializers(self) -> Any:
            return NOT_DECLARED

        def get_summary(self) -> str | None:
            return None

        def get_description(self) -> str:  # type: ignore[override]
            return ""

        def get_tags(self) -> list[str]:
            return []

        def get_override_parameters(self) -> list[Any]:
            return []

    return NothingDeclared


def _remember(probe: Any, name: str, value: Any) -> Any:
    vars(probe).setdefault(_DEFAULTS, {})[name] = value
    return value


@cache
def _defaults_base() -> type:
    from drf_spectacular.openapi import AutoSchema

    class SpectacularDefaults(AutoSchema):
        def get_request_serializer(self) -> Any:
            return _remember(self, "get_request_serializer", super().get_request_serializer())

        def get_response_serializers(self) -> Any:
            return _remember(self, "get_response_serializers", super().get_response_serializers())

        def get_description(self) -> str:  # type: ignore[override]
            return cast(str, _remember(self, "get_description", super().get_description()))

        def get_tags(self) -> list[str]:
            return cast(list[str], _remember(self, "get_tags", super().get_tags()))

    return SpectacularDefaults


# What a declaration names --------------------------------------------------------------


def field_override(field: Any) -> Any:
    """Return what ``@extend_schema_field`` declares for a field, or NOT_DECLARED.

    For a ``SerializerMethodField`` the annotation sits on its method, as spectacular reads it.
    """
    if not installed():
        return NOT_DECLARED
    from drf_spectacular.drainage import get_override, has_override

    target = field
    if isinstance(field, serializers.SerializerMethodField):
        target = getattr(field.parent, field.method_name or "", None)
    if target is not None and has_override(target, "field"):
        return get_override(target, "field")
    return NOT_DECLARED


def basic_type_schema(value: object) -> Any:
    """Return the OpenAPI schema of a basic type (``OpenApiTypes.INT``, ``int``, ``date``):
    a dict, None for ``OpenApiTypes.NONE``, or NOT_DECLARED when ``value`` is not one."""
    if not installed():
        return NOT_DECLARED
    from drf_spectacular.plumbing import build_basic_type, is_basic_type

    if not is_basic_type(value):
        return NOT_DECLARED
    return build_basic_type(value)


def unwrap(value: object) -> Any:
    """Return what an ``OpenApiRequest`` or ``OpenApiResponse`` wraps; anything else as is."""
    if not installed():
        return value
    from drf_spectacular.utils import OpenApiRequest, OpenApiResponse

    if isinstance(value, OpenApiRequest):
        return value.request
    if isinstance(value, OpenApiResponse):
        return value.response
    return value


def polymorphic_serializers(value: object) -> list[Any] | None:
    """Return the serializers a ``PolymorphicProxySerializer`` stands for, or None."""
    if not installed():
        return None
    from drf_spectacular.utils import PolymorphicProxySerializer

    if not isinstance(value, PolymorphicProxySerializer):
        return None
    found = value.serializers
    return list(found.values()) if isinstance(found, dict) else list(found)


def is_parameter(value: object) -> bool:
    """Return whether ``value`` is an ``OpenApiParameter``."""
    if not installed():
        return False
    from drf_spectacular.utils import OpenApiParameter

    return isinstance(value, OpenApiParameter)
