"""A project as DRF's tutorial builds it (parts 1-6: snippets and users, ViewSets, a router),
set up for MCP as the README's quickstart says: a fresh project, not the test project.

``MCP_TUTORIAL_PROJECT=quickstart`` serves DRF's quickstart instead (users and groups);
``library`` a lending library (authors, books, a FilterSet, an action, an APIView and an
``@api_view``).
"""

import os
import tempfile

PROJECT = os.environ.get("MCP_TUTORIAL_PROJECT", "snippets")

SECRET_KEY = "tutorial-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "rest_framework.authtoken",
    "mcp_tools",
    *(["tests.tutorial.snippets"] if PROJECT == "snippets" else []),
    *(
        ["django_filters", "drf_spectacular", "tests.tutorial.library"]
        if PROJECT == "library"
        else []
    ),
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = f"tests.tutorial.{PROJECT}.urls"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("MCP_TESTS_DATABASE", os.path.join(tempfile.gettempdir(), "t.db")),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ.get("MCP_TESTS_CACHE", os.path.join(tempfile.gettempdir(), "t")),
    }
}
# A file cache: shared by the test's server processes, though its add() is not atomic
# (mcp_tools.W033); no test races two processes for one confirmation.
SILENCED_SYSTEM_CHECKS = ["mcp_tools.W033"]

# What the README's quickstart adds for MCP clients: token authentication.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 10,
}
if PROJECT == "library":  # its @api_view declares its body with drf-spectacular
    REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "drf_spectacular.openapi.AutoSchema"
