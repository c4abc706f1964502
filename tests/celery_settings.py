"""Settings of the test project with its tasks run by Celery (tests/contrib/test_celery.py).

A gunicorn and a Celery worker run with these side by side, on one SQLite file (the
``MCP_TESTS_DATABASE`` of tests/settings.py) and the private Redis of tests/services.py.
"""

import os

from tests.settings import *  # noqa: F403

# tests/settings.py installs mcp_tools.contrib.celery: the worker's autodiscover_tasks()
# registers its task from there.
ROOT_URLCONF = "tests.tasks_app.urls"
MCP_TOOLS = {  # noqa: F405
    **MCP_TOOLS,  # noqa: F405
    "TASK_EXECUTOR": "mcp_tools.contrib.celery.executor.CeleryExecutor",
}

CELERY_BROKER_URL = os.environ.get("MCP_TESTS_REDIS_URL", "memory://")
# Celery 5's default, said so: without it the worker warns at start.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
