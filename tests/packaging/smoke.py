"""Smoke test of an installed distribution (wheel or sdist) in a clean virtual environment.

Run by ``make package`` from outside the checkout, so that the package imported is the one
installed: a one-file Django project with one tool, migrated, checked and called. Where the
``[tasks]`` and ``[celery]`` extras are installed (the wheel's run), their executors are
made and a task's job is run by ``db_worker`` and by Celery; where they are not (the sdist's),
a line says so.
"""

import importlib.util
import sys
from pathlib import Path

import django
from django.conf import settings

TASKS_EXTRA = importlib.util.find_spec("django_tasks_db") is not None
CELERY_EXTRA = importlib.util.find_spec("celery") is not None

settings.configure(
    DEBUG=True,
    SECRET_KEY="packaging-smoke-test",
    ALLOWED_HOSTS=["testserver"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.admin",
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.sessions",
        "django.contrib.messages",
        "rest_framework",
        "mcp_tools",
        # The [tasks] extra: the backport before Django 6, and django-tasks-db.
        *(["django_tasks"] if TASKS_EXTRA and django.VERSION < (6,) else []),
        *(["django_tasks_db"] if TASKS_EXTRA else []),
        *(["mcp_tools.contrib.celery"] if CELERY_EXTRA else []),
    ],
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}} if TASKS_EXTRA else {},
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
    ],
    TEMPLATES=[
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
    ],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
    USE_TZ=True,
    REST_FRAMEWORK={
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
        "UNAUTHENTICATED_USER": None,
    },
)
django.setup()

from django.contrib import admin  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.template.loader import get_template  # noqa: E402
from django.urls import include, path  # noqa: E402
from rest_framework.decorators import api_view  # noqa: E402
from rest_framework.response import Response  # noqa: E402

import mcp_tools  # noqa: E402
from mcp_tools import mcp_tool  # noqa: E402
from mcp_tools.test import MCPClient  # noqa: E402


@mcp_tool("hello")
@api_view(["GET"])
def hello(request):
    """Say hello."""
    return Response({"hello": "world"})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("hello/", hello),
    path("", include("mcp_tools.urls")),
]

installed = Path(mcp_tools.__file__).resolve()
assert "site-packages" in installed.parts, f"imported from the checkout: {installed}"
assert (installed.parent / "py.typed").exists(), "py.typed is not shipped"
get_template("admin/mcp_tools/exposedtool/try_it.html")  # the admin's templates are shipped
call_command("migrate", verbosity=0)  # the migrations are shipped
call_command("check", fail_level="ERROR")
client = MCPClient()
assert [tool["name"] for tool in client.list_tools()] == ["hello"]
result = client.call_tool("hello")
assert result["structuredContent"] == {"hello": "world"}, result
print(f"django-mcp-tools {mcp_tools.__version__} from {installed.parent}: ok", file=sys.stderr)

# A job for a task id no row has: the worker's run finds nothing to do and returns.
NO_TASK = "0" * 32

if TASKS_EXTRA:
    from mcp_tools.jobs import run_tool_task as job
    from mcp_tools.tasks.executors import DjangoTasksExecutor

    assert not DjangoTasksExecutor().immediate  # django-tasks-db's backend: a worker runs it
    enqueued = job.enqueue(NO_TASK)
    call_command("db_worker", batch=True, reload=False, startup_delay=False, verbosity=0)
    enqueued.refresh()
    assert enqueued.status == "SUCCESSFUL", enqueued.status
    print("[tasks]: DjangoTasksExecutor, a job run by db_worker: ok", file=sys.stderr)
else:
    print(
        "[tasks] not installed: mcp_tools.tasks.executors' worker path not tried", file=sys.stderr
    )

if CELERY_EXTRA:
    from mcp_tools.contrib.celery.executor import CeleryExecutor
    from mcp_tools.contrib.celery.tasks import NAME
    from mcp_tools.contrib.celery.tasks import run_tool_task as celery_job

    CeleryExecutor()  # refused unless mcp_tools.contrib.celery is installed
    assert celery_job.name == NAME
    assert celery_job.apply((NO_TASK,)).successful()  # run here, no broker
    print("[celery]: CeleryExecutor, mcp_tools.run_tool_task run: ok", file=sys.stderr)
else:
    print("[celery] not installed: mcp_tools.contrib.celery not tried", file=sys.stderr)
