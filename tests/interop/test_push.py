"""django-push-notifications' device API, a real project from PyPI, made tools by one line
(tests/push_site).

Its viewsets look a device up by ``registration_id``, which is also a field of the body, so
the update tools can't tell the two apart: ``check`` and ``migrate`` still pass, those four
are left out with ``mcp_tools.W009``, and the site is served by gunicorn. Through the
official Python SDK one user registers a device, lists, reads and deletes it; another sees
none of it. Every exchange is validated against the 2026-07-28 wire schema.
"""

from __future__ import annotations

import asyncio
import os
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.processes import gunicorn, manage
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)

DEVICES = ("apnsdevice", "gcmdevice")
TOOLS = [
    f"{device}_{verb}" for device in DEVICES for verb in ("list", "create", "retrieve", "destroy")
]
LEFT_OUT = [f"{device}_{verb}" for device in DEVICES for verb in ("update", "partial_update")]
TOKEN = "fcm-token-of-alices-phone"


def site_env(folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.push_site.settings",
        "MCP_TESTS_DATABASE": str(folder / "db.sqlite3"),
        "MCP_TESTS_CACHE": str(folder / "cache"),
    }


@contextmanager
def served(folder: Path):
    """Migrate, seed and check the site, serve it; yield (base URL, the two users' tokens,
    check's output)."""
    env = site_env(folder)
    manage(env, "migrate", "--noinput", "-v", "0")
    tokens = manage(env, "seed_users").stdout.split()
    checked = manage(env, "check")
    checks = checked.stdout + checked.stderr
    with gunicorn("tests.push_site.wsgi:application", env) as base:
        yield base, tokens, checks


def use_the_devices(base: str, alice: str, bob: str):
    wire = Wire()
    found = {}

    async def as_alice():
        async with connect(f"{base}/mcp", token=alice, wire=wire) as client:
            found["tools"] = await all_tools(client)
            device = {"registration_id": TOKEN, "name": "Alice's phone"}
            for step, name, arguments in [
                ("created", "gcmdevice_create", device),
                ("listed", "gcmdevice_list", {}),
                ("retrieved", "gcmdevice_retrieve", {"registration_id": TOKEN}),
            ]:
                found[step] = await client.call_tool(name, arguments)

    async def as_bob():
        async with connect(f"{base}/mcp", token=bob, wire=wire) as client:
            found["bob_listed"] = await client.call_tool("gcmdevice_list", {})
            found["bob_retrieved"] = await client.call_tool(
                "gcmdevice_retrieve", {"registration_id": TOKEN}
            )
            found["bob_destroyed"] = await client.call_tool(
                "gcmdevice_destroy", {"registration_id": TOKEN}
            )

    async def alice_deletes():
        async with connect(f"{base}/mcp", token=alice, wire=wire) as client:
            found["destroyed"] = await client.call_tool(
                "gcmdevice_destroy", {"registration_id": TOKEN}
            )
            found["listed_after"] = await client.call_tool("gcmdevice_list", {})

    async def scenario():
        await as_alice()
        await as_bob()
        await alice_deletes()

    asyncio.run(asyncio.wait_for(scenario(), timeout=60))
    for message, status, _, body in wire.posts():
        validate_exchange("2026-07-28", message, status, body)
    return found


def text(result) -> str:
    return " ".join(block.text for block in result.content if block.type == "text")


def test_push_notifications_devices_are_tools_for_their_owner_only(tmp_path):
    with served(tmp_path) as (base, (alice, bob), checks):
        found = use_the_devices(base, alice, bob)

    left_out = sorted(
        line.split("Tool '")[1].split("'")[0] for line in checks.splitlines() if "W009" in line
    )
    assert left_out == sorted(LEFT_OUT), checks
    assert checks.count("(mcp_tools.W") == len(LEFT_OUT), checks
    assert "argument 'registration_id' is used by both the URL path and the body" in checks
    assert sorted(found["tools"]) == sorted(TOOLS)

    for step in ("created", "listed", "retrieved", "destroyed", "listed_after", "bob_listed"):
        assert found[step].is_error is False, (step, found[step].content)
    created = found["created"].structured_content
    assert (created["registration_id"], created["name"]) == (TOKEN, "Alice's phone")
    assert created["cloud_message_type"] == "FCM"
    assert [device["registration_id"] for device in found["listed"].structured_content] == [TOKEN]
    assert found["retrieved"].structured_content["id"] == created["id"]
    assert found["listed_after"].structured_content == []

    assert found["bob_listed"].structured_content == []
    for step in ("bob_retrieved", "bob_destroyed"):
        assert found[step].is_error is True, (step, found[step].content)
        # DRF's 404 for a queryset of Alice's devices only: Bob is told nothing more.
        assert text(found[step]) == '{"detail":"No GCMDevice matches the given query."}', step
