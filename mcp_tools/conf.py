"""Settings for mcp_tools, read from the one ``MCP_TOOLS`` dict.

Every module reads its settings here, never from ``django.conf.settings``::

    from mcp_tools.conf import mcp_settings
    mcp_settings.PAGE_SIZE

Defaults live in ``DEFAULTS``; dotted paths named in ``IMPORT_STRINGS`` are imported on first
use; the cache is dropped whenever Django's ``setting_changed`` signal names ``MCP_TOOLS``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

__all__ = ["mcp_settings"]

DEFAULTS: dict[str, Any] = {
    # Server identity, sent in the initialize result.
    "SERVER_NAME": "django-mcp-tools",
    "SERVER_VERSION": "0.1.0",
    "SERVER_TITLE": None,
    "INSTRUCTIONS": None,
    # The site's listing in the official MCP registry (manage.py mcp_server_json,
    # docs/registry.md): its reverse-DNS name, one line of description, the public URL of
    # the endpoint, the site's web page and icons ({"src", "mimeType", "sizes"} each).
    "REGISTRY_NAME": None,
    "REGISTRY_DESCRIPTION": None,
    "PUBLIC_URL": None,
    "WEBSITE_URL": None,
    "SERVER_ICONS": [],
    # Endpoint authentication; None means DRF's DEFAULT_AUTHENTICATION_CLASSES and
    # DEFAULT_PERMISSION_CLASSES, exactly as a DRF view would use them.
    "AUTHENTICATION_CLASSES": None,
    "PERMISSION_CLASSES": None,
    # The endpoint's own throttles, once per /mcp request (docs/security.md); each view's
    # throttles count each call it serves, as over plain HTTP.
    "THROTTLE_CLASSES": [],
    # OAuth 2.1 resource server (docs/oauth.md): the issuers of the authorization servers
    # whose tokens the endpoints take (none: no OAuth metadata, no Bearer challenge of its
    # own), the resource identifier (None: each endpoint's own URL) and the scopes a client
    # should ask for (scopes_supported, and the scope of the 401 challenge).
    "OAUTH_AUTHORIZATION_SERVERS": [],
    "OAUTH_RESOURCE": None,
    "OAUTH_SCOPES": [],
    # Tools without a declaration (docs/tools.md#exposing-a-whole-api): every DRF view
    # routed under these URL path prefixes (e.g. "api/") is made tools, less those under
    # EXCLUDE_PATHS, and less the tools whose names EXCLUDE_TOOLS matches (names or shell
    # patterns, for these and expose() of a whole class); and whether a tool the sync (or the
    # endpoint) sees for the first time starts enabled in admin (False: staff turn each on).
    "EXPOSE_PATHS": [],
    "EXCLUDE_PATHS": [],
    # Bulk edits (NetBox's bulk_update, djangorestframework-bulk's partial_bulk_update) take
    # a list of objects, which no tool's arguments can say (docs/tools.md#bulk-views).
    "EXCLUDE_TOOLS": ["*_bulk_*"],
    "NEW_TOOLS_ENABLED": True,
    # Large APIs (docs/tools.md#large-apis): in discovery mode tools/list answers the pinned
    # tools and two of the package's own, search_tools and call_tool. "auto": for a caller
    # who may call more than DISCOVERY_THRESHOLD tools; "always"; "never" (an endpoint's
    # MCPView.as_view(discovery=...) overrides it). SEARCH_BACKEND: the ranker's dotted path
    # (None: the default lexical one, mcp_tools.discovery.ranking.LexicalBackend).
    "DISCOVERY": "auto",
    "DISCOVERY_THRESHOLD": 40,
    "SEARCH_BACKEND": None,
    # Per-tool defaults (the decorator and, later, the admin override these).
    "INCLUDE_STRUCTURED_CONTENT": True,
    "INCLUDE_OUTPUT_SCHEMA": False,
    # Tool annotations merged over those derived from the HTTP method (docs/tools.md).
    "DEFAULT_ANNOTATIONS": {},
    # Largest page size a tool's arguments may ask a paginator for (page_size, limit).
    "MAX_PAGE_SIZE": 100,
    # A FilterSet's lookup variants (name__ic, status__n, id__gt) in a list tool's
    # definition (docs/tools.md#lookup-variants): "exact" lists each base filter and states
    # its lookups once in the description (calls still take them); "all" lists every one.
    "FILTER_LOOKUPS": "exact",
    # Redirects a safe tool's view answers to another tool this caller may call: followed
    # in-process, at most this many hops (0: none is followed) (docs/results.md#redirects).
    "MAX_REDIRECTS": 3,
    # Error masking: None means "mask when DEBUG is off".
    "MASK_ERRORS": None,
    # Bounds on every input and output.
    "MAX_REQUEST_BYTES": 1024 * 1024,
    "MAX_RESPONSE_BYTES": 10 * 1024 * 1024,
    "MAX_JSON_DEPTH": 64,
    "MAX_BATCH_SIZE": 20,
    # Arguments of one call (and query-string fields they make: Django's own default
    # bound), and the longest value a path or query argument puts in the view's URL.
    "MAX_ARGUMENTS": 1000,
    "MAX_URL_ARGUMENT_LENGTH": 4096,
    # Origins allowed besides the endpoint's own host (browser-based clients).
    "ALLOWED_ORIGINS": [],
    # Protocol (docs/protocol.md): tools per tools/list page (None: one page), how long a
    # 2026-07-28 client may cache tools/list and server/discover, and the longest a streamed
    # tool call may run, in seconds.
    "PAGE_SIZE": 100,
    "CACHE_TTL_MS": 60_000,
    "CALL_TIMEOUT": 60,
    # Streams per process (docs/deployment.md#held-streams): the worker threads of streamed
    # calls (past it, calls answer plain JSON; 0: none streams), and the budget of streams
    # held waiting on a client (a handshake-era ask), of which one caller may hold
    # MAX_STREAMS_PER_CALLER (None: no share); past either, an ask is refused at once.
    "MAX_STREAMS": 32,
    "MAX_STREAMS_PER_CALLER": 4,
    # Input requests (docs/input.md): ask the user before a destructive tool runs (per tool:
    # confirm=), what a confirmed tool does where the client can't be asked ("refuse" or
    # "run"), how long a handshake-era ask waits for the client's answer and a signed
    # requestState stays valid, in seconds, and the largest inputResponses a call accepts
    # and requestState it issues, encoded, in bytes.
    "CONFIRM_DESTRUCTIVE": False,
    "CONFIRM_UNASKABLE": "refuse",
    "INPUT_TIMEOUT": 300,
    "INPUT_STATE_MAX_AGE": 900,
    "MAX_INPUT_BYTES": 64 * 1024,
    # Tasks (docs/tasks.md): what runs a task's view (a class with ``enqueue(task_id)``; the
    # default uses Django's tasks framework, its TASKS setting's default backend); how long a
    # call of a task tool may work in a worker and still answer inline, in seconds, and how
    # long it waits at most for a worker to take it (past either, the task's handle is the
    # answer); how long a task is kept from its creation, in seconds (its ``ttlMs``); how
    # often a client should poll it, in milliseconds; how long a worker's hold on a running
    # task lasts unless renewed, in seconds (a task whose worker died fails after it); the
    # tasks one caller may have working at once; and the bytes one caller's tasks may keep
    # (arguments and results, of every task not past its TTL; None: no bound). A client may
    # ask for a shorter TTL than TASK_TTL, never for one below TASK_MIN_TTL, in seconds.
    "TASK_EXECUTOR": "mcp_tools.tasks.executors.DjangoTasksExecutor",
    # The alias in Django's TASKS whose backend the default executor enqueues on.
    "TASK_BACKEND": "default",
    "TASK_IMMEDIATE_SECONDS": 0.5,
    "TASK_PICKUP_SECONDS": 2,
    "TASK_TTL": 24 * 60 * 60,
    "TASK_MIN_TTL": 60,
    "TASK_POLL_INTERVAL_MS": 1000,
    "TASK_LEASE_SECONDS": 30,
    "MAX_TASKS_PER_CALLER": 20,
    "MAX_TASK_BYTES_PER_CALLER": 10 * 1024 * 1024,
    # How a tool's view is called (docs/dispatch.md): "middleware" runs the view's request
    # through the project's MIDDLEWARE, minus the classes whose effect it already carries
    # from the /mcp request; "direct" calls the view alone (then every attribute the
    # middleware set on the /mcp request is carried over).
    "DISPATCH": "middleware",
    "DISPATCH_SKIP_MIDDLEWARE": [
        "django.middleware.security.SecurityMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "django.middleware.locale.LocaleMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
        "django.middleware.gzip.GZipMiddleware",
        "django.middleware.http.ConditionalGetMiddleware",
    ],
    # Admin (docs/admin.md): the cache alias that carries the admin state's version stamp to
    # every worker (a per-process cache makes each process read it from the database), how
    # long a process trusts the stamp it read, in seconds (an admin change reaches every
    # worker within it), the call log ("off", "errors" or "all"), whether it keeps argument
    # values (else their names only), the rows a process queues for its background writer
    # (0: none, each request writes its own after its response), how long that writer lets
    # a batch gather, in seconds (docs/calllog.md), and the window of the admin's call
    # figures, in days.
    "CACHE": "default",
    "ADMIN_STATE_MAX_AGE": 1,
    "CALL_LOG": "errors",
    "CALL_LOG_ARGUMENTS": False,
    "CALL_LOG_QUEUE_SIZE": 10_000,
    "CALL_LOG_FLUSH_INTERVAL": 1.0,
    "CALL_LOG_WINDOW_DAYS": 7,
    # The class that turns a view's HttpResponse into a tool result.
    "FORMATTER_CLASS": "mcp_tools.pipeline.formatters.ResponseFormatter",
    # Result contract (docs/results.md): non-finite floats in JSON ("error", "null" or
    # "string"), an indented JSON body's text ("compact": without its indentation where the
    # structured content carries the value; "body": as sent), unsupported binary bodies as
    # embedded resources, and result processors.
    "JSON_NAN": "error",
    "JSON_TEXT": "compact",
    "BINARY_AS_RESOURCE": False,
    "RESULT_PROCESSORS": [],
    "TRUNCATE_TEXT_LENGTH": 50_000,
    "REDACT_PATTERNS": [],
    "REDACT_REPLACEMENT": "[redacted]",
}

IMPORT_STRINGS = {
    "AUTHENTICATION_CLASSES",
    "PERMISSION_CLASSES",
    "THROTTLE_CLASSES",
    "FORMATTER_CLASS",
    "RESULT_PROCESSORS",
    "TASK_EXECUTOR",
}


def _import(value: Any) -> Any:
    if isinstance(value, str):
        return import_string(value)
    if isinstance(value, list | tuple):
        return [import_string(item) if isinstance(item, str) else item for item in value]
    return value


class MCPSettings:
    """Give attribute access to ``MCP_TOOLS`` merged over ``DEFAULTS``."""

    def __init__(self) -> None:
        self._cached: set[str] = set()
        self.generation = 0

    @property
    def user_settings(self) -> dict[str, Any]:
        return getattr(settings, "MCP_TOOLS", None) or {}

    def __getattr__(self, name: str) -> Any:
        # Called only for a setting not read since the last reload: the value is then set
        # as an attribute, so the hot path reads it as any other (as DRF's api_settings).
        if name.startswith("_") or name not in DEFAULTS:
            raise AttributeError(f"Invalid MCP_TOOLS setting: {name!r}")
        value = self.user_settings.get(name, DEFAULTS[name])
        if name in IMPORT_STRINGS:
            value = _import(value)
        self._cached.add(name)
        setattr(self, name, value)
        return value

    @property
    def allowed_hosts(self) -> list[str]:
        """Django's ``ALLOWED_HOSTS``."""
        return list(settings.ALLOWED_HOSTS)

    @property
    def middleware(self) -> list[str]:
        """Django's ``MIDDLEWARE``."""
        return list(settings.MIDDLEWARE)

    @property
    def root_urlconf(self) -> Any:
        """Django's ``ROOT_URLCONF`` (a dotted path, or a module, as Django takes either):
        the URLconf of a request that names none of its own."""
        return settings.ROOT_URLCONF

    @property
    def debug(self) -> bool:
        """Django's ``DEBUG``, read here so that no other module reads Django's settings."""
        return bool(settings.DEBUG)

    @property
    def mask_errors(self) -> bool:
        """Whether exceptions are masked: ``MASK_ERRORS``, else ``not DEBUG``."""
        if self.MASK_ERRORS is None:
            return not settings.DEBUG
        return bool(self.MASK_ERRORS)

    def reload(self) -> None:
        for name in list(self._cached):
            self.__dict__.pop(name, None)
        self._cached.clear()
        # Caches built from settings (the tools/list pages) key on this, so they follow.
        self.generation += 1


mcp_settings = MCPSettings()


def _reload(*, setting: str, **kwargs: Any) -> None:
    if setting in ("MCP_TOOLS", "DEBUG", "MIDDLEWARE"):
        mcp_settings.reload()


setting_changed.connect(_reload)
