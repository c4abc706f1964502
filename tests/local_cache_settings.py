"""Settings of a site that has just added the app: Django's default cache, DEBUG off.

Two server processes run with these settings on one SQLite file
(tests/interop/test_per_process_cache.py); the cache is each process's own ``LocMemCache``, as
under gunicorn with no ``CACHES`` setting at all.
"""

from tests.settings import *  # noqa: F403

DEBUG = False
ROOT_URLCONF = "tests.admin_urls"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
MCP_TOOLS = {**MCP_TOOLS, "CACHE": "default"}  # noqa: F405
