"""What must reach every worker goes through a cache they all share, or the database."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache

from mcp_tools.models import SharedCacheEntry
from mcp_tools.shared_cache import TABLE, shared_cache

pytestmark = pytest.mark.django_db

LOCMEM = "django.core.cache.backends.locmem.LocMemCache"
DUMMY = "django.core.cache.backends.dummy.DummyCache"
FILE = "django.core.cache.backends.filebased.FileBasedCache"


def use(settings, backend, tmp_path=None):
    options = {"LOCATION": str(tmp_path)} if tmp_path else {}
    settings.CACHES = {**settings.CACHES, "shared": {"BACKEND": backend, **options}}
    settings.MCP_TOOLS = {"CACHE": "shared"}


def test_a_shared_cache_is_used_as_it_is(settings, tmp_path):
    use(settings, FILE, tmp_path)
    assert shared_cache() is caches["shared"]


@pytest.mark.parametrize("backend", [LOCMEM, DUMMY])
def test_a_per_process_cache_is_stood_in_for_by_the_database(settings, backend):
    use(settings, backend)
    cache = shared_cache()
    assert isinstance(cache, DatabaseCache) and cache._table == TABLE
    assert cache.add("spent", 1, timeout=60) is True
    assert cache.add("spent", 1, timeout=60) is False  # one use: the row's primary key
    assert cache.get("spent") == 1
    # The row is this app's own table, made by its migrations (no createcachetable).
    assert SharedCacheEntry.objects.filter(cache_key__endswith=":spent").count() == 1
    assert caches["shared"].get("spent") is None  # nothing went to the per-process cache
    cache.delete("spent")
    assert not SharedCacheEntry.objects.exists()


def test_the_stand_in_follows_the_settings(settings, tmp_path):
    use(settings, LOCMEM)
    database = shared_cache()
    assert shared_cache() is database  # built once per settings
    use(settings, FILE, tmp_path)
    assert shared_cache() is caches["shared"]
