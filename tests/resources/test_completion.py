"""completion/complete of a resource template's variable: the view's own queryset as this
caller sees it (docs/resources.md#completion), each answer validated against its schema."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import types

from mcp_tools.completion import resources as completion
from mcp_tools.models import ExposedResource, ToolCall
from mcp_tools.resources.sync import sync_resources
from mcp_tools.test import MCPClient
from tests.dayone_app.models import Order, Product
from tests.resources import completion_urls
from tests.sdk import Wire, connect
from tests.wire import validate_exchange

pytestmark = [pytest.mark.urls("tests.resources.completion_urls"), pytest.mark.django_db]


def sent(user, uri, name, value, version="2026-07-28", context=None):
    """Send one completion/complete of a resource template's variable; return the HTTP
    response, its exchange validated against the version's schema."""
    mcp = MCPClient(
        headers={"Authorization": f"Token {user.token}"}, mcp_path="/mcp", protocol_version=version
    )
    if version != "2026-07-28":
        mcp.initialize()
    params = {
        "ref": {"type": "ref/resource", "uri": uri},
        "argument": {"name": name, "value": value},
    }
    if context is not None:
        params["context"] = {"arguments": context}
    message = mcp.message("completion/complete", params)
    response = mcp.send(message)
    validate_exchange(version, message, response.status_code, response.content)
    return response


def complete(user, uri, name, value, version="2026-07-28", context=None):
    """Return the completion, or the error, of ``sent``'s answer."""
    answer = json.loads(sent(user, uri, name, value, version, context).content)
    return answer.get("result", {}).get("completion", answer.get("error"))


@pytest.mark.parametrize("version", ["2025-03-26", "2025-11-25", "2026-07-28"])
def test_a_text_lookup_completes_from_the_queryset_by_prefix_ignoring_case(alice, version):
    for sku in ("TEA-2", "TEA-1", "CAKE-1", "TEAPOT"):
        Product.objects.create(sku=sku, name=sku)
    found = complete(alice, "shop://products/{sku}", "sku", "tea", version)
    assert found == {"values": ["TEA-1", "TEA-2", "TEAPOT"], "hasMore": False}
    everything = complete(alice, "shop://products/{sku}", "sku", "", version)
    assert everything["values"] == ["CAKE-1", "TEA-1", "TEA-2", "TEAPOT"]


def test_get_queryset_keeps_each_caller_to_their_own_rows(alice, bob):
    Order.objects.create(owner=alice, item="apples")
    Order.objects.create(owner=alice, item="apricots")
    Order.objects.create(owner=bob, item="avocados")
    assert complete(alice, "shop://my-orders/{item}", "item", "a")["values"] == [
        "apples",
        "apricots",
    ]
    assert complete(bob, "shop://my-orders/{item}", "item", "a")["values"] == ["avocados"]


def test_object_permissions_are_asked_of_each_row(alice, bob):
    Order.objects.create(owner=bob, item="bananas")
    Order.objects.create(owner=alice, item="beans")
    Order.objects.create(owner=bob, item="beets")
    assert complete(alice, "shop://orders/{item}", "item", "b")["values"] == ["beans"]
    assert complete(bob, "shop://orders/{item}", "item", "be")["values"] == ["beets"]


def test_at_most_a_hundred_values_and_has_more_past_them(alice):
    Product.objects.bulk_create(Product(sku=f"P{index:03}", name="p") for index in range(130))
    found = complete(alice, "shop://products/{sku}", "sku", "p")
    assert len(found["values"]) == 100 and found["values"][0] == "P000"
    assert found["hasMore"] is True and "total" not in found


def test_rows_asked_for_their_object_permission_are_bounded(alice, bob, monkeypatch):
    monkeypatch.setattr(completion, "MAX_ROWS_ASKED", 3)
    for index in range(5):
        Order.objects.create(owner=bob, item=f"c{index}")
    Order.objects.create(owner=alice, item="c9")
    found = complete(alice, "shop://orders/{item}", "item", "c")
    assert found == {"values": [], "hasMore": True}


def test_a_variable_that_is_not_a_text_lookup_completes_to_nothing(alice):
    Order.objects.create(owner=alice, item="dates")
    assert complete(alice, "shop://order-lines/{pk}", "pk", "1") == {
        "values": [],
        "hasMore": False,
    }


def test_an_unknown_or_hidden_template_or_variable_is_invalid_params(alice):
    unknown = complete(alice, "shop://nothing/{sku}", "sku", "")
    assert unknown == {
        "code": -32602,
        "message": "Invalid params: unknown resource template shop://nothing/{sku}",
    }
    missing = complete(alice, "shop://products/{sku}", "name", "")
    assert missing["code"] == -32602 and "has no variable name" in missing["message"]


def test_a_disabled_template_completes_nothing_and_is_invalid_params(alice):
    Product.objects.create(sku="TEA-1", name="Tea")
    sync_resources(completion_urls.resources)
    row = ExposedResource.objects.get(name="product_detail")
    row.enabled = False  # as the admin's action saves it
    row.save()
    hidden = complete(alice, "shop://products/{sku}", "sku", "")
    assert hidden == {
        "code": -32602,
        "message": "Invalid params: unknown resource template shop://products/{sku}",
    }


def test_a_permission_reading_the_urls_variables_is_asked_with_them(alice, bob):
    Order.objects.create(owner=alice, item="alice-secret")
    template = "shop://owners/{owner}/orders/{item}"
    theirs = complete(bob, template, "item", "", context={"owner": str(alice.pk)})
    assert theirs == {"values": [], "hasMore": False}
    mine = complete(alice, template, "item", "", context={"owner": str(alice.pk)})
    assert mine["values"] == ["alice-secret"]


def test_a_template_whose_other_variables_are_missing_or_odd_completes_to_nothing(alice):
    Order.objects.create(owner=alice, item="apples")
    template = "shop://owners/{owner}/orders/{item}"
    assert complete(alice, template, "item", "a") == {"values": [], "hasMore": False}
    for odd in ("--1", "²", "9" * 30, "abc"):
        found = complete(alice, template, "item", "a", context={"owner": odd})
        assert found == {"values": [], "hasMore": False}, odd


@pytest.mark.parametrize("template", ["shop://checked-orders/{item}", "shop://kept-orders/{item}"])
def test_a_view_that_decides_in_its_own_code_completes_to_nothing(alice, bob, template):
    # get_object() and retrieve() overridden: who reads a row is the view's own code.
    Order.objects.create(owner=bob, item="gherkins")
    assert complete(alice, template, "item", "g") == {"values": [], "hasMore": False}


def test_a_nul_character_is_invalid_params(alice):
    found = complete(alice, "shop://products/{sku}", "sku", "a\x00")
    assert found == {"code": -32602, "message": "Invalid params: a value holds a NUL character"}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_the_sdk_completes_a_variable_from_the_callers_own_rows(
    live_server, alice, bob, mode, version
):
    Order.objects.create(owner=alice, item="figs")
    Order.objects.create(owner=bob, item="fennel")
    Order.objects.create(owner=alice, item="flour")
    wire = Wire()

    async def session(user):
        url = f"{live_server.url}/mcp"
        async with connect(url, token=user.token, mode=mode, wire=wire) as client:
            reference = types.ResourceTemplateReference(
                type="ref/resource", uri="shop://my-orders/{item}"
            )
            return await client.complete(reference, {"name": "item", "value": "f"})

    mine = asyncio.run(asyncio.wait_for(session(alice), timeout=60))
    theirs = asyncio.run(asyncio.wait_for(session(bob), timeout=60))
    assert mine.completion.values == ["figs", "flour"] and mine.completion.has_more is False
    assert theirs.completion.values == ["fennel"]
    posts = wire.posts()
    assert any(message.get("method") == "completion/complete" for message, *_ in posts)
    for message, status, _, body in posts:
        validate_exchange(version, message, status, body)


def test_a_completion_is_answered_private(alice):
    Order.objects.create(owner=alice, item="grapes")
    response = sent(alice, "shop://my-orders/{item}", "item", "g")
    assert response["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize("method", ["completion/complete", "prompts/get"])
def test_each_completion_and_get_of_a_batch_counts_against_the_throttles(alice, method):
    from django.core.cache import cache

    from mcp_tools.models import Prompt

    Prompt.objects.create(name="hello", messages=[{"role": "user", "text": "Hello"}])
    params = {
        "completion/complete": {
            "ref": {"type": "ref/resource", "uri": "shop://products/{sku}"},
            "argument": {"name": "sku", "value": ""},
        },
        "prompts/get": {"name": "hello"},
    }[method]
    cache.clear()
    mcp = MCPClient(headers={"Authorization": f"Token {alice.token}"}, mcp_path="/mcp-throttled")
    batch = [mcp.message(method, params) for _ in range(3)]
    response = mcp.send(batch, headers={"MCP-Protocol-Version": "2025-03-26"})
    codes = [answer.get("error", {}).get("code") for answer in json.loads(response.content)]
    assert codes == [None, -32029, -32029]
    if method == "prompts/get":  # logged as a throttled call is
        refused = ToolCall.objects.filter(kind="prompt", refusal="throttled")
        assert refused.count() == 2
