"""Settings of the conformance server: the fixture tools, no authentication required.

The suite connects without credentials; everything else (hosts, origins, bounds) is the
product's default behaviour.
"""

import os
import tempfile

import django

SECRET_KEY = "conformance-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",  # the image of test_prompt_with_image
    "rest_framework",
    # Tasks run for real: django-tasks-db's queue, drained by the db_worker the tests start
    # beside the server (tests/conformance_app/server.py). Django 6 has django.tasks; 5.2
    # needs the backport's app.
    *(["django_tasks"] if django.VERSION < (6,) else []),
    "django_tasks_db",
    "mcp_tools",
    "tests.conformance_app",
]
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "tests.conformance_app.server_urls"
# A file per server (tests/conformance_app/server.py copies a migrated one): the admin
# state lives in the database.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("MCP_TESTS_DATABASE", ":memory:"),
        # The server and its task worker write the same file: write transactions take the
        # lock as they begin and wait for it, rather than fail on upgrading a read lock.
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
    }
}
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The admin state's version stamp needs a cache the server's workers share.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ.get(
            "MCP_TESTS_CACHE", os.path.join(tempfile.gettempdir(), "mcp-tools-conformance-cache")
        ),
    }
}
USE_TZ = True
STATIC_URL = "static/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
}

MCP_TOOLS = {
    "SERVER_NAME": "mcp-tools-conformance",
    "INSTRUCTIONS": "Conformance fixtures.",
    # The suite connects without credentials: anonymous callers, on purpose (no W040).
    "PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    # The product's formatter, but for the fault protocol_error_job stands for.
    "FORMATTER_CLASS": "tests.conformance_app.formatters.ConformanceFormatter",
}
# tests/endpoint/test_streaming.py shortens the time limit of the servers it starts.
if os.environ.get("MCP_TOOLS_CALL_TIMEOUT"):
    MCP_TOOLS["CALL_TIMEOUT"] = float(os.environ["MCP_TOOLS_CALL_TIMEOUT"])
# bench/held_asks.py: each client its own anonymous caller, by X-Forwarded-For.
if os.environ.get("MCP_TESTS_NUM_PROXIES"):
    REST_FRAMEWORK["NUM_PROXIES"] = int(os.environ["MCP_TESTS_NUM_PROXIES"])
# tests/interop/test_held_streams.py and bench/held_asks.py size the held streams' budget.
for key in ("MAX_STREAMS", "MAX_STREAMS_PER_CALLER", "INPUT_TIMEOUT"):
    if os.environ.get(f"MCP_TOOLS_{key}"):
        MCP_TOOLS[key] = int(os.environ[f"MCP_TOOLS_{key}"])
# tests/calllog/test_servers.py logs every call, and lets the writer's batches gather longer.
if os.environ.get("MCP_TOOLS_CALL_LOG"):
    MCP_TOOLS["CALL_LOG"] = os.environ["MCP_TOOLS_CALL_LOG"]
if os.environ.get("MCP_TOOLS_CALL_LOG_FLUSH_INTERVAL"):
    MCP_TOOLS["CALL_LOG_FLUSH_INTERVAL"] = float(os.environ["MCP_TOOLS_CALL_LOG_FLUSH_INTERVAL"])

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"null": {"class": "logging.NullHandler"}},
    "loggers": {
        "django.request": {"handlers": ["null"], "propagate": False},
        "django.security": {"handlers": ["null"], "propagate": False},
    },
}
