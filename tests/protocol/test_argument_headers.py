"""Argument headers (docs/protocol.md, argument headers): declared with ``headers=`` or in a
declared ``input_schema``, checked at start-up, advertised at 2026-07-28, checked per call.

The fixture is the conformance app's ``test_argument_headers`` (``region`` and ``verbose``
through ``headers=``, ``shard`` in its schema), called through the whole endpoint.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import types
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.urls import path
from rest_framework import serializers, viewsets
from rest_framework.decorators import api_view
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from mcp_tools.checks import check_tools
from mcp_tools.signals import tool_called
from mcp_tools.test import MCPClient
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from tests.conformance_app.server import serve
from tests.helpers import MODERN, error_of, result_of
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db

FIXTURE = "test_argument_headers"
HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


def listed(client: MCPClient, version: str) -> dict:
    """Return the fixture's definition as ``version`` lists it; validate every page sent."""
    params: dict = {}
    while True:
        message = client.message("tools/list", params or None)
        response = client.send(message)
        validate_exchange(version, message, response.status_code, response.content)
        result = result_of(response)
        found = [tool for tool in result["tools"] if tool["name"] == FIXTURE]
        if found:
            return found[0]
        params = {"cursor": result["nextCursor"]}


def test_the_header_mapping_is_advertised_on_the_properties_at_2026_07_28(alice):
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=MODERN)
    schema = listed(client, MODERN)["inputSchema"]
    assert schema["properties"] == {
        "region": {
            "type": "string",
            "description": "Where the query runs.",
            "x-mcp-header": "Region",
        },
        "shard": {"type": "integer", "x-mcp-header": "Shard"},
        "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
        "query": {"type": "string"},
    }


@pytest.mark.parametrize("version", HANDSHAKE)
def test_older_eras_list_the_tool_without_the_mapping(alice, version):
    # They define no argument headers: their clients send none, and none is checked.
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=version)
    schema = listed(client, version)["inputSchema"]
    assert "x-mcp-header" not in json.dumps(schema)
    assert set(schema["properties"]) == {"region", "shard", "verbose", "query"}


@pytest.fixture
def calls():
    """The tool_called signals of calls that were not refused: a refused call runs no view
    (it is reported as refused, for the call log: docs/calllog.md)."""
    sent = []

    def receiver(**kwargs):
        if kwargs.get("outcome") != "refused":
            sent.append(kwargs)
        else:
            assert kwargs["status"] is None and kwargs["refusal"] == "invalid_arguments"

    tool_called.connect(receiver)
    yield sent
    tool_called.disconnect(receiver)


def call(client: MCPClient, arguments: dict, sent: dict[str, str | None]):
    message = client.message("tools/call", {"name": FIXTURE, "arguments": arguments})
    response = client.send(message, headers=sent)
    validate_exchange(client.protocol_version, message, response.status_code, response.content)
    return response


@pytest.mark.parametrize(
    "arguments, sent",
    [
        ({"region": "us-west1"}, {"Mcp-Param-Region": "us-west1"}),
        ({"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVsbG8=?="}),
        ({"region": "SGVsbG8="}, {"Mcp-Param-Region": "SGVsbG8="}),
        ({"region": "Hello, 世界"}, {"mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?="}),
        (
            {"region": "eu", "shard": 4, "verbose": True},
            {"Mcp-Param-Region": "eu", "MCP-PARAM-SHARD": "4.0", "Mcp-Param-Verbose": "true"},
        ),
        ({"region": "eu", "query": "SELECT 1"}, {"Mcp-Param-Region": "eu"}),
    ],
)
def test_headers_that_agree_with_the_body_are_accepted(modern_mcp, calls, arguments, sent):
    response = call(modern_mcp, arguments, sent)
    result = result_of(response)
    assert result["isError"] is False
    assert result["structuredContent"]["region"] == arguments["region"]
    assert len(calls) == 1


@pytest.mark.parametrize(
    "arguments, sent, message",
    [
        (
            {"region": "us"},
            {},
            "Mcp-Param-Region header is missing, but the argument 'region' is in the body",
        ),
        (
            {"region": "us", "shard": 3},
            {"Mcp-Param-Region": "us"},
            "Mcp-Param-Shard header is missing, but the argument 'shard' is in the body",
        ),
        (
            {"region": "us"},
            {"Mcp-Param-Region": "eu"},
            "Mcp-Param-Region header does not match the argument 'region'",
        ),
        (
            {"region": "Hello"},
            {"Mcp-Param-Region": "=?base64?SGVsbG8?="},
            "Mcp-Param-Region header is not valid =?base64?...?= (padded Base64 of UTF-8)",
        ),
        (
            {"region": "Hello"},
            {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="},
            "Mcp-Param-Region header is not valid =?base64?...?= (padded Base64 of UTF-8)",
        ),
        (
            {"region": "us", "shard": 3},
            {"Mcp-Param-Region": "us", "Mcp-Param-Shard": "3.5"},
            "Mcp-Param-Shard header does not match the argument 'shard'",
        ),
        (
            {"region": "us"},
            {"Mcp-Param-Region": "us", "Mcp-Param-Verbose": "false"},
            "Mcp-Param-Verbose header is sent, but the argument 'verbose' is not in the body",
        ),
    ],
)
def test_each_disagreement_is_refused_with_400_and_32020_before_the_view_runs(
    modern_mcp, calls, arguments, sent, message
):
    response = call(modern_mcp, arguments, sent)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    error = error_of(response)
    assert error == {"code": -32020, "message": f"Header mismatch: {message}"}
    assert calls == []


def test_a_header_of_characters_no_header_value_holds_is_refused(modern_mcp, calls):
    # What a WSGI server hands over for raw UTF-8 bytes: their Latin-1 reading.
    response = call(modern_mcp, {"region": "é"}, {"Mcp-Param-Region": "\xc3\xa9"})
    assert (response.status_code, error_of(response)["code"]) == (400, -32020)
    assert calls == []


def test_the_standard_headers_are_checked_first(modern_mcp):
    message = modern_mcp.message("tools/call", {"name": FIXTURE, "arguments": {"region": "us"}})
    response = modern_mcp.send(message, headers={"Mcp-Name": "other"})
    assert error_of(response)["message"] == (
        "Header mismatch: Mcp-Name header does not match the request's 'name'"
    )


def test_a_tool_this_caller_cannot_see_is_unknown_whatever_the_headers(modern_mcp):
    message = modern_mcp.message("tools/call", {"name": "nope", "arguments": {"region": "us"}})
    response = modern_mcp.send(message, headers={"Mcp-Param-Region": "eu"})
    assert error_of(response)["code"] == -32602


@pytest.mark.parametrize("version", HANDSHAKE)
def test_older_eras_check_no_argument_header(alice, calls, version):
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=version)
    response = call(client, {"region": "us"}, {"Mcp-Param-Region": "eu"})
    assert result_of(response)["isError"] is False
    assert len(calls) == 1


def test_mcp_client_mirrors_the_arguments_of_the_tools_it_listed(modern_mcp):
    # As the official SDK: a tool not listed yet has no known headers, and is refused.
    with pytest.raises(Exception, match="Mcp-Param-Region header is missing"):
        modern_mcp.call_tool(FIXTURE, {"region": "us"})
    modern_mcp.list_tools()
    arguments = {"region": " padded ", "shard": 7, "verbose": False}
    message = modern_mcp.message("tools/call", {"name": FIXTURE, "arguments": arguments})
    assert modern_mcp.headers_for(message) == {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": FIXTURE,
        "Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?=",
        "Mcp-Param-Shard": "7",
        "Mcp-Param-Verbose": "false",
    }
    result = modern_mcp.call_tool(FIXTURE, arguments)
    assert result["structuredContent"]["region"] == " padded "


# Start-up checks ---------------------------------------------------------------------------


def check_urlconf(settings, registry, *patterns):
    module = types.ModuleType("checked_urls")
    module.urlpatterns = list(patterns)
    settings.ROOT_URLCONF = module
    return check_tools(registry=registry)


class Query(serializers.Serializer):
    region = serializers.CharField()
    zone = serializers.CharField(allow_null=True, required=False)
    count = serializers.IntegerField(required=False)
    ratio = serializers.FloatField(required=False)
    kind = serializers.ChoiceField(choices=["a", "b"], required=False)
    mixed = serializers.ChoiceField(choices=[1, "b"], required=False)


def body_view(name: str):
    return type(
        name,
        (APIView,),
        {"serializer_class": Query, "post": lambda self, request: Response(request.data)},
    )


def one_message(settings, **options):
    registry = ToolRegistry()
    view = mcp_tool("t", registry=registry, **options)(body_view("V"))
    (message,) = check_urlconf(settings, registry, path("v/", view.as_view()))
    return message, view


def test_a_header_name_that_is_no_http_header_name_is_e080(settings):
    message, view = one_message(settings, headers={"region": "Re gion"})
    assert message == checks.Error(
        "Tool 't': the argument 'region' is mirrored in a header named 'Re gion', which is no "
        "HTTP header name (one or more letters, digits or !#$%&'*+-.^_`|~).",
        hint='Name the header with letters, digits and hyphens, e.g. @mcp_tool(headers={"region": '
        '"Region"}) for Mcp-Param-Region.',
        obj=view,
        id="mcp_tools.E080",
    )


@pytest.mark.parametrize(
    "argument, type_",
    [("ratio", '"number"'), ("zone", '["string", "null"]'), ("mixed", '["integer", "string"]')],
)
def test_a_header_on_an_argument_of_another_type_is_e081(settings, argument, type_):
    message, view = one_message(settings, headers={argument: "H"})
    assert message == checks.Error(
        f"Tool 't': the argument {argument!r} is mirrored in the header Mcp-Param-H but its "
        f"schema's type is {type_}; only a string, integer or boolean argument can be (clients "
        "drop the tool).",
        hint="Mirror an argument of one type, string, integer or boolean: a number's text is "
        "not the same in every language, and a nullable field's type is a list (drop "
        "allow_null, or declare the property with @mcp_tool(input_schema=...)).",
        obj=view,
        id="mcp_tools.E081",
    )


def test_one_header_name_for_two_arguments_is_e082(settings):
    message, view = one_message(settings, headers={"region": "Region", "count": "REGION"})
    assert (message.id, message.msg) == (
        "mcp_tools.E082",
        "Tool 't': the arguments 'region' and 'count' are both mirrored in the header "
        "Mcp-Param-REGION (header names are the same in any case).",
    )


def test_a_declared_header_where_no_argument_is_is_e083(settings):
    declared = {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "T"}}},
    }
    message, view = one_message(settings, input_schema=declared)
    assert message == checks.Error(
        "Tool 't': its input_schema declares an x-mcp-header at /properties/tags/items, which "
        "is not an argument reached through properties from the root (clients drop the tool).",
        hint="Put x-mcp-header on a property reached through properties keys only, never under "
        "items, anyOf/oneOf/allOf, not, if/then/else, $defs or a $ref.",
        obj=view,
        id="mcp_tools.E083",
    )


def test_headers_naming_no_argument_of_any_tool_is_e084(settings):
    message, view = one_message(settings, headers={"regoin": "Region"})
    assert message == checks.Error(
        "V: @mcp_tool(headers=...) names 'regoin', which no tool of it takes as an argument.",
        hint="Name arguments of the tool's input schema (manage.py mcp_show NAME shows them), "
        "or put headers= on the handler or action that takes them.",
        obj=view,
        id="mcp_tools.E084",
    )


def test_two_header_names_for_one_argument_is_e085(settings):
    declared = {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "R"}}}
    message, view = one_message(settings, input_schema=declared, headers={"r": "Region"})
    assert (message.id, message.msg) == (
        "mcp_tools.E085",
        "Tool 't': headers= mirrors the argument 'r' in Mcp-Param-Region, but its input_schema "
        "already names Mcp-Param-R for it.",
    )


def test_an_underscore_in_a_header_name_is_w080(settings):
    message, view = one_message(settings, headers={"region": "Cloud_Region"})
    assert message == checks.Warning(
        "Tool 't': the header Mcp-Param-Cloud_Region has an underscore in its name: gunicorn "
        "drops such headers by default (its header_map setting) and Django reads '_' and '-' "
        "alike, so calls can be refused as missing the header.",
        hint="Name it with hyphens: Mcp-Param-Cloud-Region.",
        obj=view,
        id="mcp_tools.W080",
    )


def test_an_error_keeps_the_endpoint_from_serving_half_its_tools(settings):
    registry = ToolRegistry()
    view = mcp_tool("t", registry=registry, headers={"ratio": "Ratio"})(body_view("V"))
    check_urlconf(settings, registry, path("v/", view.as_view()))
    with pytest.raises(ImproperlyConfigured, match="Mcp-Param-Ratio"):
        registry.tools()


def test_a_choice_field_gets_its_type_and_the_same_header_twice_is_one(settings):
    registry = ToolRegistry()
    declared = {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "R"}}}
    mcp_tool("c", registry=registry, headers={"kind": "Kind"})(view := body_view("C"))
    mcp_tool("d", registry=registry, input_schema=declared, headers={"r": "R"})(
        other := body_view("D")
    )
    mcp_tool("e", registry=registry)(plain := body_view("E"))
    patterns = [
        path("c/", view.as_view()),
        path("d/", other.as_view()),
        path("e/", plain.as_view()),
    ]
    assert check_urlconf(settings, registry, *patterns) == []
    kind = registry.get_tool("c").input_schema["properties"]["kind"]
    typed = {"type": "string", "enum": ["a", "b"], "description": "Kind."}  # choices are typed
    assert kind == {**typed, "x-mcp-header": "Kind"}
    assert registry.get_tool("e").input_schema["properties"]["kind"] == typed
    assert [header.name for header in registry.get_tool("d").headers] == ["R"]
    assert declared["properties"]["r"] == {"type": "string", "x-mcp-header": "R"}


def test_a_nested_argument_declared_in_the_schema_is_mirrored(settings):
    registry = ToolRegistry()
    declared = {
        "type": "object",
        "properties": {
            "target": {
                "type": "object",
                "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}},
            }
        },
    }
    view = mcp_tool("n", registry=registry, input_schema=declared)(body_view("N"))
    assert check_urlconf(settings, registry, path("n/", view.as_view())) == []
    (header,) = registry.get_tool("n").headers
    assert (header.path, header.header) == (("target", "zone"), "Mcp-Param-Zone")


def test_on_a_viewset_the_header_goes_to_each_tool_that_takes_the_argument(settings):
    registry = ToolRegistry()

    @mcp_tool(registry=registry, headers={"pk": "Thing-Id"})
    class ThingViewSet(viewsets.ViewSet):
        def list(self, request):
            return Response([])

        def retrieve(self, request, pk=None):
            return Response({"pk": pk})

    router = SimpleRouter()
    router.register("things", ThingViewSet, basename="thing")
    assert check_urlconf(settings, registry, *router.urls) == []
    assert registry.get_tool("thing_list").headers == ()
    (header,) = registry.get_tool("thing_retrieve").headers
    assert header.header == "Mcp-Param-Thing-Id"


@pytest.mark.parametrize("headers", [["region"], {"region": 1}, {1: "Region"}, "Region"])
def test_headers_must_map_argument_names_to_header_names(headers):
    with pytest.raises(ImproperlyConfigured, match=r"maps argument names to header names"):
        mcp_tool(headers=headers)


def test_a_function_view_declares_headers_with_its_schema(settings):
    registry = ToolRegistry()
    declared = {"type": "object", "properties": {"region": {"type": "string"}}}

    @mcp_tool("f", registry=registry, input_schema=declared, headers={"region": "Region"})
    @api_view(["GET"])
    def f(request):
        return Response()

    assert check_urlconf(settings, registry, path("f/", f)) == []
    assert registry.get_tool("f").input_schema["properties"]["region"]["x-mcp-header"] == "Region"


# Real clients over TCP ---------------------------------------------------------------------


class HeaderWire(Wire):
    """A ``Wire`` that also keeps the headers of each request the SDK sent."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[Any, dict[str, str]]] = []

    async def hook(self, response: httpx2.Response) -> None:
        await super().hook(response)
        body = response.request.content
        self.sent.append((json.loads(body) if body else None, dict(response.request.headers)))


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


@pytest.mark.django_db(transaction=True)
def test_the_official_sdk_mirrors_the_arguments_and_the_endpoint_accepts_them(live_server, alice):
    wire = HeaderWire()
    arguments = {"region": "Hello, 世界", "shard": 3, "verbose": True}

    async def scenario():
        async with connect(f"{live_server.url}/mcp", token=alice.token, wire=wire) as client:
            tools = await all_tools(client)  # the SDK learns each tool's headers here
            region = tools[FIXTURE].input_schema["properties"]["region"]
            assert region["x-mcp-header"] == "Region"
            return await client.call_tool(FIXTURE, arguments)

    result = run(scenario())
    assert result.is_error is False
    assert result.structured_content["region"] == "Hello, 世界"
    (sent,) = [
        headers
        for message, headers in wire.sent
        if message and message.get("method") == "tools/call"
    ]
    assert {key: value for key, value in sent.items() if key.startswith("mcp-param-")} == {
        "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "mcp-param-shard": "3",
        "mcp-param-verbose": "true",
    }
    for message, status, _, body in wire.posts():
        validate_exchange(MODERN, message, status, body)


@pytest.mark.django_db(transaction=True)
def test_the_sdk_in_the_handshake_era_sees_no_mapping_and_sends_no_header(live_server, alice):
    wire = HeaderWire()

    async def scenario():
        async with connect(
            f"{live_server.url}/mcp", token=alice.token, wire=wire, mode="legacy"
        ) as client:
            tools = await all_tools(client)
            assert "x-mcp-header" not in json.dumps(tools[FIXTURE].input_schema)
            return await client.call_tool(FIXTURE, {"region": "eu", "shard": 1})

    assert run(scenario()).is_error is False
    assert not any(key.startswith("mcp-param-") for _, headers in wire.sent for key in headers)


#: Raw exchanges at 2026-07-28: (arguments, headers sent, the error code or None for success).
RAW = [
    ({"region": "us-west1"}, {"Mcp-Param-Region": "us-west1"}, None),
    ({"region": "us-west1"}, {"Mcp-Param-Region": "  us-west1  "}, None),  # OWS is no part
    ({"region": "Hello"}, {"mcp-param-region": "=?base64?SGVsbG8=?="}, None),
    ({"region": "r", "shard": 42}, {"Mcp-Param-Region": "r", "Mcp-Param-Shard": "42.0"}, None),
    ({"region": "us"}, {}, -32020),
    ({"region": "us"}, {"Mcp-Param-Region": "eu"}, -32020),
    ({"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVsbG8?="}, -32020),
    ({"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}, -32020),
    ({"region": "r"}, {"Mcp-Param-Region": "r", "Mcp-Param-Shard": "1"}, -32020),
    ({"region": "é"}, {"Mcp-Param-Region": "é".encode().decode("latin-1")}, -32020),
]


def post_raw(base: str, message: dict, headers: dict[str, str]) -> tuple[int, bytes]:
    """POST with http.client, which sends header values as given (whitespace, Latin-1)."""
    url = urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        body = json.dumps(message).encode()
        connection.request("POST", "/mcp", body, {**headers, "Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["gunicorn", "uvicorn"])
def test_each_refusal_over_raw_http_on_both_servers(kind):
    client = MCPClient(protocol_version=MODERN)
    with serve(kind) as base:
        for arguments, sent, code in RAW:
            message = client.message("tools/call", {"name": FIXTURE, "arguments": arguments})
            status, body = post_raw(base, message, {**client.headers_for(message), **sent})
            validate_exchange(MODERN, message, status, body)
            answer = json.loads(body)
            if code is None:
                assert answer["result"]["isError"] is False, (sent, answer)
            else:
                assert (status, answer["error"]["code"]) == (400, code), sent


@pytest.mark.e2e
def test_an_argument_header_sent_twice_is_refused_under_asgi():
    # Two Mcp-Param-Region headers: a proxy reading the first would route on "us", while
    # a reader of both sees "us,eu". uvicorn hands Django the raw headers, so the endpoint
    # tells; WSGI servers join them with a comma first (docs/protocol.md).
    client = MCPClient(protocol_version=MODERN)
    message = client.message("tools/call", {"name": FIXTURE, "arguments": {"region": "us,eu"}})
    with serve("uvicorn") as base:
        url = urlsplit(base)
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        try:
            body = json.dumps(message).encode()
            connection.putrequest("POST", "/mcp")
            headers = [*client.headers_for(message).items(), ("Content-Type", "application/json")]
            headers += [("Content-Length", str(len(body)))]
            headers += [("Mcp-Param-Region", "us"), ("Mcp-Param-Region", "eu")]
            for name, value in headers:
                connection.putheader(name, value)
            connection.endheaders(body)
            response = connection.getresponse()
            status, answer = response.status, response.read()
        finally:
            connection.close()
    validate_exchange(MODERN, message, status, answer)
    error = json.loads(answer)["error"]
    assert (status, error["code"]) == (400, -32020)
    assert error["message"].endswith("Mcp-Param-Region header is sent more than once")
