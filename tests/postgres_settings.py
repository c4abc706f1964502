"""Settings of the test project on the private PostgreSQL of tests/services.py: its
DATABASES, which the other PostgreSQL settings (scale-out, persistent connections) take.

The overview's measurement (tests/calllog/test_overview_postgres.py) runs with these in a process
of its own; the fixtures set the variables read here.
"""

import os

from tests.settings import *  # noqa: F403

ROOT_URLCONF = "tests.admin_urls"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "HOST": os.environ["MCP_TESTS_POSTGRES_HOST"],
        "PORT": os.environ["MCP_TESTS_POSTGRES_PORT"],
        "USER": os.environ["MCP_TESTS_POSTGRES_USER"],
        "PASSWORD": os.environ["MCP_TESTS_POSTGRES_PASSWORD"],
        "NAME": os.environ["MCP_TESTS_POSTGRES_NAME"],
    }
}
