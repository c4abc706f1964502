"""Settings of the task-worker project: tests/tasks_app on django-tasks-db's database backend.

gunicorn serves these and ``manage.py db_worker`` runs the tasks they enqueue, in processes
of their own (tests/interop/test_task_clients.py, tests/interop/test_task_scale_out.py,
bench/tasks.py). ``MCP_TESTS_TASKS_DATABASE=postgres`` puts them on the scale-out project's
PostgreSQL and Redis (tests/scale_settings.py); otherwise they use the SQLite file of
tests/settings.py (``MCP_TESTS_DATABASE``) and file caches beside it, which every process
on that file shares, so an endpoint's throttle counts the calls of every gunicorn worker.
The task settings a test turns are read from ``MCP_TESTS_TASK_*`` variables.
"""

import os

if os.environ.get("MCP_TESTS_TASKS_DATABASE") == "postgres":
    from tests.scale_settings import *  # noqa: F403
else:
    from tests.settings import *  # noqa: F403

    # Beside the database file, so that every process on it shares the caches.
    _database = DATABASES["default"]["NAME"]  # noqa: F405
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": f"{_database}.cache-default",
        },
        "mcp": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": f"{_database}.cache-mcp",
        },
    }
    # gunicorn's workers and the db_worker write one file: wait for its lock, don't fail.
    DATABASES = {"default": {**DATABASES["default"], "OPTIONS": {"timeout": 30}}}  # noqa: F405

if os.environ.get("MCP_TESTS_CONN_MAX_AGE"):  # persistent connections (bench/tasks.py)
    DATABASES = {  # noqa: F405
        "default": {
            **DATABASES["default"],
            "CONN_MAX_AGE": int(os.environ["MCP_TESTS_CONN_MAX_AGE"]),
        }  # noqa: F405
    }

# tests.settings installs django-tasks-db (and, before Django 6, the django-tasks backport).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
ROOT_URLCONF = "tests.tasks_app.urls"


def _number(name: str, default: float) -> float:
    value = os.environ.get(f"MCP_TESTS_TASK_{name}")
    return float(value) if value else default


MCP_TOOLS = {
    **MCP_TOOLS,  # noqa: F405
    "TASK_LEASE_SECONDS": _number("LEASE_SECONDS", 30),
    "TASK_POLL_INTERVAL_MS": int(_number("POLL_INTERVAL_MS", 1000)),
    "TASK_IMMEDIATE_SECONDS": _number("IMMEDIATE_SECONDS", 0.5),
    "MAX_TASKS_PER_CALLER": int(_number("MAX_PER_CALLER", 20)),
    "MAX_TASK_BYTES_PER_CALLER": int(_number("MAX_BYTES_PER_CALLER", 10 * 1024 * 1024)),
    "TASK_MIN_TTL": _number("MIN_TTL", 60),
    "TASK_PICKUP_SECONDS": _number("PICKUP_SECONDS", 2),
}
