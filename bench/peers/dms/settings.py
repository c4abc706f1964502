"""django-mcp-server (0.5.7) serving the bench's trivial view as a tool, in its own venv.

The middleware and REST framework settings are those of bench/project/settings.py, so the
direct request costs the same in both projects.
"""

import os
import tempfile

SECRET_KEY = "bench-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "mcp_server",
    "bench.peers.dms",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

ROOT_URLCONF = "bench.peers.dms.urls"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get(
            "BENCH_DATABASE", os.path.join(tempfile.gettempdir(), "mcp-tools-bench-dms.sqlite3")
        ),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
}

# Stateless, as mcp_tools is: no initialize and no session row per client.
DJANGO_MCP_GLOBAL_SERVER_CONFIG = {"name": "dms-bench", "stateless": True}

# As in the bench project: warnings only. Left unconfigured, FastMCP (mcp 1.x) installs a
# rich console handler on the root logger at INFO and renders a few lines for every call.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
