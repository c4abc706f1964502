"""What must reach every worker goes through a cache they all share, or the database."""

from __future__ import annotations

import time

import pytest
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache

from mcp_tools.core.shared_cache import TABLE, shared_cache
from mcp_tools.models import SharedCacheEntry

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


@pytest.mark.django_db(transaction=True)
def test_a_request_asked_inside_the_view_s_transaction_is_seen_by_another_process(settings):
    # A view asks inside its atomic block (ATOMIC_REQUESTS): the request it opens must be
    # committed for the worker that takes the answer, on a connection of its own.
    import threading

    from django.db import transaction

    from mcp_tools.inputs import relay as client_requests

    use(settings, LOCMEM)
    answered = []

    def another_process(request_id):
        # Seen from another process: nothing of this one's memory, its own connection.
        pending = client_requests._waiting.pop(request_id)
        try:
            client_requests.deliver({"id": request_id, "result": {"action": "accept"}}, "u:1")
            answered.append("taken")
        except Exception as exc:  # refused as unknown: the request was not committed
            answered.append(str(exc))
        finally:
            client_requests._waiting[request_id] = pending
            from django.db import connection

            connection.close()

    with transaction.atomic():
        request_id = client_requests.open_request("u:1", timeout=5)
        worker = threading.Thread(target=another_process, args=(request_id,))
        worker.start()
        worker.join(10)
        response = client_requests.wait(request_id, time.monotonic() + 5, threading.Event())
        client_requests.close_request(request_id)
    assert answered == ["taken"]
    assert response == {"result": {"action": "accept"}}


class Recorder:
    """A database router that sends everything to ``default`` and notes what it routed."""

    seen: list[str] = []

    def db_for_read(self, model, **hints):
        self.seen.append(model._meta.app_label)
        return "default"

    db_for_write = db_for_read


def test_the_stand_in_is_routed_as_this_app_s_models(settings):
    # A router that keeps mcp_tools in a database of its own finds the table there, where
    # this app's migrations made it (Django routes its own cache as "django_cache").
    use(settings, LOCMEM)
    Recorder.seen = []
    settings.DATABASE_ROUTERS = [f"{__name__}.Recorder"]
    shared_cache().set("routed", 1, timeout=60)
    assert shared_cache().get("routed") == 1
    assert set(Recorder.seen) == {"mcp_tools"}
