"""A Wagtail site as ``wagtail start`` makes one, plus a blog, with its API v2 made MCP
tools by one line (``EXPOSE_PATHS``) and ``mcp_tools.contrib.wagtail``
(docs/tools.md#exposing-an-api-you-didnt-write).

Served by gunicorn in tests/interop/test_wagtail.py; seeded by ``manage.py seed_blog``.
"""

import os
import tempfile

SECRET_KEY = "wagtail-site-only-secret-key"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    "tests.wagtail_site.blog",
    "wagtail.api.v2",
    "wagtail.contrib.forms",
    "wagtail.contrib.redirects",
    "wagtail.embeds",
    "wagtail.sites",
    "wagtail.users",
    "wagtail.snippets",
    "wagtail.documents",
    "wagtail.images",
    "wagtail.search",
    "wagtail.admin",
    "wagtail",
    "modelcluster",
    "taggit",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "mcp_tools",
    "mcp_tools.contrib.wagtail",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "wagtail.contrib.redirects.middleware.RedirectMiddleware",
]
ROOT_URLCONF = "tests.wagtail_site.urls"
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
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get(
            "MCP_TESTS_DATABASE", os.path.join(tempfile.gettempdir(), "wagtail-site.db")
        ),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
STATIC_URL = "/static/"
MEDIA_ROOT = os.environ.get("MCP_TESTS_MEDIA", os.path.join(tempfile.gettempdir(), "wagtail-media"))
MEDIA_URL = "/media/"
WAGTAIL_SITE_NAME = "Blog"
WAGTAILADMIN_BASE_URL = "http://localhost"
WAGTAILSEARCH_BACKENDS = {"default": {"BACKEND": "wagtail.search.backends.database"}}
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.environ.get(
            "MCP_TESTS_CACHE", os.path.join(tempfile.gettempdir(), "wagtail-site-cache")
        ),
    }
}
SILENCED_SYSTEM_CHECKS = ["mcp_tools.W033"]  # a file cache, one server process

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
MCP_TOOLS = {"EXPOSE_PATHS": ["api/v2/"]}
