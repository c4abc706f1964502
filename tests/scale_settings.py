"""Settings of the scale-out project: the test project on a shared PostgreSQL and Redis.

Two server processes run with these settings side by side (tests/interop/test_scale_out.py); what
they share is only what a real deployment shares, the database and the cache. The
fixtures of tests/services.py set the variables read here.
"""

import os

from tests.postgres_settings import DATABASES as POSTGRES
from tests.settings import *  # noqa: F403

ROOT_URLCONF = "tests.scale_urls"

DATABASES = POSTGRES

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ["MCP_TESTS_REDIS_URL"],
    }
}
# The admin state's version stamp in Redis too, as a deployment would keep it.
MCP_TOOLS = {**MCP_TOOLS, "CACHE": "default"}  # noqa: F405
