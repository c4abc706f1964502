"""Settings of the bench project: the views the benchmarks call directly and as tools.

Every variant the harness measures is chosen by environment variables read here, so one
project serves them all (bench/README.md, "Adding a feature variant"):

- ``BENCH_WITHOUT_MCP_TOOLS=1``: the same project without mcp_tools (no app, no /mcp route).
- ``BENCH_TOOLS=N``: route N generated trivial tools (and /mcp) instead of the bench views.
- ``BENCH_MCP_TOOLS``: a JSON object merged over ``MCP_TOOLS``.
- ``BENCH_EXTRA_APPS``, ``BENCH_EXTRA_MIDDLEWARE``: comma-separated dotted paths appended to
  ``INSTALLED_APPS`` and ``MIDDLEWARE`` (for features that ship as an app or a middleware).
- ``BENCH_DATABASE``: the SQLite file (the harness makes one per run and seeds it).
- ``BENCH_PROFILE=production``: the project as a production site runs it (below), its shared
  cache the Redis at ``BENCH_REDIS_URL`` (bench/services.py starts one); ``current`` (the
  default) is the set-up every earlier figure was measured on.
- ``BENCH_PRODUCTION_WITHOUT``: comma-separated parts of the production profile left out, to
  tell apart what each costs: ``redis`` (the cache is ``LocMemCache``), ``middleware``
  (the current profile's five), ``admin`` (no admin, messages or static files apps),
  ``auth`` (the endpoint authenticates nobody: the view authenticates the token itself).
"""

import hashlib
import json
import os
import tempfile

from django.core.exceptions import ImproperlyConfigured


def _list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


BENCH_WITHOUT_MCP_TOOLS = os.environ.get("BENCH_WITHOUT_MCP_TOOLS") == "1"
BENCH_TOOLS = int(os.environ.get("BENCH_TOOLS") or 0)
BENCH_PROFILE = os.environ.get("BENCH_PROFILE") or "current"
if BENCH_PROFILE not in ("current", "production"):
    raise ImproperlyConfigured(f"BENCH_PROFILE is 'current' or 'production', not {BENCH_PROFILE!r}")
PRODUCTION = BENCH_PROFILE == "production"
WITHOUT = set(_list("BENCH_PRODUCTION_WITHOUT"))
if WITHOUT - {"redis", "middleware", "admin", "auth"}:
    raise ImproperlyConfigured(f"BENCH_PRODUCTION_WITHOUT: unknown parts {WITHOUT}")

SECRET_KEY = "bench-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    # The production profile has the whole of `django-admin startproject`'s list: the admin
    # imports every app's admin module as the worker starts.
    *(["django.contrib.admin"] if PRODUCTION and "admin" not in WITHOUT else []),
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    *(
        ["django.contrib.messages", "django.contrib.staticfiles"]
        if PRODUCTION and "admin" not in WITHOUT
        else []
    ),
    "rest_framework",
    "rest_framework.authtoken",
    *([] if BENCH_WITHOUT_MCP_TOOLS else ["mcp_tools"]),
    "bench.project.app",
    *_list("BENCH_EXTRA_APPS"),
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The production profile has the whole of `django-admin startproject`'s list.
    *(
        [
            "django.contrib.messages.middleware.MessageMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
        ]
        if PRODUCTION and not WITHOUT & {"middleware", "admin"}
        else []
    ),
    *_list("BENCH_EXTRA_MIDDLEWARE"),
]

if PRODUCTION and "admin" not in WITHOUT:  # the admin's templates and static files
    TEMPLATES = [
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "APP_DIRS": True,
            "OPTIONS": {
                "context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                    "django.contrib.messages.context_processors.messages",
                ],
            },
        }
    ]
    STATIC_URL = "static/"
ROOT_URLCONF = "bench.project.urls"
WSGI_APPLICATION = "bench.project.wsgi.application"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get(
            "BENCH_DATABASE", os.path.join(tempfile.gettempdir(), "mcp-tools-bench.sqlite3")
        ),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# With BENCH_TOOLS the bench views are declared but not routed: that is on purpose. Each
# server of the current profile runs one worker, so a per-process cache is the one every
# worker shares (E030).
SILENCED_SYSTEM_CHECKS = [
    *([] if PRODUCTION and "redis" not in WITHOUT else ["mcp_tools.E030"]),
    *(["mcp_tools.W001"] if BENCH_TOOLS else []),
]
if PRODUCTION and "redis" not in WITHOUT:
    if not os.environ.get("BENCH_REDIS_URL"):
        raise ImproperlyConfigured("BENCH_PROFILE=production needs BENCH_REDIS_URL (a Redis)")
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["BENCH_REDIS_URL"],
            # One Redis serves every database of a run (one per catalog size, say): the
            # admin state's stamp of one must never be read for another.
            "KEY_PREFIX": hashlib.sha256(DATABASES["default"]["NAME"].encode()).hexdigest()[:12],
        }
    }
USE_TZ = True
TIME_ZONE = "UTC"

if PRODUCTION:
    # Token authentication and authenticated callers by default, at the endpoint as at every
    # view (the trivial view allows anyone, but a request with a token is authenticated).
    REST_FRAMEWORK = {
        "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
        "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    }
    # DISPATCH, CALL_LOG and the rest at their defaults; the endpoint takes DRF's.
    MCP_TOOLS = {"SERVER_NAME": "mcp-tools-bench"}
    if "auth" in WITHOUT:
        MCP_TOOLS["AUTHENTICATION_CLASSES"] = []
        MCP_TOOLS["PERMISSION_CLASSES"] = ["rest_framework.permissions.AllowAny"]
else:
    REST_FRAMEWORK = {
        # Anonymous by default, as the trivial view is called; the item views name token
        # authentication themselves, so the endpoint hands the credentials on to them.
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
        "UNAUTHENTICATED_USER": None,
    }
    MCP_TOOLS = {
        "SERVER_NAME": "mcp-tools-bench",
        # Anonymous callers at the endpoint, chosen (mcp_tools.W040): the views authenticate.
        "PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    }
if BENCH_TOOLS:
    # The listing benchmarks measure tools/list of BENCH_TOOLS tools, not discovery mode's.
    MCP_TOOLS["DISCOVERY"] = "never"
MCP_TOOLS.update(json.loads(os.environ.get("BENCH_MCP_TOOLS") or "{}"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
