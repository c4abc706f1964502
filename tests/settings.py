"""Settings of the test project: the demo's todo app plus a test app with every tool form."""

import os
import tempfile

import django

SECRET_KEY = "tests-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "oauth2_provider",
    "mcp_tools",
    "mcp_tools.contrib.oauth",
    # django-tasks-db's backend and its db_worker (the [tasks] extra, docs/tasks.md); the
    # suite's own TASKS stay Django's default ImmediateBackend.
    *(["django_tasks"] if django.VERSION < (6,) else []),
    "django_tasks_db",
    # The Celery executor's app (tests/contrib/test_celery.py); it imports Celery only when used.
    "mcp_tools.contrib.celery",
    "demo_project.todos",
    "tests.testapp",
    "tests.results_app",
    "tests.conformance_app",
    "tests.schema_app",
    "tests.oauth_app",
    "tests.dayone_app",
    "tests.middleware_app",
    # Middleware of two popular packages, for tests/pipeline/test_middleware.py.
    "django_otp",
    "django_otp.plugins.otp_static",
    "maintenance_mode",
    # drf-spectacular (the [spectacular] extra): annotated views.
    "tests.spectacular_app",
    # NetBox's shapes (tests/tools/test_foreign_shapes.py).
    "tests.netbox_app",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

# A served test project may mount admin too (tests/admin_urls.py).
ROOT_URLCONF = os.environ.get("MCP_TESTS_URLCONF", "tests.urls")

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# A file, not :memory:: live-server tests make concurrent requests, and Django shares one
# in-memory SQLite connection between the live server's threads, which SQLite refuses.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        # A served test project (tests/conformance_app/server.py) gets a migrated file. Never
        # ":memory:": pytest-django's session-wide live server, when it starts before the test
        # database exists, would share one in-memory connection between its threads.
        "NAME": os.environ.get(
            "MCP_TESTS_DATABASE", os.path.join(tempfile.gettempdir(), "mcp-tools-tests.sqlite3")
        ),
        "TEST": {
            "NAME": os.path.join(tempfile.gettempdir(), f"mcp-tools-tests-{os.getpid()}.sqlite3")
        },
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
STATIC_URL = "static/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        # DRF tokens as "Bearer <key>" too, as the demo takes them (docs/security.md).
        "mcp_tools.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_RATES": {"limited": "2/minute"},
    # As drf-spectacular's installation asks: its annotations build on its AutoSchema.
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# The admin state's version stamp travels through a cache every process shares (a file
# cache here; served test projects get the directory from the environment).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "mcp": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ.get(
            "MCP_TESTS_CACHE", os.path.join(tempfile.gettempdir(), f"mcp-tools-cache-{os.getpid()}")
        ),
    },
}

MCP_TOOLS = {
    "SERVER_NAME": "mcp-tools-tests",
    "SERVER_TITLE": "Test server",
    "CACHE": "mcp",
    # The suite's 193 tools are over DISCOVERY_THRESHOLD: every listing test would get
    # discovery mode's two tools. Its own tests turn it on (tests/discovery/).
    "DISCOVERY": "never",
}
# The suite's shared cache is a file cache, whose add() is not atomic across processes
# (mcp_tools.W033): no test races two processes for one confirmation. Its task calls run on
# Django's default ImmediateBackend (mcp_tools.W070) unless a test names its executor.
SILENCED_SYSTEM_CHECKS = ["mcp_tools.W033", "mcp_tools.W070"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"null": {"class": "logging.NullHandler"}},
    "loggers": {"django.request": {"handlers": ["null"], "propagate": False}},
}

# Fast password hashing: the tests create users, they do not measure hashing.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# django-oauth-toolkit as the authorization server of tests/oauth_app (docs/oauth.md): PKCE,
# dynamic client registration and client ID metadata documents, and every RFC 9700 gate on.
OAUTH2_PROVIDER = {
    "SCOPES": {
        "notes:read": "Read notes",
        "notes:write": "Write notes",
        "profile": "Profile",
        "introspection": "Introspect tokens",
    },
    "DEFAULT_SCOPES": ["notes:read"],
    "PKCE_REQUIRED": True,
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ["oauth2_provider.dcr.AllowAllDCRPermission"],
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "tests.oauth_app.fetchers.LoopbackMetadataFetcher",
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
}
