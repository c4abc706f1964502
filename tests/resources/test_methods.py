"""resources/list, resources/templates/list and resources/read through the endpoint, in
every era, each answer validated against its version's schema (docs/resources.md)."""

from __future__ import annotations

import base64
import json

import pytest
from django.contrib.auth.models import Group

from mcp_tools.models import ExposedResource, ToolCall
from mcp_tools.protocol.versions import SUPPORTED_VERSIONS
from mcp_tools.resources.sync import sync_resources
from mcp_tools.test import MCPClient, MCPError
from tests.resources import urls
from tests.wire import validate_exchange

pytestmark = [pytest.mark.urls("tests.resources.urls"), pytest.mark.django_db]

MODERN = "2026-07-28"


def client(user, version=MODERN, path="/mcp"):
    return MCPClient(
        headers={"Authorization": f"Token {user.token}"}, mcp_path=path, protocol_version=version
    )


def exchange(mcp, method, params=None):
    """Send one request; validate what crossed the wire; return the parsed answer."""
    message = mcp.message(method, params)
    response = mcp.send(message)
    validate_exchange(mcp.protocol_version, message, response.status_code, response.content)
    return response, json.loads(response.content)


def restrict(name, group):
    sync_resources(urls.resources)
    row = ExposedResource.objects.get(name=name)
    row.allowed_groups.add(group)


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_era_lists_reads_and_refuses_an_unknown_uri_by_its_schema(alice, version):
    mcp = client(alice, version)
    if version != MODERN:
        mcp.initialize()
    _, listed = exchange(mcp, "resources/list")
    uris = [each["uri"] for each in listed["result"]["resources"]]
    assert uris == [
        "shop://banner",
        "site://api/report",
        "shop://moved",
        "shop://big",
        "shop://limited",
    ]  # not shop://staff: alice is no staff member
    _, templates = exchange(mcp, "resources/templates/list")
    assert templates["result"]["resourceTemplates"] == [
        {
            "uriTemplate": "orders://{pk}",
            "name": "order_detail",
            "title": "An order",
            "description": "One order by its number. Needs IsAuthenticated.",
            "mimeType": "application/json",
        }
    ]
    response, read = exchange(mcp, "resources/read", {"uri": "orders://2"})
    assert read["result"]["contents"] == [
        {"uri": "orders://2", "mimeType": "application/json", "text": '{"id":2,"title":"Cake"}'}
    ]
    assert response["Cache-Control"] == "private, no-store"
    _, missing = exchange(mcp, "resources/read", {"uri": "orders://99"})
    code = -32602 if version == MODERN else -32002
    assert missing["error"] == {
        "code": code,
        "message": "Resource not found: orders://99",
        "data": {"uri": "orders://99"},
    }
    if version == MODERN:  # the caching hints of 2026-07-28 (SEP-2549)
        assert listed["result"]["cacheScope"] == "private"
        assert read["result"]["cacheScope"] == "private"
        assert "ttlMs" in templates["result"]
    else:
        assert "cacheScope" not in listed["result"]


def test_binary_bodies_are_blobs_images_and_files_alike(alice):
    mcp = client(alice)
    banner = mcp.rpc("resources/read", {"uri": "shop://banner"})["contents"]
    assert banner == [
        {
            "uri": "shop://banner",
            "mimeType": "image/png",
            "blob": base64.b64encode(urls.PNG).decode(),
        }
    ]
    report = mcp.rpc("resources/read", {"uri": "site://api/report"})["contents"]
    assert report == [
        {
            "uri": "site://api/report",
            "mimeType": "application/pdf",
            "blob": base64.b64encode(urls.PDF).decode(),
        }
    ]


def test_the_capability_is_declared_where_resources_are_served(alice):
    modern = client(alice).discover()["capabilities"]
    assert modern["resources"] == {"listChanged": False, "subscribe": False}
    assert "resources" in client(alice, "2025-11-25").initialize()["capabilities"]


@pytest.mark.urls("tests.urls")
def test_an_endpoint_with_no_resource_declares_none(alice):
    mcp = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=MODERN)
    assert "resources" not in mcp.discover()["capabilities"]
    assert mcp.rpc("resources/list")["resources"] == []


@pytest.mark.parametrize("path", ["/mcp/tagged", "/mcp/toolset"])
def test_tagged_and_toolset_endpoints_serve_no_resources(alice, path):
    from mcp_tools.models import Toolset

    Toolset.objects.create(name="some", title="Some")
    mcp = client(alice, path=path)
    assert "resources" not in mcp.discover()["capabilities"]
    assert mcp.rpc("resources/list")["resources"] == []
    assert mcp.rpc("resources/templates/list")["resourceTemplates"] == []
    with pytest.raises(MCPError) as refused:
        mcp.rpc("resources/read", {"uri": "orders://1"})
    assert refused.value.code == -32602


def test_the_views_permissions_hide_and_refuse_as_for_tools(alice, bob):
    bob.is_staff = True
    bob.save()
    uris = [each["uri"] for each in client(bob).rpc("resources/list")["resources"]]
    assert "shop://staff" in uris
    assert client(bob).rpc("resources/read", {"uri": "shop://staff"})["contents"]
    urls.RAN.clear()
    with pytest.raises(MCPError) as refused:
        client(alice).rpc("resources/read", {"uri": "shop://staff"})
    assert refused.value.code == -32602
    assert "staff" not in urls.RAN  # asked before the view ran


def test_groups_are_checked_before_the_view_runs(alice, bob):
    staff = Group.objects.create(name="staff")
    bob.groups.add(staff)
    restrict("order_detail", staff)
    urls.RAN.clear()
    with pytest.raises(MCPError) as refused:
        client(alice).rpc("resources/read", {"uri": "orders://1"})
    assert refused.value.message == "Resource not found: orders://1"
    assert "order" not in urls.RAN
    assert client(alice).rpc("resources/templates/list")["resourceTemplates"] == []
    assert client(bob).rpc("resources/read", {"uri": "orders://1"})["contents"]
    assert urls.RAN["order"] == 1


def test_deleting_the_only_group_of_a_resource_hides_it_from_everyone(alice):
    staff = Group.objects.create(name="staff")
    alice.groups.add(staff)
    restrict("order_detail", staff)
    assert client(alice).rpc("resources/read", {"uri": "orders://1"})["contents"]
    staff.delete()
    assert ExposedResource.objects.get(name="order_detail").enabled is False
    with pytest.raises(MCPError):
        client(alice).rpc("resources/read", {"uri": "orders://1"})


def test_a_disabled_resource_is_neither_listed_nor_read(alice):
    sync_resources(urls.resources)
    row = ExposedResource.objects.get(name="banner")
    row.enabled = False
    row.save()
    uris = [each["uri"] for each in client(alice).rpc("resources/list")["resources"]]
    assert "shop://banner" not in uris
    with pytest.raises(MCPError):
        client(alice).rpc("resources/read", {"uri": "shop://banner"})


def test_a_redirect_is_an_error_and_not_followed(alice):
    with pytest.raises(MCPError) as refused:
        client(alice).rpc("resources/read", {"uri": "shop://moved"})
    assert refused.value.code == -32602
    assert refused.value.message == "Redirect to /api/elsewhere/ was not followed"


def test_max_response_bytes_bounds_a_read(alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_RESPONSE_BYTES": 1000}
    with pytest.raises(MCPError) as refused:
        client(alice).rpc("resources/read", {"uri": "shop://big"})
    assert refused.value.message == "Response too large: more than 1000 bytes"


def test_result_processors_and_redaction_apply_to_reads(alice, settings):
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "RESULT_PROCESSORS": ["mcp_tools.pipeline.processors.redact"],
        "REDACT_PATTERNS": ["s3cr3t"],
    }
    text = client(alice).rpc("resources/read", {"uri": "orders://1"})["contents"][0]["text"]
    assert text == '{"id":1,"title":"Tea","secret":"[redacted]"}'


def test_a_read_is_logged_as_a_resource_read(alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    client(alice).rpc("resources/read", {"uri": "orders://1"})
    row = ToolCall.objects.get()
    assert (row.kind, row.tool_name, row.outcome) == ("resource", "order_detail", "ok")


def test_a_throttled_read_is_logged_like_a_throttled_call(alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    from django.core.cache import cache

    cache.clear()
    mcp = client(alice)
    for _ in range(2):
        mcp.rpc("resources/read", {"uri": "shop://limited"})
    with pytest.raises(MCPError) as refused:
        mcp.rpc("resources/read", {"uri": "shop://limited"})
    # The view's own 429 is answered as the endpoint's throttles answer, its text kept.
    assert refused.value.code == -32029
    assert "Request was throttled" in refused.value.message
    last = ToolCall.objects.order_by("-pk").first()
    assert (last.kind, last.refusal) == ("resource", "throttled")


def test_the_endpoints_throttle_refuses_a_batchs_further_reads_and_logs_them(alice, settings):
    # The request counts once against the endpoint's own throttle (one a minute), with its
    # first read; each further read of its batch counts as a request: refused, and logged.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    from django.core.cache import cache

    cache.clear()
    urls.RAN.clear()
    mcp = client(alice, "2025-03-26", path="/mcp/throttled")  # the last era with batches
    batch = [mcp.message("resources/read", {"uri": "orders://1"}) for _ in range(3)]
    response = mcp.send(batch)
    answers = json.loads(response.content)
    assert [answer.get("error", {}).get("code") for answer in answers] == [None, -32029, -32029]
    assert urls.RAN["order"] == 1  # the refused reads never ran their view
    refused = ToolCall.objects.filter(refusal="throttled")
    assert [(row.kind, row.tool_name, row.outcome) for row in refused] == [
        ("resource", "order_detail", "refused")
    ] * 2


def test_a_read_leaves_a_shared_formatter_as_the_endpoint_gave_it(alice):
    # get_formatter() may return one instance for every call: a read formats a file's body
    # as a blob on a copy, so the endpoint's tool calls keep formatting theirs as before.
    assert urls.SHARED_FORMATTER.binary_as_resource is None
    (content,) = client(alice, path="/mcp/shared").rpc(
        "resources/read", {"uri": "site://api/report"}
    )["contents"]
    assert base64.b64decode(content["blob"]) == urls.PDF
    assert urls.SHARED_FORMATTER.binary_as_resource is None


def test_resources_are_no_tools(alice):
    assert client(alice).list_tools() == []


@pytest.mark.parametrize("version", ["2025-11-25", MODERN])
@pytest.mark.parametrize(
    "uri",
    ["orders://--5", "orders://%C2%B2", "orders://" + "9" * 5000, "orders://abc", "orders://3"],
)
def test_a_uri_the_view_cant_take_or_refuses_is_not_found(alice, version, uri):
    mcp = client(alice, version)
    if version != MODERN:
        mcp.initialize()
    response, answer = exchange(mcp, "resources/read", {"uri": uri})
    assert response.status_code == 200
    assert answer["error"]["code"] == (-32602 if version == MODERN else -32002)
    assert answer["error"]["message"].startswith("Resource not found: orders://")


def test_the_views_own_429_is_the_throttled_error(alice):
    _, answer = exchange(client(alice), "resources/read", {"uri": "orders://4"})
    assert answer["error"]["code"] == -32029


def test_a_hidden_read_is_logged_as_a_hidden_call_is(alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all"}
    _, answer = exchange(client(alice), "resources/read", {"uri": "shop://staff"})
    assert answer["error"]["code"] == -32602
    row = ToolCall.objects.get()
    assert (row.kind, row.tool_name, row.outcome, row.refusal) == (
        "resource",
        "staff_only",
        "refused",
        "hidden",
    )


def test_the_lists_page_with_cursors(alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "PAGE_SIZE": 2}
    mcp = client(alice)
    seen, cursor = [], None
    while True:
        _, answer = exchange(mcp, "resources/list", {"cursor": cursor} if cursor else None)
        result = answer["result"]
        assert len(result["resources"]) <= 2
        seen += [each["uri"] for each in result["resources"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert len(seen) == 5 == len(set(seen))
    _, bogus = exchange(mcp, "resources/list", {"cursor": "bogus"})
    assert bogus["error"]["code"] == -32602


def test_a_batch_holding_a_read_is_answered_private(alice):
    mcp = client(alice, "2025-03-26")
    batch = [mcp.message("ping", {}), mcp.message("resources/read", {"uri": "orders://1"})]
    answered = mcp.send(batch, headers={"MCP-Protocol-Version": "2025-03-26"})
    assert len(json.loads(answered.content)) == 2
    assert answered["Cache-Control"] == "private, no-store"
    pings = mcp.send([mcp.message("ping", {})], headers={"MCP-Protocol-Version": "2025-03-26"})
    assert "Cache-Control" not in pings
