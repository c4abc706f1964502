"""Settings of the test project with its tasks run by Celery (tests/contrib/test_celery.py).

A gunicorn and a Celery worker run with these side by side, on one SQLite file (the
``MCP_TESTS_DATABASE`` of tests/settings.py) and the private Redis of tests/services.py,
which ``MCP_TESTS_REDIS_CACHE=1`` makes the cache too, as a deployment's would be. The
hardening test sets the quota and the proxy count from the environment.
"""

import os

from tests.settings import *  # noqa: F403

# tests/settings.py installs mcp_tools.contrib.celery: the worker's autodiscover_tasks()
# registers its task from there.
ROOT_URLCONF = "tests.tasks_app.urls"
MCP_TOOLS = {  # noqa: F405
    **MCP_TOOLS,  # noqa: F405
    "TASK_EXECUTOR": "mcp_tools.contrib.celery.executor.CeleryExecutor",
    "MAX_TASKS_PER_CALLER": int(os.environ.get("MCP_TESTS_TASK_MAX_PER_CALLER", "20")),
    "TASK_PICKUP_SECONDS": float(os.environ.get("MCP_TESTS_TASK_PICKUP_SECONDS", "2")),
}
# Clients behind one proxy: DRF's throttles, and anonymous task quotas, read X-Forwarded-For.
REST_FRAMEWORK = {  # noqa: F405
    **REST_FRAMEWORK,  # noqa: F405
    "NUM_PROXIES": int(os.environ.get("MCP_TESTS_NUM_PROXIES", "0")) or None,
}
if os.environ.get("MCP_TESTS_REDIS_CACHE"):
    CACHES = {
        name: {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["MCP_TESTS_REDIS_URL"],
            "KEY_PREFIX": name,
        }
        for name in ("default", "mcp")
    }

CELERY_BROKER_URL = os.environ.get("MCP_TESTS_REDIS_URL", "memory://")
# Celery 5's default, said so: without it the worker warns at start.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
