"""Changes heard through Redis pub/sub where the shared cache is Django's ``RedisCache``
(``core.broadcast``), against a real Redis; a listener hears of a change at once, before any
poll could, and still hears by polling once Redis is gone (docs/subscriptions.md)."""

from __future__ import annotations

import json
import time

import pytest
from django.core.cache import caches

from mcp_tools.catalog.sync import sync_tools
from mcp_tools.core import broadcast
from mcp_tools.models import ExposedTool
from mcp_tools.resources.stamps import resource_updated
from tests.subscriptions import urls
from tests.subscriptions.streams import Stream, client, listen

pytestmark = [pytest.mark.urls("tests.subscriptions.urls"), pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis_cache(redis, settings):
    settings.CACHES = {
        **settings.CACHES,
        "redis": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis.url},
    }
    # Polled once a minute: what is heard sooner came through Redis.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CACHE": "redis", "ADMIN_STATE_MAX_AGE": 60}
    yield caches["redis"]
    caches["redis"].clear()


def test_a_feed_hears_what_another_process_publishes_on_the_caches_channel(redis_cache, redis):
    feed = broadcast.feed()
    assert feed is not None
    try:
        assert feed.wait(0.2) == []
        # Another process: a raw publish on the channel, named as the cache names its keys.
        redis.client().publish(redis_cache.make_key(broadcast.CHANNEL), '{"admin": "e.9"}')
        redis.client().publish(redis_cache.make_key(broadcast.CHANNEL), "not json")
        assert feed.wait(2) == [{"admin": "e.9"}]
    finally:
        feed.close()


def test_without_redis_there_is_no_feed_and_publishing_tells_this_process_alone(settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CACHE": "default"}
    assert broadcast.feed() is None
    heard = []
    broadcast.on_message(heard.append)
    try:
        broadcast.publish({"uri": "a://1", "stamp": "s"})
    finally:
        broadcast._local.remove(heard.append)
    assert heard == [{"uri": "a://1", "stamp": "s"}]


def test_a_listener_hears_a_change_of_another_process_at_once_through_redis(
    redis_cache, redis, alice
):
    sync_tools(urls.tools, urlconf="tests.subscriptions.urls")
    stream = Stream(
        listen(client(alice), {"toolsListChanged": True, "resourceSubscriptions": ["notes://1"]})[0]
    )
    try:
        stream.next()
        # Another process saves the change: the database and Redis, and no local message.
        ExposedTool.objects.filter(name="weather").update(enabled=False)
        from mcp_tools.catalog.admin_state import VERSION_KEY, bump_version

        version = bump_version()
        redis_cache.set(VERSION_KEY, version, timeout=None)
        started = time.monotonic()
        redis.client().publish(
            redis_cache.make_key(broadcast.CHANNEL), json.dumps({"admin": version})
        )
        assert stream.next()["method"] == "notifications/tools/list_changed"
        assert time.monotonic() - started < 5  # ADMIN_STATE_MAX_AGE is 60
        resource_updated("notes://1")  # this process: through Redis too
        assert stream.next()["params"]["uri"] == "notes://1"
    finally:
        stream.close()
