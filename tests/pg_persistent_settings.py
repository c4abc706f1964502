"""The test project on PostgreSQL with persistent connections (CONN_MAX_AGE), as many
projects' settings are: tests/test_call_threads.py runs a pytest-django session with them."""

import os

from tests.settings import *  # noqa: F403

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "HOST": os.environ["MCP_TESTS_POSTGRES_HOST"],
        "PORT": os.environ["MCP_TESTS_POSTGRES_PORT"],
        "USER": os.environ["MCP_TESTS_POSTGRES_USER"],
        "PASSWORD": os.environ["MCP_TESTS_POSTGRES_PASSWORD"],
        "NAME": os.environ["MCP_TESTS_POSTGRES_NAME"],
        "CONN_MAX_AGE": 60,
    }
}
