"""Resources through the official Python SDK over real HTTP, in both eras: list, list
templates, read text and binary, and a URI no view answers; every exchange validated
against its version's schema."""

from __future__ import annotations

import asyncio
import base64

import pytest
from mcp import MCPError

from tests.resources import urls
from tests.sdk import Wire, connect
from tests.wire import validate_exchange

ERAS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]

pytestmark = pytest.mark.urls("tests.resources.urls")


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_the_sdk_lists_and_reads_resources_and_templates(live_server, alice, mode, version):
    wire = Wire()

    async def session():
        async with connect(f"{live_server.url}/mcp", token=alice.token, mode=mode, wire=wire) as c:
            listed = await c.list_resources()
            templates = await c.list_resource_templates()
            text = await c.read_resource("orders://1")
            image = await c.read_resource("shop://banner")
            with pytest.raises(MCPError) as missing:
                await c.read_resource("orders://404")
            return listed, templates, text, image, missing.value

    listed, templates, text, image, missing = run(session())
    assert [str(each.uri) for each in listed.resources][:2] == [
        "shop://banner",
        "site://api/report",
    ]
    assert [each.uri_template for each in templates.resource_templates] == ["orders://{pk}"]
    (content,) = text.contents
    assert (content.mime_type, content.text) == (
        "application/json",
        '{"id":1,"title":"Tea","secret":"s3cr3t"}',
    )
    (blob,) = image.contents
    assert (blob.mime_type, base64.b64decode(blob.blob)) == ("image/png", urls.PNG)
    assert missing.code == (-32602 if version == "2026-07-28" else -32002)
    assert str(missing) == "Resource not found: orders://404"
    posts = wire.posts()
    assert any(message.get("method") == "resources/read" for message, *_ in posts)
    for message, status, _, body in posts:
        validate_exchange(version, message, status, body)
