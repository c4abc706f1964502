"""System checks: misconfiguration reported at start-up, each with an id and a hint.

The registry and the tool builder report problems as data (``ToolProblem``); the checks
find the rest, and every problem is worded in ``mcp_tools.tools.problems``. Documented one by one
in docs/checks.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from django.apps import AppConfig
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from .tools.definitions import UNREADY_DATABASE
from .tools.problems import describe
from .tools.tool import Tool, ToolProblem

if TYPE_CHECKING:
    from .tools.registry import ToolRegistry
    from .views import MCPView

#: What Django passes a check: the apps to check, None for all.
Configs = Sequence[AppConfig] | None
Check = Callable[..., list[checks.CheckMessage]]

#: The checks, and the deployment checks (``check --deploy``), that the app's two registered
#: checks run (``MCPToolsConfig.ready``): this module is imported when Django runs checks,
#: never by a worker that only serves.
CHECKS: list[Check] = []
DEPLOY_CHECKS: list[Check] = []


def registered(*, deploy: bool = False) -> Callable[[Check], Check]:
    """Add the decorated function to ``CHECKS``, or to ``DEPLOY_CHECKS``."""

    def add(check: Check) -> Check:
        (DEPLOY_CHECKS if deploy else CHECKS).append(check)
        return check

    return add


def run(checks_to_run: Sequence[Check], app_configs: Configs, **kwargs: Any) -> list[Any]:
    """Return the messages of each of ``checks_to_run``, in order."""
    return [message for check in checks_to_run for message in check(app_configs, **kwargs)]


#: Settings that were removed, and what took their place (mcp_tools.W050).
REMOVED_SETTINGS = {
    "FORWARDED_HEADERS": "Removed: the view's request carries every header of the /mcp "
    "request, as a direct request from the same client would, less the transport's own "
    "(docs/dispatch.md).",
}

#: Settings that take one of a few values, and where those values are named.
CHOICES = {
    "DISPATCH": "mcp_tools.pipeline.chain.MODES",
    "CALL_LOG": "mcp_tools.calllog.writer.MODES",
    "JSON_NAN": "mcp_tools.core.encoding.NAN_MODES",
    "JSON_TEXT": "mcp_tools.core.encoding.JSON_TEXT_MODES",
    "CONFIRM_UNASKABLE": "mcp_tools.inputs.asks.UNASKABLE_MODES",
    "FILTER_LOOKUPS": "mcp_tools.schemas.queries.LOOKUP_MODES",
    "DISCOVERY": "mcp_tools.discovery.tools.MODES",
}

#: Numeric bounds: the settings that must be positive, and those that may also be zero.
POSITIVE = (
    "MAX_PAGE_SIZE",
    "MAX_REQUEST_BYTES",
    "MAX_RESPONSE_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_BATCH_SIZE",
    "MAX_ARGUMENTS",
    "MAX_URL_ARGUMENT_LENGTH",
    "CALL_TIMEOUT",
    "INPUT_STATE_MAX_AGE",
    "INPUT_TIMEOUT",
    "MAX_INPUT_BYTES",
    "CALL_LOG_WINDOW_DAYS",
    "CALL_LOG_FLUSH_INTERVAL",
    "TRUNCATE_TEXT_LENGTH",
    "TASK_MIN_TTL",
    "TASK_PICKUP_SECONDS",
)
#: MAX_STREAMS may be 0: no call streams, and none holds a sync worker (docs/deployment.md);
#: MAX_REDIRECTS 0: no redirect is followed (docs/results.md#redirects); DISCOVERY_THRESHOLD 0:
#: "auto" lists every catalog through search (docs/tools.md#large-apis).
NON_NEGATIVE = (
    "CACHE_TTL_MS",
    "ADMIN_STATE_MAX_AGE",
    "CALL_LOG_QUEUE_SIZE",
    "MAX_STREAMS",
    "MAX_REDIRECTS",
    "DISCOVERY_THRESHOLD",
)
#: None: one page of tools; no per-caller share of the held streams; no bound on the bytes a
#: caller's tasks keep.
OPTIONAL_POSITIVE = ("PAGE_SIZE", "MAX_STREAMS_PER_CALLER", "MAX_TASK_BYTES_PER_CALLER")

#: django-oauth-toolkit's DRF authentication: the class that reads OAuth access tokens.
DOT_AUTHENTICATION = "oauth2_provider.contrib.rest_framework.authentication.OAuth2Authentication"

#: Authentication classes (by a class of their MRO) and the app their credentials live in.
TOKEN_APP = "rest_framework.authtoken"
REQUIRED_APPS = {
    "rest_framework.authentication.TokenAuthentication": TOKEN_APP,
    DOT_AUTHENTICATION: "oauth2_provider",
}


def check_message(problem: ToolProblem) -> checks.CheckMessage:
    """Return ``problem`` as a Django system check message."""
    message, hint = describe(problem)
    level = checks.Error if problem.error else checks.Info if problem.info else checks.Warning
    obj = problem.obj if problem.obj is None or isinstance(problem.obj, str) else Named(problem.obj)
    return level(message, hint=hint, obj=obj, id=problem.id)


class Named:
    """A check message's object, printed as ``module.ViewName`` rather than as its repr
    (``<function View.as_view.<locals>.view at 0x…>``); equal to the object it names."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return self.obj is (other.obj if isinstance(other, Named) else other)

    def __hash__(self) -> int:
        return id(self.obj)

    def __str__(self) -> str:
        return check_label(self.obj)

    __repr__ = __str__


def check_label(obj: Any) -> str:
    """Name a declared view, handler or function as ``module.ViewName``."""
    from rest_framework.views import APIView

    from .tools.naming import view_label

    view_class = getattr(obj, "cls", None) or getattr(obj, "view_class", None)
    target = view_class if isinstance(view_class, type) else obj
    module = getattr(target, "__module__", None)
    name = getattr(target, "__qualname__", None)
    if isinstance(target, type) and issubclass(target, APIView):
        name = view_label(target)  # @api_view's class is named after its function
    if not module or not name:
        return repr(obj)
    return f"{module}.{name}"


def unready_database_problem(problems: list[ToolProblem]) -> ToolProblem:
    """Return one problem for the tools whose views' code found the database unready (the
    first ``migrate`` of a project: 487 of Nautobot's tools), rather than one each."""
    names = [str(problem.params["name"]) for problem in problems]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    params = {"count": len(names), "names": shown, "error": problems[0].params["error"]}
    return ToolProblem(UNREADY_DATABASE, None, params)


def _describe_obj(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


@registered()
def check_tools(
    app_configs: Configs = None, registry: ToolRegistry | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Resolve every declared tool against the URLconf and report what can't become a tool:
    the tools of ``registry``, or of every registry the URLconf serves."""
    messages = []
    for each in _registries(registry):
        problems = [problem for problem in each.inspect().problems if not problem.info]
        messages += [check_message(p) for p in problems if p.id != UNREADY_DATABASE]
        unready = [problem for problem in problems if problem.id == UNREADY_DATABASE]
        if unready:
            messages.append(check_message(unready_database_problem(unready)))
        messages.extend(
            check_message(ToolProblem("mcp_tools.W001", obj, {"view": _describe_obj(obj)}))
            for obj in each.unrouted()
        )
    return messages


@registered()
def check_resources(
    app_configs: Configs = None, registry: Any = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Resolve the resources of ``registry``, or of every resource registry the URLconf
    serves (an endpoint's ``resource_registry=`` too), and report one that can't be built."""
    from .endpoint.mounts import served_resource_registries

    messages = []
    for each in (registry,) if registry is not None else served_resource_registries():
        try:
            each.resources()
        except ImproperlyConfigured as exc:
            problem = ToolProblem("mcp_tools.E110", None, {"error": str(exc)})
            messages.append(check_message(problem))
    return messages


@registered(deploy=True)
def check_tool_notes(
    app_configs: Configs = None, registry: ToolRegistry | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Report what the tools' resolution notes at info level (a body tool whose schema names
    no field): with ``check --deploy`` only, so that every other command starts quietly."""
    return [
        check_message(problem)
        for each in _registries(registry)
        for problem in each.inspect().problems
        if problem.info
    ]


def _registries(registry: ToolRegistry | None) -> Sequence[ToolRegistry]:
    from .endpoint.mounts import served_registries

    return (registry,) if registry is not None else served_registries()


@registered()
def check_shared_names(app_configs: Configs = None, **kwargs: object) -> list[checks.CheckMessage]:
    """Report a tool name two registries give to different views: one admin row rules both."""
    from .endpoint.mounts import mounted_endpoints, served_registries
    from .tools.naming import where

    registries = served_registries()
    if len(registries) == 1:
        return []
    served_at: dict[int, list[str]] = {}
    for route, endpoint in mounted_endpoints():
        served_at.setdefault(id(endpoint.get_registry()), []).append(f"/{route}")

    def label(tool: Tool, registry: ToolRegistry) -> str:
        routes = served_at.get(id(registry))
        served = f"served at {', '.join(routes)}" if routes else "the default registry, unserved"
        return f"{where(tool.operation)} ({served})"

    first: dict[str, tuple[Tool, ToolRegistry]] = {}
    messages = []
    for registry in registries:
        for tool in registry.inspect():
            if tool.name not in first:
                first[tool.name] = (tool, registry)
                continue
            other, other_registry = first[tool.name]
            if _operation(tool) == _operation(other):
                continue  # one view declared in both registries: one tool, served twice
            params = {
                "name": tool.name,
                "first": label(other, other_registry),
                "second": label(tool, registry),
            }
            messages.append(check_message(ToolProblem("mcp_tools.W007", tool.declared_by, params)))
    return messages


def _operation(tool: Tool) -> tuple[Any, ...]:
    """What makes two tools one: the same routed view's method (and action)."""
    return (tool.view_class, tool.method, tool.action, tool.route.route)


@registered()
def check_admin_cache(app_configs: Configs = None, **kwargs: object) -> list[checks.CheckMessage]:
    """The admin state's version stamp, spent confirmations and throttles want a shared cache."""
    from django.core.cache import caches
    from django.core.cache.backends.dummy import DummyCache
    from django.core.cache.backends.filebased import FileBasedCache
    from django.core.cache.backends.locmem import LocMemCache

    from .conf import mcp_settings

    alias = mcp_settings.CACHE
    if alias not in caches.settings:
        aliases = ", ".join(repr(name) for name in caches.settings)
        return [
            check_message(
                ToolProblem("mcp_tools.E031", alias, {"alias": alias, "aliases": aliases})
            )
        ]
    backend = caches[alias]
    params = {
        "alias": alias,
        "backend": type(backend).__name__,
        "max_age": mcp_settings.ADMIN_STATE_MAX_AGE,
    }
    if isinstance(backend, LocMemCache) and not mcp_settings.debug:
        return [check_message(ToolProblem("mcp_tools.W032", alias, params))]
    if isinstance(backend, DummyCache):
        return [check_message(ToolProblem("mcp_tools.W031", alias, params))]
    if isinstance(backend, FileBasedCache) and not mcp_settings.debug:
        return [check_message(ToolProblem("mcp_tools.W033", alias, params))]
    return []


@registered()
def check_permissions(
    app_configs: Configs = None, registry: ToolRegistry | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Report tools whose permission classes can't say, before the view runs, who may call."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import AnonymousUser
    from rest_framework.exceptions import APIException

    from .schemas.introspection import synthetic_request

    tools: dict[tuple[Any, ...], Tool] = {}  # a view two registries declare: checked once
    for each in _registries(registry):
        try:
            tools.update((_operation(tool), tool) for tool in each.tools())
        except ImproperlyConfigured:
            continue  # reported by check_tools
    # An anonymous caller, and a signed-in one (an unsaved user: no database row needed).
    callers: list[Any] = [AnonymousUser(), get_user_model()(is_active=True)]
    messages = []
    for tool in tools.values():
        try:
            for user in callers:
                request = synthetic_request(tool.method, "/" + tool.route.route)
                request.user = user
                view = tool.operation.view_with(request)
                for permission in view.get_permissions():
                    permission.has_permission(request, view)
        except APIException:
            continue  # a refusal, raised rather than returned: an answer all the same
        except Exception as exc:
            params = {"name": tool.name, "error": f"{type(exc).__name__}: {exc}"}
            messages.append(check_message(ToolProblem("mcp_tools.W030", tool.declared_by, params)))
    return messages


def _anonymous_request(path: str) -> Any:
    from rest_framework.request import Request

    from .schemas.introspection import synthetic_request

    request = synthetic_request("POST", path)
    assert isinstance(request, Request)
    return request


def _admits_anonymous(endpoint: MCPView, route: str) -> bool:
    request = _anonymous_request("/" + route)
    try:
        return all(p.has_permission(request, endpoint) for p in endpoint.get_permissions())  # type: ignore[arg-type]
    except Exception:
        return False  # a refusal raised rather than returned, or a class that can't answer


def _refuses_anonymous(tool: Tool) -> bool:

    request = _anonymous_request("/" + tool.route.route)
    try:
        view = tool.operation.view_with(request)
        return not all(p.has_permission(request, view) for p in view.get_permissions())
    except Exception:
        return True  # NotAuthenticated raised, or unanswerable (reported as W030)


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@registered()
def check_endpoint_authentication(
    app_configs: Configs = None, registry: ToolRegistry | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Report endpoints whose policy lets anonymous callers in without anyone choosing it,
    and authentication classes whose app is not installed (docs/checks.md)."""
    from .endpoint.mounts import mounted_endpoints

    messages = []
    for route, endpoint in mounted_endpoints():
        messages += _missing_apps(route, endpoint)
        messages += _model_permissions(route, endpoint)
        messages += _anonymous_admission(route, endpoint, registry)
    return messages


def _chosen_permissions(endpoint: MCPView) -> Sequence[type] | None:
    """The endpoint's own permission classes, or None where DRF's defaults apply."""
    from .conf import mcp_settings

    chosen = endpoint.permission_classes
    return mcp_settings.PERMISSION_CLASSES if chosen is None else chosen


def _model_permissions(route: str, endpoint: MCPView) -> list[checks.CheckMessage]:
    """Refuse a permission class chosen for the endpoint that needs a model (E041): it would
    fail every request."""
    from .auth import policy

    return [
        check_message(ToolProblem("mcp_tools.E041", route, {"route": route, "cls": each.__name__}))
        for each in _chosen_permissions(endpoint) or ()
        if policy.needs_model(each)
    ]


@registered(deploy=True)
def check_endpoint_policy(
    app_configs: Configs = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Say what each endpoint takes in place of a default permission class that needs a
    model (I040): with ``check --deploy`` only, an info to read once."""
    from .endpoint.mounts import mounted_endpoints

    messages = []
    for route, endpoint in mounted_endpoints():
        messages += _stood_aside(route, endpoint)
    return messages


def _stood_aside(route: str, endpoint: MCPView) -> list[checks.CheckMessage]:
    from rest_framework.settings import api_settings

    from .auth import policy

    if _chosen_permissions(endpoint) is not None:
        return []
    return [
        check_message(
            ToolProblem(
                "mcp_tools.I040",
                route,
                {"route": route, "cls": each.__name__, "stand_in": policy.stand_in(each).__name__},
            )
        )
        for each in api_settings.DEFAULT_PERMISSION_CLASSES
        if policy.needs_model(each)
    ]


def _missing_apps(route: str, endpoint: MCPView) -> list[checks.CheckMessage]:
    from django.apps import apps

    messages = []
    for authenticator in endpoint.get_authenticators():
        apps_needed = (REQUIRED_APPS.get(_qualname(base)) for base in type(authenticator).__mro__)
        app = next((app for app in apps_needed if app), None)
        if app == TOKEN_APP and getattr(authenticator, "model", None) is not None:
            # A subclass that names its own token model (Nautobot's, NetBox's) needs that
            # model's app, which is installed, or the model could not have been imported.
            continue
        if app and not apps.is_installed(app):
            params = {"route": route, "cls": type(authenticator).__name__, "app": app}
            messages.append(check_message(ToolProblem("mcp_tools.E040", route, params)))
    return messages


def _anonymous_admission(
    route: str, endpoint: MCPView, registry: ToolRegistry | None
) -> list[checks.CheckMessage]:

    from .conf import mcp_settings

    if not _admits_anonymous(endpoint, route):
        return []
    if endpoint.permission_classes is None and mcp_settings.PERMISSION_CLASSES is None:
        names = ", ".join(type(p).__name__ for p in endpoint.get_permissions()) or "none"
        params = {"route": route, "permissions": names}
        return [check_message(ToolProblem("mcp_tools.W040", route, params))]
    if mcp_settings.debug:
        return []
    try:
        tools = list((registry or endpoint.get_registry()).tools())
    except ImproperlyConfigured:
        return []  # reported by check_tools
    tags = set(endpoint.tags) if endpoint.tags is not None else None
    refusing = [
        tool.name
        for tool in tools
        if (tags is None or tags & set(tool.options.tags)) and _refuses_anonymous(tool)
    ]
    if not refusing:
        return []
    shown = ", ".join(refusing[:5]) + (", ..." if len(refusing) > 5 else "")
    counted = {"route": route, "count": len(refusing), "names": shown}
    return [check_message(ToolProblem("mcp_tools.W041", route, counted))]


@registered()
def check_well_known(app_configs: Configs = None, **kwargs: object) -> list[checks.CheckMessage]:
    """With OAuth metadata configured, the RFC 9728 documents must be served at the root."""
    from django.urls import NoReverseMatch, reverse

    from .auth.resource_metadata import WELL_KNOWN, is_configured, public_origin
    from .endpoint.mounts import mounted_endpoints

    if not is_configured():
        return []
    messages = []
    try:
        found = reverse("mcp_tools_well_known:resource-metadata") == WELL_KNOWN
    except NoReverseMatch:
        found = False
    if not found:
        messages.append(check_message(ToolProblem("mcp_tools.W042", None, {})))
    if public_origin() is None:
        messages.append(check_message(ToolProblem("mcp_tools.E044", None, {})))
    for route, endpoint in mounted_endpoints():
        authenticators = endpoint.get_authenticators()
        if not any(_reads_oauth_tokens(authenticator) for authenticator in authenticators):
            names = ", ".join(type(a).__name__ for a in authenticators) or "none"
            params = {"route": route, "classes": names}
            messages.append(check_message(ToolProblem("mcp_tools.W044", route, params)))
    return messages


def _reads_oauth_tokens(authenticator: object) -> bool:
    """Whether ``authenticator`` is django-oauth-toolkit's token authentication or a subclass
    (``mcp_tools.contrib.oauth``'s), told by name: DOT need not be installed to ask."""
    return any(
        f"{cls.__module__}.{cls.__qualname__}" == DOT_AUTHENTICATION
        for cls in type(authenticator).__mro__
    )


@registered()
def check_settings(app_configs: Configs = None, **kwargs: object) -> list[checks.CheckMessage]:
    """Report ``MCP_TOOLS`` keys that are no setting, and values no setting takes."""
    import difflib

    from django.utils.module_loading import import_string

    from .conf import DEFAULTS, mcp_settings

    given = mcp_settings.user_settings
    messages = []
    for key in given:
        if key in DEFAULTS:
            continue
        hint = REMOVED_SETTINGS.get(key)
        if hint is None:
            close = difflib.get_close_matches(str(key), DEFAULTS, n=1)
            hint = f"Did you mean {close[0]!r}?" if close else "See docs/settings.md."
        messages.append(
            check_message(ToolProblem("mcp_tools.W050", key, {"key": key, "hint": hint}))
        )
    for key, where in CHOICES.items():
        choices = import_string(where)
        value = given.get(key, DEFAULTS[key])
        if value not in choices:
            params = {"key": key, "value": value, "choices": ", ".join(map(repr, choices))}
            params["default"] = DEFAULTS[key]
            messages.append(check_message(ToolProblem("mcp_tools.E051", key, params)))
    for key in (*POSITIVE, *NON_NEGATIVE, *OPTIONAL_POSITIVE):
        value = given.get(key, DEFAULTS[key])
        if value is None and key in OPTIONAL_POSITIVE:
            continue
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or (value < 0 if key in NON_NEGATIVE else value <= 0):
            bound = "a number of 0 or more" if key in NON_NEGATIVE else "a positive number"
            if key in OPTIONAL_POSITIVE:
                bound += " or None"
            params = {"key": key, "value": value, "bound": bound, "default": DEFAULTS[key]}
            messages.append(check_message(ToolProblem("mcp_tools.E052", key, params)))
    messages += _formatter_problems(given.get("FORMATTER_CLASS", DEFAULTS["FORMATTER_CLASS"]))
    messages += _search_backend_problems(given.get("SEARCH_BACKEND"))
    enabled = given.get("NEW_TOOLS_ENABLED", True)
    if not isinstance(enabled, bool):
        messages.append(
            check_message(ToolProblem("mcp_tools.E091", "NEW_TOOLS_ENABLED", {"value": enabled}))
        )
    skip = given.get("DISPATCH_SKIP_MIDDLEWARE", [])
    if not isinstance(skip, list | tuple) or not all(isinstance(path, str) for path in skip):
        params = {"value": skip}
        messages.append(check_message(ToolProblem("mcp_tools.E054", None, params)))
    return messages


@registered()
def check_tasks(
    app_configs: Configs = None, registry: ToolRegistry | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Report what keeps the tools declared with ``task=`` from running as tasks: an
    executor that can't be imported, Django's tasks framework missing under the default
    executor, or its ``ImmediateBackend`` in production (docs/tasks.md#executors)."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    from .conf import DEFAULTS, mcp_settings
    from .tasks.executors import DjangoTasksExecutor, tasks_framework

    value = mcp_settings.user_settings.get("TASK_EXECUTOR", DEFAULTS["TASK_EXECUTOR"])
    try:
        executor = import_string(value) if isinstance(value, str) else value
    except ImportError as exc:
        problem = f"can't be imported ({exc})"
        params = {"value": value, "problem": problem}
        return [check_message(ToolProblem("mcp_tools.E071", "TASK_EXECUTOR", params))]
    if not callable(getattr(executor, "enqueue", None)):
        params = {"value": value, "problem": "has no enqueue(task_id) method"}
        return [check_message(ToolProblem("mcp_tools.E071", "TASK_EXECUTOR", params))]
    names = sorted(
        {
            tool.name
            for each in _registries(registry)
            for tool in each.inspect()
            if tool.options.task is not None
        }
    )
    if not names or not (isinstance(executor, type) and issubclass(executor, DjangoTasksExecutor)):
        return []  # no task tool, or the project's own executor: no framework needed
    shown = ", ".join(names)
    try:
        framework = tasks_framework()
    except ImproperlyConfigured:
        params = {"names": shown, "executor": _describe_obj(executor)}
        return [check_message(ToolProblem("mcp_tools.E070", "TASK_EXECUTOR", params))]
    alias = mcp_settings.TASK_BACKEND
    configured = framework.task_backends.settings  # TASKS, with the framework's default
    if alias not in configured:
        params = {"alias": alias, "names": shown, "aliases": ", ".join(map(repr, configured))}
        return [check_message(ToolProblem("mcp_tools.E072", "TASK_BACKEND", params))]
    if settings.DEBUG:
        return []  # inline is what runserver wants
    try:
        backend = framework.task_backends[alias]
    except Exception:
        return []  # a TASKS the framework can't build: its own checks say so
    if type(backend).__name__ != "ImmediateBackend":
        return []
    return [check_message(ToolProblem("mcp_tools.W070", "TASKS", {"names": shown}))]


def _formatter_problems(value: Any) -> list[checks.CheckMessage]:
    from django.utils.module_loading import import_string

    from .pipeline.formatters import BaseFormatter

    try:
        formatter = import_string(value) if isinstance(value, str) else value
    except ImportError as exc:
        problem = f"it can't be imported ({exc})"
    else:
        if isinstance(formatter, type) and issubclass(formatter, BaseFormatter):
            return []
        problem = "not a subclass of BaseFormatter"
    params = {"value": value, "problem": problem}
    return [check_message(ToolProblem("mcp_tools.E053", "FORMATTER_CLASS", params))]


def _search_backend_problems(value: Any) -> list[checks.CheckMessage]:
    from django.utils.module_loading import import_string

    if value is None:
        return []
    try:
        backend = import_string(value) if isinstance(value, str) else value
    except Exception as exc:  # an ImportError, or whatever its module raised
        problem = f"it can't be imported ({type(exc).__name__}: {exc})"
    else:
        if isinstance(backend, type) and callable(getattr(backend, "search", None)):
            return []
        problem = "not a class with a search() method"
    params = {"value": value, "problem": problem}
    return [check_message(ToolProblem("mcp_tools.E055", "SEARCH_BACKEND", params))]


@registered()
def check_discovery_names(
    app_configs: Configs = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """Refuse a tool named as discovery mode's own tools where an endpoint may turn it on."""
    from .discovery.tools import NAMES, mode_of
    from .endpoint.mounts import mounted_endpoints

    messages = []
    for _, endpoint in mounted_endpoints():
        if mode_of(endpoint) == "never":
            continue
        for name in NAMES:
            tool = endpoint.get_registry().inspect().by_name.get(name)
            if tool is not None and endpoint.serves(tool):
                params = {"name": tool.name, "names": " and ".join(NAMES)}
                message = check_message(ToolProblem("mcp_tools.E100", tool.declared_by, params))
                if message not in messages:  # one registry at two endpoints: said once
                    messages.append(message)
    return messages


@registered(deploy=True)
def check_dispatch(app_configs: Configs = None, **kwargs: object) -> list[checks.CheckMessage]:
    """Say which of the project's middleware runs for tool calls, and which doesn't
    (docs/dispatch.md), with ``check --deploy`` only; nothing when only the classes
    ``DISPATCH_SKIP_MIDDLEWARE`` leaves out are installed."""
    from .conf import mcp_settings
    from .pipeline.chain import DIRECT, MODES, chain

    if mcp_settings.DISPATCH not in MODES:
        return []  # reported by check_settings
    try:
        built = chain()
    except Exception:
        return []  # a middleware that can't be imported: Django's own handler says so
    if not built.running:
        return []  # only Django's classes whose effect the view's request carries: no news
    if mcp_settings.DISPATCH == DIRECT:
        params = {"count": len(built.running), "names": ", ".join(built.running)}
        return [check_message(ToolProblem("mcp_tools.I061", None, params))]
    params = {
        "count": len(built.running),
        "running": ", ".join(built.running) or "none",
        "skipped": ", ".join(built.skipped) or "none",
    }
    return [check_message(ToolProblem("mcp_tools.I060", None, params))]
