"""Day-one DRF code (tests/dayone_app) makes good tools, through the official MCP client.

Each pattern is written as DRF's own documentation writes it, not shaped for mcp_tools.
"""

import asyncio

import pytest

from tests.dayone_app.models import Order, Product
from tests.helpers import purpose, write_catalog
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def listed_and_called(url, token, calls, *, mode="legacy"):
    """List the tools and make ``calls`` [(name, arguments)]; check every exchange on the wire."""
    wire = Wire()

    async def scenario():
        async with connect(url, token=token, mode=mode, wire=wire) as client:
            tools = await all_tools(client)  # every page (PAGE_SIZE)
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return tools, results

    tools, results = run(scenario())
    version = "2025-11-25" if mode == "legacy" else "2026-07-28"
    for message, status, _, body in wire.posts():
        validate_exchange(version, message, status, body)
    return tools, results


@pytest.fixture
def url(live_server):
    return f"{live_server.url}/mcp"


def test_an_apiview_with_serializer_class_lists_the_serializers_fields(url, alice):
    tools, [quoted, refused] = listed_and_called(
        url,
        alice.token,
        [("quote", {"item": "tea", "quantity": 4}), ("quote", {"item": "tea"})],
    )
    schema = tools["quote"].input_schema
    assert sorted(schema["properties"]) == ["item", "quantity"]
    assert schema["required"] == ["item", "quantity"]
    assert schema["properties"]["quantity"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 1000,
        "description": "Quantity.",  # no label nor help text: the field's name
    }
    assert quoted.is_error is False and quoted.structured_content == {"item": "tea", "price": 12}
    # The schema refuses what the view would refuse, before the view runs.
    assert refused.is_error is True
    assert refused.content[0].text == 'Invalid arguments: $: "quantity" is a required property'


def test_a_viewset_with_only_get_queryset_takes_the_integer_ids_it_returns(url, alice):
    tools, [created] = listed_and_called(
        url, alice.token, [("order_create", {"item": "tea", "quantity": 2})]
    )
    for name in ("order_retrieve", "order_update", "order_partial_update", "order_destroy"):
        pk = tools[name].input_schema["properties"]["pk"]
        assert pk["type"] == "integer", (name, pk)
        assert pk["description"] == "The order's id, as order_list returns it."
    order_id = created.structured_content["id"]
    assert isinstance(order_id, int)
    _, [fetched, changed, deleted] = listed_and_called(
        url,
        alice.token,
        [
            ("order_retrieve", {"pk": order_id}),
            ("order_partial_update", {"pk": order_id, "quantity": 5}),
            ("order_destroy", {"pk": order_id}),
        ],
    )
    assert fetched.is_error is False, fetched.content
    assert fetched.structured_content == {"id": order_id, "item": "tea", "quantity": 2}
    assert changed.structured_content["quantity"] == 5
    assert deleted.is_error is False and not Order.objects.filter(pk=order_id).exists()


def test_a_number_is_turned_into_the_string_a_string_lookup_wants(url, alice):
    Product.objects.create(sku="1001", name="Green tea")
    tools, [fetched] = listed_and_called(url, alice.token, [("product_retrieve", {"sku": 1001})])
    assert tools["product_retrieve"].input_schema["properties"]["sku"]["type"] == "string"
    assert fetched.is_error is False, fetched.content
    assert fetched.structured_content == {"sku": "1001", "name": "Green tea"}


def test_each_standard_action_has_its_own_description(url, alice):
    tools, _ = listed_and_called(url, alice.token, [], mode="auto")
    descriptions = {name: purpose(tools[f"order_{name}"].description) for name in ACTIONS}
    assert descriptions == {
        "list": "List orders. Orders placed by the signed-in user.",
        "create": "Create an order. Orders placed by the signed-in user.",
        "retrieve": "Get one order by id. Orders placed by the signed-in user.",
        "update": "Replace an order. Orders placed by the signed-in user.",
        "partial_update": "Change some fields of an order. Orders placed by the signed-in user.",
        "destroy": "Delete an order. Orders placed by the signed-in user.",
    }
    assert (
        purpose(tools["product_retrieve"].description)
        == "Get one product by sku. The shop's products."
    )


ACTIONS = ("list", "create", "retrieve", "update", "partial_update", "destroy")


def test_the_generated_texts_are_translated_into_the_active_language(
    url, alice, settings, tmp_path
):
    # A project's own catalog translates mcp_tools' sentences and its models' verbose names.
    write_catalog(
        tmp_path,
        "fr",
        {
            "order": "commande",
            "orders": "commandes",
            "List %(plural)s.": "Lister les %(plural)s.",
            "Needs %(permissions)s.": "Il faut %(permissions)s.",
            "Returns a list of %(plural)s with %(rows)s.": "Renvoie des %(plural)s : %(rows)s.",
            "Create an %(name)s.": "Créer une %(name)s.",
            "List %(plural)s": "Lister les %(plural)s",
        },
    )
    settings.LOCALE_PATHS = [str(tmp_path)]
    settings.LANGUAGE_CODE = "fr"
    tools, _ = listed_and_called(url, alice.token, [])
    assert tools["order_list"].description == (
        "Lister les commandes. Orders placed by the signed-in user. Il faut IsAuthenticated. "
        "Renvoie des commandes : id, item, quantity."
    )
    assert tools["order_list"].title == "Lister les commandes"
    assert tools["order_create"].description.startswith("Créer une commande. ")
    # What the catalog does not translate stays English, with the translated name.
    assert tools["order_destroy"].description.startswith("Delete an commande. ")
    settings.LANGUAGE_CODE = "en"
    tools, _ = listed_and_called(url, alice.token, [])
    assert tools["order_list"].description == (
        "List orders. Orders placed by the signed-in user. Needs IsAuthenticated. Returns a "
        "list of orders with id, item, quantity."
    )


def test_api_view_above_mcp_tool_is_a_tool(url, alice):
    Order.objects.create(owner=alice, item="tea")
    tools, [counted] = listed_and_called(url, alice.token, [("order_count", {})])
    assert purpose(tools["order_count"].description) == "Count the signed-in user's orders."
    assert counted.is_error is False and counted.structured_content == {"count": 1}
