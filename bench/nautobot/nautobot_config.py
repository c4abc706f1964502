"""Nautobot's configuration for the bench's Nautobot target (bench/nautobot.py).

Nautobot stands in for NetBox, which this machine's package index doesn't have: the same
DRF API shapes (dcim, ipam), drf-spectacular with its own AutoSchema, django-filter
FilterSets with NetBox's lookups. PostgreSQL and Redis are the private ones bench/nautobot.py
starts on 127.0.0.1; it passes their ports, and the database's password, in the environment.
"""

import os

from nautobot.core.settings import *  # noqa: F403
from nautobot.core.settings import INSTALLED_APPS

_HOST = "127.0.0.1"
_REDIS = f"redis://{_HOST}:{os.environ['NAUTOBOT_BENCH_REDIS_PORT']}"

SECRET_KEY = os.environ.get("NAUTOBOT_BENCH_SECRET_KEY", "bench-only-" + "x" * 40)
ALLOWED_HOSTS = [_HOST, "localhost"]
DEBUG = False

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "nautobot",
        "USER": "nautobot",
        "PASSWORD": os.environ["NAUTOBOT_BENCH_PG_PASSWORD"],
        "HOST": _HOST,
        "PORT": os.environ["NAUTOBOT_BENCH_PG_PORT"],
        "CONN_MAX_AGE": 300,
    }
}
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": f"{_REDIS}/1",
        "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"},
    }
}
CELERY_BROKER_URL = f"{_REDIS}/0"
CELERY_RESULT_BACKEND = "nautobot.core.celery.backends.NautobotDatabaseBackend"

# mcp_tools beside Nautobot's own apps, every DRF view under api/ a tool, and a URLconf
# (bench/nautobot/mcp_bench_urls.py) that adds /mcp to Nautobot's, listing every tool (its
# size and time are what the bench measures), and /mcp-discovery in discovery mode.
INSTALLED_APPS = [*INSTALLED_APPS, "mcp_tools"]
MCP_TOOLS = {"EXPOSE_PATHS": ["api/"], "DISCOVERY": "never"}
ROOT_URLCONF = "mcp_bench_urls"
