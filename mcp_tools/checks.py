"""System checks: misconfiguration reported at start-up, each with an id and a hint.

Every message lives here, as Django admin keeps its own in ``contrib/admin/checks.py``: the
registry and the tool builder report problems as data (``ToolProblem``), and this module
words them. Documented one by one in docs/checks.md.
"""

from __future__ import annotations

from typing import Any

from django.core import checks

from .tools import ToolProblem

INPUT_SCHEMA_HINT = "declare the arguments with @mcp_tool(input_schema=...)"
SCHEMA_CLASS_SETTING = (
    "REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] = 'drf_spectacular.openapi.AutoSchema'"
)

#: id → (message, hint), formatted with the problem's params.
MESSAGES: dict[str, tuple[str, str]] = {
    "mcp_tools.E001": (
        "Tool name {name!r} is used by several views ({routes}); pass name= to @mcp_tool to "
        "tell them apart",
        "Give each tool a unique name of 1-64 characters of [A-Za-z0-9_.-] with "
        "@mcp_tool(name=...), or choose one route with path=.",
    ),
    "mcp_tools.E002": (
        "The tool name {name!r} derived for {where} is not 1-64 characters of [A-Za-z0-9_.-].",
        "Pass name= to @mcp_tool, or rename the URL pattern or the router basename.",
    ),
    "mcp_tools.E003": (
        "{view} {method} is mounted at several URLs ({routes}); pass path= to @mcp_tool to "
        "choose one",
        'Pass path= to @mcp_tool with the route to expose, e.g. path="/api/items/".',
    ),
    "mcp_tools.E004": (
        "Tool {name!r} ({where}): {clash}, so the arguments can't be told apart.",
        "Rename the URL parameter, the filter or the serializer field, or declare the "
        "arguments yourself with @mcp_tool(input_schema=...).",
    ),
    "mcp_tools.E005": (
        "The input_schema of tool {name!r} is not a valid JSON Schema: {problem}.",
        "Pass an object schema (type: object) that is valid JSON Schema 2020-12 and draft-07 "
        "to @mcp_tool(input_schema=...).",
    ),
    "mcp_tools.W001": (
        "{view} is decorated with @mcp_tool but no URL pattern routes to it, so it is not a tool.",
        "Include the view (or its router) in the URLconf, or remove the decorator. On a "
        "function, put @api_view and @mcp_tool right on each other (in either order): a "
        "decorator between them must keep the function reachable with functools.wraps.",
    ),
    "mcp_tools.W002": (
        "Tool {name!r} ({where}): the request serializer could not be read with a synthetic "
        "anonymous request ({error}), so the input schema lists no body fields.",
        "Make get_serializer_class() work for an anonymous request (check "
        "request.user.is_authenticated before using the user), or " + INPUT_SCHEMA_HINT + ".",
    ),
    "mcp_tools.W003": (
        "Tool {name!r} ({where}): the query parameters of the filter backends and the "
        "paginator could not be read ({error}), so the input schema lists none.",
        "Set queryset on the view (filter sets need its model), or " + INPUT_SCHEMA_HINT + ".",
    ),
    "mcp_tools.W004": (
        "Tool {name!r} ({where}): the field(s) {fields} take uploaded files, which JSON "
        "arguments can't carry; they are left out of the input schema.",
        "Expose a variant of the view whose serializer takes a URL or base64 text instead, "
        "or leave this method out with methods=/actions=.",
    ),
    "mcp_tools.W005": (
        "{view} is decorated with @mcp_tool and routed at /{route}, but it is a plain Django "
        "view, not a Django REST framework view, so it is not a tool.",
        "Put @api_view([...]) with its HTTP methods on {view} (above or below @mcp_tool), or "
        "write it as an APIView.",
    ),
    "mcp_tools.I001": (
        "Tool {name!r} ({where}) takes a request body, but its input schema lists no body "
        "fields, so a model learns what to send only from the view's errors.",
        "Declare the fields where mcp_tools reads them: {places}, or @mcp_tool("
        "input_schema=...). If it takes no body, say so with @mcp_tool(input_schema="
        '{{"type": "object"}}).',
    ),
    "mcp_tools.W006": (
        "Tool {name!r}: drf-spectacular's annotations of its view could not be read ({error}), "
        "so the tool is built without them.",
        "Set " + SCHEMA_CLASS_SETTING + ", as drf-spectacular's installation asks, and make "
        "the annotations readable for a synthetic anonymous request.",
    ),
    "mcp_tools.E020": (
        "output_schema of tool {name} must be a JSON Schema dict or a Serializer class, not {type}",
        "Pass a JSON Schema dict or a Serializer class as output_schema.",
    ),
    "mcp_tools.E021": (
        "The output schema of tool {name} is not a valid JSON Schema: {error}.",
        "Fix output_schema= (or the serializer it comes from); until then every successful "
        "call of the tool fails its output check.",
    ),
    "mcp_tools.W030": (
        "Tool {name!r}: its permission classes raised {error} on has_permission, so the "
        "tool is listed to every caller and its view decides when it runs.",
        "Make has_permission() answer without the object or a queryset the view builds "
        "late (has_object_permission is the place for object checks).",
    ),
    "mcp_tools.E030": (
        "MCP_TOOLS['CACHE'] is {alias!r}, a {backend}: a cache each process keeps for "
        "itself, so a change made in admin reaches only the process that made it.",
        "Point MCP_TOOLS['CACHE'] at a cache every worker shares (Redis, Memcached, the "
        "database cache), or run with DEBUG on for a single-process development server.",
    ),
    "mcp_tools.E031": (
        "MCP_TOOLS['CACHE'] names the cache alias {alias!r}, which CACHES does not define.",
        "Add it to CACHES, or set MCP_TOOLS['CACHE'] to one of {aliases}.",
    ),
    "mcp_tools.W031": (
        "MCP_TOOLS['CACHE'] is {alias!r}, a {backend}: the admin state's version is read "
        "from the database on every request.",
        "Point MCP_TOOLS['CACHE'] at a cache every worker shares (Redis, Memcached, the "
        "database cache).",
    ),
    "mcp_tools.W020": (
        "Tool {name}: include_output_schema forces include_structured_content on, although "
        "it is set to False.",
        "Set include_structured_content=True with include_output_schema=True, or turn "
        "include_output_schema off.",
    ),
    "mcp_tools.W021": (
        "Tool {name}: include_output_schema is on, but no output schema is known, so none is "
        "advertised.",
        "Pass output_schema= to @mcp_tool, or give the view a serializer.",
    ),
    "mcp_tools.E040": (
        "The MCP endpoint /{route} authenticates with {cls}, which needs {app!r} in "
        "INSTALLED_APPS: without it every request that carries its credentials fails.",
        "Add {app!r} to INSTALLED_APPS (and migrate), or take {cls} out of the endpoint's "
        "authentication classes.",
    ),
    "mcp_tools.W040": (
        "The MCP endpoint /{route} admits anonymous callers: its permission classes are DRF's "
        "DEFAULT_PERMISSION_CLASSES ({permissions}), which no setting of mcp_tools chose, so "
        "anyone who reaches it lists and calls every tool anonymous callers may use.",
        "Require authentication: set REST_FRAMEWORK['DEFAULT_PERMISSION_CLASSES'] or "
        "MCP_TOOLS['PERMISSION_CLASSES'] to e.g. ['rest_framework.permissions.IsAuthenticated']. "
        "To serve anonymous callers on purpose, name AllowAny in "
        "MCP_TOOLS['PERMISSION_CLASSES'].",
    ),
    "mcp_tools.W041": (
        "The MCP endpoint /{route} admits anonymous callers, but {count} of its tools ({names}) "
        "refuse them: an anonymous client gets a shorter tools/list and no 401, so it is never "
        "asked to authenticate.",
        "Give the endpoint permission classes that refuse anonymous callers (IsAuthenticated), "
        "or mount a second endpoint for the anonymous tools with MCPView.as_view(tags=...).",
    ),
    "mcp_tools.W042": (
        "OAuth metadata is configured (MCP_TOOLS['OAUTH_AUTHORIZATION_SERVERS']), but the "
        "URLconf serves no /.well-known/oauth-protected-resource: the 401 challenge points "
        "clients at a document that answers 404.",
        "Add path('', include('mcp_tools.urls.well_known')) to the root URLconf, with no prefix.",
    ),
    "mcp_tools.W050": (
        "MCP_TOOLS[{key!r}] is not a setting of mcp_tools, so it is ignored.",
        "{hint}",
    ),
    "mcp_tools.E051": (
        "MCP_TOOLS[{key!r}] is {value!r}; it must be one of {choices}.",
        "Set it to one of {choices}, or leave it out for the default, {default!r}.",
    ),
    "mcp_tools.E052": (
        "MCP_TOOLS[{key!r}] is {value!r}; it must be {bound}.",
        "Set it to {bound}, or leave it out for the default, {default!r}.",
    ),
    "mcp_tools.E053": (
        "MCP_TOOLS['FORMATTER_CLASS'] is {value!r}, which is not a formatter: {problem}.",
        "Name a subclass of mcp_tools.formatters.BaseFormatter (ResponseFormatter, or your own).",
    ),
    "mcp_tools.I060": (
        "Tool calls run through {count} middleware of MIDDLEWARE: {running}. Left out: {skipped}.",
        "The view's request already carries what the left-out classes do "
        "(DISPATCH_SKIP_MIDDLEWARE, docs/dispatch.md); silence this check once you have read it.",
    ),
    "mcp_tools.I061": (
        "Tool calls call their views directly (MCP_TOOLS['DISPATCH'] = 'direct'): {count} "
        "middleware of MIDDLEWARE would run for a direct request and do not for them "
        "({names}), so policy there does not apply.",
        "The attributes the middleware set on the /mcp request are carried over to the view's "
        "request. Use DISPATCH = 'middleware' (the default) where middleware decides who may "
        "call a view (docs/dispatch.md).",
    ),
}

#: Settings that were removed, and what took their place (mcp_tools.W050).
REMOVED_SETTINGS = {
    "FORWARDED_HEADERS": "Removed: the view's request carries every header of the /mcp "
    "request, as a direct request from the same client would, less the transport's own "
    "(docs/dispatch.md).",
}

#: Settings that take one of a few values, and those values.
CHOICES = {
    "DISPATCH": ("middleware", "direct"),
    "CALL_LOG": ("off", "errors", "all"),
    "JSON_NAN": ("error", "null", "string"),
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
    "MAX_STREAMS",
    "INPUT_STATE_MAX_AGE",
    "MAX_INPUT_BYTES",
    "CALL_LOG_WINDOW_DAYS",
    "TRUNCATE_TEXT_LENGTH",
)
NON_NEGATIVE = ("CACHE_TTL_MS",)
OPTIONAL_POSITIVE = ("PAGE_SIZE",)  # None: one page

#: Authentication classes (by a class of their MRO) and the app their credentials live in.
REQUIRED_APPS = {
    "rest_framework.authentication.TokenAuthentication": "rest_framework.authtoken",
    "oauth2_provider.contrib.rest_framework.authentication.OAuth2Authentication": (
        "oauth2_provider"
    ),
}


#: Where a view's body fields can be declared, by the kind of view (mcp_tools.I001).
BODY_PLACES = {
    "class": "serializer_class = ... (or get_serializer_class()) on {view}, "
    "@extend_schema(request=...) with drf-spectacular",
    "function": "@extend_schema(request=...) with drf-spectacular, above @api_view on {view}",
}


def describe(problem: ToolProblem) -> tuple[str, str]:
    """Return the message and the hint of ``problem``."""
    message, hint = MESSAGES[problem.id]
    params = dict(problem.params)
    if "kind" in params:
        params["places"] = BODY_PLACES[params["kind"]].format(**params)
    return message.format(**params), hint.format(**params)


def check_message(problem: ToolProblem) -> checks.CheckMessage:
    """Return ``problem`` as a Django system check message."""
    message, hint = describe(problem)
    level = checks.Error if problem.error else checks.Info if problem.info else checks.Warning
    return level(message, hint=hint, obj=problem.obj, id=problem.id)


def _describe_obj(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


@checks.register("mcp_tools")
def check_tools(
    app_configs: Any = None, registry: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Resolve every declared tool against the URLconf and report what can't become a tool."""
    from .registry import registry as default_registry

    registry = registry or default_registry
    messages = [check_message(problem) for problem in registry.inspect().problems]
    messages.extend(
        check_message(ToolProblem("mcp_tools.W001", obj, {"view": _describe_obj(obj)}))
        for obj in registry.unrouted()
    )
    return messages


PER_PROCESS_CACHES = ("django.core.cache.backends.locmem.LocMemCache",)


@checks.register("mcp_tools")
def check_admin_cache(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The admin state's version stamp needs a cache every worker shares."""
    from django.core.cache import caches
    from django.core.cache.backends.dummy import DummyCache
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
    params = {"alias": alias, "backend": type(backend).__name__}
    if isinstance(backend, LocMemCache) and not mcp_settings.debug:
        return [check_message(ToolProblem("mcp_tools.E030", alias, params))]
    if isinstance(backend, DummyCache):
        return [check_message(ToolProblem("mcp_tools.W031", alias, params))]
    return []


@checks.register("mcp_tools")
def check_permissions(
    app_configs: Any = None, registry: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Report tools whose permission classes can't say, before the view runs, who may call."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import ImproperlyConfigured
    from rest_framework.exceptions import APIException

    from .registry import registry as default_registry
    from .schemas.introspection import synthetic_request, view_for

    try:
        tools = list((registry or default_registry).tools())
    except ImproperlyConfigured:
        return []  # reported by check_tools
    # An anonymous caller, and a signed-in one (an unsaved user: no database row needed).
    callers: list[Any] = [AnonymousUser(), get_user_model()(is_active=True)]
    messages = []
    for tool in tools:
        try:
            for user in callers:
                request = synthetic_request(tool.method, "/" + tool.route.route)
                request.user = user
                view = view_for(tool.view_class, tool.route, tool.method, tool.action, request)
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


def _admits_anonymous(endpoint: Any, route: str) -> bool:
    request = _anonymous_request("/" + route)
    try:
        return all(p.has_permission(request, endpoint) for p in endpoint.get_permissions())
    except Exception:
        return False  # a refusal raised rather than returned, or a class that can't answer


def _refuses_anonymous(tool: Any) -> bool:
    from .schemas.introspection import view_for

    request = _anonymous_request("/" + tool.route.route)
    try:
        view = view_for(tool.view_class, tool.route, tool.method, tool.action, request)
        return not all(p.has_permission(request, view) for p in view.get_permissions())
    except Exception:
        return True  # NotAuthenticated raised, or unanswerable (reported as W030)


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@checks.register("mcp_tools")
def check_endpoint_authentication(
    app_configs: Any = None, registry: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Report endpoints whose policy lets anonymous callers in without anyone choosing it,
    and authentication classes whose app is not installed (docs/checks.md)."""
    from .routes import mcp_endpoints

    messages = []
    for route, endpoint in mcp_endpoints():
        messages += _missing_apps(route, endpoint)
        messages += _anonymous_admission(route, endpoint, registry)
    return messages


def _missing_apps(route: str, endpoint: Any) -> list[checks.CheckMessage]:
    from django.apps import apps

    messages = []
    for authenticator in endpoint.get_authenticators():
        apps_needed = (REQUIRED_APPS.get(_qualname(base)) for base in type(authenticator).__mro__)
        app = next((app for app in apps_needed if app), None)
        if app and not apps.is_installed(app):
            params = {"route": route, "cls": type(authenticator).__name__, "app": app}
            messages.append(check_message(ToolProblem("mcp_tools.E040", route, params)))
    return messages


def _anonymous_admission(route: str, endpoint: Any, registry: Any) -> list[checks.CheckMessage]:
    from django.core.exceptions import ImproperlyConfigured

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


@checks.register("mcp_tools")
def check_well_known(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """With OAuth metadata configured, the RFC 9728 documents must be served at the root."""
    from django.urls import NoReverseMatch, reverse

    from .resource_metadata import WELL_KNOWN, is_configured

    if not is_configured():
        return []
    try:
        found = reverse("mcp_tools_well_known:resource-metadata") == WELL_KNOWN
    except NoReverseMatch:
        found = False
    return [] if found else [check_message(ToolProblem("mcp_tools.W042", None, {}))]


@checks.register("mcp_tools")
def check_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Report ``MCP_TOOLS`` keys that are no setting, and values no setting takes."""
    import difflib

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
    for key, choices in CHOICES.items():
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
    return messages


def _formatter_problems(value: Any) -> list[checks.CheckMessage]:
    from django.utils.module_loading import import_string

    from .formatters import BaseFormatter

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


@checks.register("mcp_tools")
def check_dispatch(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Say which of the project's middleware runs for tool calls, and which doesn't
    (docs/dispatch.md); nothing when only the classes ``DISPATCH_SKIP_MIDDLEWARE`` leaves
    out are installed."""
    from .conf import mcp_settings
    from .dispatch import DIRECT, MODES, chain

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
