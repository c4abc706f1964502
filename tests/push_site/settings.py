"""django-push-notifications' device API, routed as its README routes it, made MCP tools by
one line (``EXPOSE_PATHS``, docs/tools.md#exposing-an-api-you-didnt-write).

Its viewsets look a device up by ``registration_id``, which is also a body field, so their
update tools are left out with ``mcp_tools.W009`` (docs/checks.md) and the rest are served.
Served by gunicorn in tests/interop/test_push.py; seeded by ``manage.py seed_users``. No
notification is ever sent: nothing here reaches the network.
"""

import os
import tempfile

SECRET_KEY = "push-site-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    "tests.push_site.accounts",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "rest_framework.authtoken",
    "push_notifications",
    "mcp_tools",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "tests.push_site.urls"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get(
            "MCP_TESTS_DATABASE", os.path.join(tempfile.gettempdir(), "push-site.db")
        ),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ.get(
            "MCP_TESTS_CACHE", os.path.join(tempfile.gettempdir(), "push-site-cache")
        ),
    }
}
SILENCED_SYSTEM_CHECKS = ["mcp_tools.W033"]  # a file cache, one server process

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
PUSH_NOTIFICATIONS_SETTINGS = {"CONFIG": "push_notifications.conf.LegacyConfig"}
MCP_TOOLS = {"EXPOSE_PATHS": ["api/devices/"]}
