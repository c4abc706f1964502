"""Settings of the demo: a small todo API exposed as MCP tools. Not for production."""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "demo-only-insecure-secret-key")
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    # Django's tasks framework (the backport on Django 5.2) and its database backend: the
    # worker `make demo` starts runs todo_export's tasks (docs/tasks.md).
    "django_tasks",
    "django_tasks_db",
    "mcp_tools",
    "demo_project.todos",
    "demo_project.showcase",
    # The landing page at / and the sign-in page it links to.
    "demo_project.home",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "demo_project.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "demo_project.wsgi.application"
ASGI_APPLICATION = "demo_project.asgi.application"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("DEMO_DATABASE", str(BASE_DIR / "demo.sqlite3")),
        # Two processes write it, runserver and the task worker: each waits for the other's
        # write rather than failing with "database is locked".
        "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
    }
}

# Tasks go to the database; `make demo` runs `manage.py db_worker` beside the server.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # One DRF token, sent either way: "Token <key>" (DRF's own) or "Bearer <key>" (what
        # most MCP clients can send). The first class names the 401's challenge: Token.
        "rest_framework.authentication.TokenAuthentication",
        "mcp_tools.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}

MCP_TOOLS = {
    "SERVER_NAME": "django-mcp-tools-demo",
    "SERVER_TITLE": "Todo demo",
    "INSTRUCTIONS": "Tools to read and manage the signed-in user's todo list.",
    # Every call in the admin's log, so the demo's figures count them all.
    "CALL_LOG": "all",
    # `make demo` runs with DEBUG on (runserver serves the admin's static files), which
    # would unmask errors: mask them as production does, so todo_sync shows what a client
    # sees there ("Internal server error" and an error reference to look up in the log).
    "MASK_ERRORS": True,
    # todo_export_pdf answers a PDF: an embedded resource instead of an unsupported type.
    "BINARY_AS_RESOURCE": True,
    # todo_destroy asks the user to confirm. Where the client can't be asked, "refuse" (the
    # default) answers that it needs a confirmation; "run" deletes under the client's own
    # approval of destructive tools: DEMO_CONFIRM_UNASKABLE=run make demo.
    "CONFIRM_UNASKABLE": os.environ.get("DEMO_CONFIRM_UNASKABLE", "refuse"),
}
