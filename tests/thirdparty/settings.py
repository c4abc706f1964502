"""A fresh project that serves two packages' APIs it did not write, djoser's and
dj-rest-auth's, as MCP tools: with ``expose()`` (``MCP_THIRDPARTY_MODE=expose``, the
default) or with ``EXPOSE_PATHS`` (``paths``) (docs/tools.md#exposing-a-whole-api).

Signing up and logging in are for anonymous callers: the public endpoint at /mcp/public
serves the tools tagged ``account``; /mcp wants a token.
"""

import os
import tempfile

MODE = os.environ.get("MCP_THIRDPARTY_MODE", "expose")

SECRET_KEY = "thirdparty-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "rest_framework.authtoken",
    "djoser",
    "dj_rest_auth",
    "mcp_tools",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = f"tests.thirdparty.urls_{MODE}"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get(
            "MCP_TESTS_DATABASE", os.path.join(tempfile.gettempdir(), "thirdparty.db")
        ),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ.get(
            "MCP_TESTS_CACHE", os.path.join(tempfile.gettempdir(), "thirdparty-cache")
        ),
    }
}
# A file cache: shared by the test's server processes, though its add() is not atomic
# (mcp_tools.W033); no test races two processes for one confirmation.
SILENCED_SYSTEM_CHECKS = ["mcp_tools.W033"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
MCP_TOOLS = {}
if MODE == "paths":
    MCP_TOOLS = {
        "EXPOSE_PATHS": ["auth/", "rest-auth/"],
        # Password resets send mail: not for an agent.
        "EXCLUDE_PATHS": ["auth/users/reset_", "rest-auth/password/reset"],
    }
if os.environ.get("MCP_THIRDPARTY_NEW_TOOLS_ENABLED") == "0":
    MCP_TOOLS["NEW_TOOLS_ENABLED"] = False
