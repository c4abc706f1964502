"""Each tool's inputSchema (docs/tools.md, the inputSchema and portability).

Valid JSON Schema 2020-12 that reads the same as draft-07, a declared schema checked against
both metaschemas, and the schemas as the official SDK client lists and uses them.
"""

from __future__ import annotations

import types

import pytest
from django.urls import path
from jsonschema import Draft7Validator, Draft202012Validator
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.problems import describe
from mcp_tools.tools.registry import ToolRegistry, registry
from tests.helpers import purpose


def all_tools():
    return list(registry.tools("tests.urls"))


@pytest.mark.parametrize("tool", all_tools(), ids=lambda tool: tool.name)
def test_every_input_schema_is_valid_json_schema_2020_12_and_draft_07(tool):
    Draft202012Validator.check_schema(tool.input_schema)
    Draft7Validator.check_schema(tool.input_schema)
    # draft-07 resolves the $defs pointer too: a recursive schema validates the same way.
    draft7 = Draft7Validator(tool.input_schema)
    assert list(draft7.iter_errors({"unexpected": object()})) is not None


def test_draft_07_reads_a_recursive_schema_as_2020_12_does():
    schema = next(tool for tool in all_tools() if tool.name == "s_node").input_schema
    good = {"name": "a", "children": [{"name": "b", "children": []}]}
    bad = {"name": "a", "children": [{"name": ""}]}
    for validator_class in (Draft202012Validator, Draft7Validator):
        assert validator_class(schema).is_valid(good)
        assert not validator_class(schema).is_valid(bad)


def test_a_declared_input_schema_is_checked_against_both_metaschemas():
    local = ToolRegistry()
    view = mcp_tool(
        "bad_schema",
        registry=local,
        input_schema={"type": "object", "properties": {"a": {"type": 5}}},
    )(type("V", (APIView,), {"post": lambda self, request: Response()}))
    module = types.ModuleType("bad_schema_urls")
    module.urlpatterns = [path("bad/", view.as_view())]
    (problem,) = local.inspect(module).problems
    assert problem.id == "mcp_tools.E005"
    assert describe(problem)[0].startswith(
        "The input_schema of tool 'bad_schema' is not a valid JSON Schema: 5 is not valid"
    )


@pytest.mark.django_db(transaction=True)
def test_the_sdk_client_lists_the_schemas_and_calls_with_lenient_arguments(live_server, alice):
    import asyncio

    from tests.schema_app.models import Gadget
    from tests.sdk import connect

    Gadget.objects.create(name="Hammer", kind="tool", price="9.50")
    Gadget.objects.create(name="Yo-yo", kind="toy", price="2.00")
    Gadget.objects.create(name="Kite", kind="toy", price="15.00")
    url = f"{live_server.url}/mcp"

    async def scenario():
        async with connect(url, token=alice.token, mode="legacy") as client:
            listed, cursor = {}, None
            while True:  # tools/list pages with cursors
                page = await client.list_tools(cursor=cursor)
                listed.update((tool.name, tool) for tool in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            every = await client.call_tool(
                "s_every",
                {
                    "title": "Hello",
                    "count": "5",
                    "flag": "true",
                    "numbers": "[1, 2]",
                    "size": '{"width": 3}',
                    "price": "12.50",
                },
            )
            refused = await client.call_tool("s_every", {"title": "x", "count": "many"})
            toys = await client.call_tool(
                "s_gadget_list", {"kind": "toy", "ordering": "-price", "page_size": "1"}
            )
        async with connect(
            f"{live_server.url}/s/mcp-forms", token=alice.token, mode="legacy"
        ) as client:
            forms = sorted(tool.name for tool in (await client.list_tools()).tools)
        return listed, every, refused, toys, forms

    listed, every, refused, toys, forms = asyncio.run(asyncio.wait_for(scenario(), 60))
    expected = registry.get_tool("s_every", "tests.urls")
    assert listed["s_every"].input_schema == expected.input_schema
    assert purpose(listed["s_every"].description) == "Accept one argument of every DRF field type."
    destroy = listed["s_gadget_destroy"].annotations
    assert (destroy.read_only_hint, destroy.destructive_hint, destroy.idempotent_hint) == (
        False,
        True,
        True,
    )
    assert every.is_error is False, every.content
    assert {"count", "flag", "numbers", "size", "price"} <= set(
        every.structured_content["accepted"]
    )
    assert refused.is_error is True
    assert refused.content[0].text.splitlines() == [
        "Invalid arguments: $.count: \"many\" is not of type 'integer'",
        'Invalid arguments: $.title: "x" is too short',
    ]
    assert toys.is_error is False, toys.content
    assert toys.structured_content["count"] == 2
    assert [item["name"] for item in toys.structured_content["results"]] == ["Kite"]
    assert forms == ["s_every", "s_node"]
