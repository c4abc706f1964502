"""``subscriptions/listen`` and the handshake era's GET stream, through the endpoint: what a
listener hears, what it doesn't, and the held streams' budget (docs/subscriptions.md).

Every notification is validated against its version's schema. The tests are transactional:
a change is published when its transaction commits, and the watcher reads on a thread of its
own.
"""

from __future__ import annotations

import gc
import json
import threading
import time

import pytest
from django.contrib.auth.models import AnonymousUser, Group
from django.test import RequestFactory
from rest_framework.authtoken.models import Token

from mcp_tools.catalog.sync import sync_tools
from mcp_tools.core.holds import holds
from mcp_tools.models import ExposedTool, Prompt, Toolset
from mcp_tools.resources.stamps import resource_updated
from mcp_tools.resources.sync import sync_resources
from mcp_tools.subscriptions.watcher import watcher
from mcp_tools.test import MCPClient
from tests.subscriptions import urls
from tests.subscriptions.streams import EVENT_STREAM, THREADED, Stream, client, listen
from tests.wire import validate_notification as valid

pytestmark = [pytest.mark.urls("tests.subscriptions.urls"), pytest.mark.django_db(transaction=True)]

MODERN = "2026-07-28"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
EVERYTHING = {"toolsListChanged": True, "resourcesListChanged": True, "promptsListChanged": True}


@pytest.fixture(autouse=True)
def quick_polls(settings):
    """The watcher polls five times a second here: what a test waits for comes sooner."""
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "ADMIN_STATE_MAX_AGE": 0.2}


@pytest.fixture(autouse=True)
def rows():
    sync_tools(urls.tools, urlconf="tests.subscriptions.urls")
    sync_resources(urls.resources, urlconf="tests.subscriptions.urls")
    yield
    assert holds.held() == 0, "a stream was left held"


def wait_for_polls(count=2):
    """Wait until the watcher looked ``count`` more times (it saw what came before)."""
    start = watcher.polls
    deadline = time.monotonic() + 10
    while watcher.polls < start + count:
        assert time.monotonic() < deadline, "the watcher stopped polling"
        time.sleep(0.05)


def disable(name):
    row = ExposedTool.objects.get(name=name)
    row.enabled = False
    row.save()


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_a_threaded_server_says_its_lists_change_and_a_single_threaded_one_does_not(alice, version):
    threaded = client(alice, version).initialize()["capabilities"]
    assert threaded["tools"] == {"listChanged": True}
    assert threaded["resources"] == {"listChanged": True, "subscribe": True}
    assert threaded["prompts"] == {"listChanged": True}
    alone = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, protocol_version=version, mcp_path="/mcp"
    )
    capabilities = alone.initialize()["capabilities"]
    assert capabilities["tools"] == {"listChanged": False}
    assert capabilities["resources"] == {"listChanged": False, "subscribe": False}


def test_listen_acknowledges_first_then_tells_of_a_disabled_tool_and_an_updated_resource(alice):
    response, sent = listen(
        client(alice),
        {**EVERYTHING, "resourceSubscriptions": ["notes://1", "elsewhere://1"]},
    )
    assert response.status_code == 200
    assert response["Content-Type"] == EVENT_STREAM
    stream = Stream(response)
    try:
        ack = valid(MODERN, stream.next())
        assert ack == {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                # A URI no resource of this endpoint answers is left out, as the spec says
                # of what the server does not honour.
                "notifications": {**EVERYTHING, "resourceSubscriptions": ["notes://1"]},
                "_meta": {SUBSCRIPTION_ID: sent["id"]},
            },
        }
        disable("weather")
        changed = valid(MODERN, stream.next())
        assert changed == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {SUBSCRIPTION_ID: sent["id"]}},
        }
        resource_updated("notes://2")  # not followed: nothing
        resource_updated("notes://1")
        updated = valid(MODERN, stream.next())
        assert updated["method"] == "notifications/resources/updated"
        assert updated["params"]["uri"] == "notes://1"
        assert stream.quiet(0.5)
    finally:
        stream.close()


def test_a_change_hidden_from_the_caller_before_and_after_tells_it_nothing(alice):
    staff = Group.objects.create(name="staff")
    ExposedTool.objects.get(name="weather").allowed_groups.add(staff)
    stream = Stream(listen(client(alice), {"toolsListChanged": True})[0])
    try:
        stream.next()  # the acknowledgement
        row = ExposedTool.objects.get(name="weather")
        row.title = "The weather, for staff"
        row.save()  # alice sees weather neither before nor after: nothing for her
        wait_for_polls()
        assert stream.quiet(0.2)
        disable("note_list")
        assert stream.next()["method"] == "notifications/tools/list_changed"
    finally:
        stream.close()


def test_a_listener_hears_only_what_it_asked_for(alice):
    stream = Stream(listen(client(alice), {"promptsListChanged": True})[0])
    try:
        assert stream.next()["params"]["notifications"] == {"promptsListChanged": True}
        disable("weather")
        wait_for_polls()
        assert stream.quiet(0.2)
        Prompt.objects.create(name="plan", messages=[{"role": "user", "content": "Plan"}])
        changed = valid(MODERN, stream.next())
        assert changed["method"] == "notifications/prompts/list_changed"
    finally:
        stream.close()


def test_an_endpoint_of_tags_hears_of_its_own_tools_alone(alice):
    stream = Stream(listen(client(alice), EVERYTHING, path="/mcp/notes")[0])
    try:
        # It serves tools alone: resources and prompts are not honoured.
        assert stream.next()["params"]["notifications"] == {"toolsListChanged": True}
        disable("weather")  # not one of its tools
        wait_for_polls()
        assert stream.quiet(0.2)
        disable("note_list")
        assert stream.next()["method"] == "notifications/tools/list_changed"
    finally:
        stream.close()


def test_listeners_past_the_callers_share_are_refused_at_once(alice, bob, settings):
    carol = type(alice).objects.create_user("carol")
    carol.token = Token.objects.create(user=carol).key
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_STREAMS": 2, "MAX_STREAMS_PER_CALLER": 1}
    first = Stream(listen(client(alice), {"toolsListChanged": True})[0])
    others = []
    try:
        first.next()
        refused, sent = listen(client(alice), {"toolsListChanged": True})
        assert refused.status_code == 429
        assert refused["Retry-After"] == "15"
        answer = json.loads(refused.content)
        assert answer["id"] == sent["id"]
        assert answer["error"]["code"] == -32029
        assert "MAX_STREAMS_PER_CALLER: 1" in answer["error"]["message"]
        others.append(Stream(listen(client(bob), {"toolsListChanged": True})[0]))
        others[0].next()
        # Every held stream of the process is taken: a third caller is refused too.
        third = listen(client(carol), {"toolsListChanged": True})[0]
        assert third.status_code == 429
        assert "MAX_STREAMS: 2" in json.loads(third.content)["error"]["message"]
        # ... while a plain request still answers.
        assert client(bob).rpc("tools/list")["tools"]
    finally:
        first.close()
        for stream in others:
            stream.close()
    again = Stream(listen(client(alice), {"toolsListChanged": True})[0])
    again.next()
    again.close()


def test_a_single_threaded_server_serves_no_listener(alice):
    mcp = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, protocol_version=MODERN, mcp_path="/mcp"
    )
    response, _ = listen(mcp, {"toolsListChanged": True})
    assert response.status_code == 404
    assert json.loads(response.content)["error"]["code"] == -32601
    got = mcp.get("/mcp", headers={"Accept": EVENT_STREAM})
    assert (got.status_code, got["Allow"]) == (405, "POST")


@pytest.mark.parametrize(
    ("notifications", "message"),
    [
        (None, "notifications must be an object"),
        ({"toolsListChanged": "yes"}, "toolsListChanged must be a boolean"),
        ({"resourceSubscriptions": "notes://1"}, "must be an array of strings"),
        ({"resourceSubscriptions": ["notes://1"] * 101}, "at most 100"),
    ],
)
def test_a_listen_it_cant_take_is_refused_before_any_stream(alice, notifications, message):
    mcp = client(alice)
    sent = mcp.message("subscriptions/listen", {"notifications": notifications})
    response = mcp.send(sent)
    error = json.loads(response.content)["error"]
    assert error["code"] == -32602
    assert message in error["message"]
    assert holds.held() == 0


def get_stream(mcp, version="2025-06-18", **headers):
    return mcp.get(
        "/mcp", headers={"Accept": EVENT_STREAM, "MCP-Protocol-Version": version, **headers}
    )


def test_the_handshake_eras_get_stream_hears_lists_and_subscribed_resources(alice):
    version = "2025-06-18"
    mcp = client(alice, version)
    response = get_stream(mcp)
    assert (response.status_code, response["Content-Type"]) == (200, EVENT_STREAM)
    stream = Stream(response)
    try:
        assert mcp.rpc("resources/subscribe", {"uri": "notes://1"}) == {}
        # Updated at once: heard, whether or not the stream has read the caller's new set.
        resource_updated("notes://1")
        updated = valid(version, stream.next())
        assert updated == {
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": "notes://1"},  # no subscription id: no listen opened it
        }
        disable("weather")
        assert valid(version, stream.next())["method"] == "notifications/tools/list_changed"
        assert mcp.rpc("resources/unsubscribe", {"uri": "notes://1"}) == {}
        wait_for_polls()
        resource_updated("notes://1")
        wait_for_polls()
        assert stream.quiet(0.2)
    finally:
        stream.close()


def test_a_get_stream_hears_an_update_made_before_its_next_poll(alice):
    version = "2025-06-18"
    mcp = client(alice, version)
    stream = Stream(get_stream(mcp))
    try:
        wait_for_polls()  # the stream is followed, with nothing subscribed yet
        assert mcp.rpc("resources/subscribe", {"uri": "notes://1"}) == {}
        resource_updated("notes://1")  # at once: before the watcher reads the set again
        updated = valid(version, stream.next())
        assert updated["params"] == {"uri": "notes://1"}
    finally:
        stream.close()


def test_a_get_stream_is_refused_as_the_transport_says(alice):
    mcp = client(alice, "2025-06-18")
    modern = get_stream(mcp, MODERN)  # 2026-07-28 listens by POST
    assert (modern.status_code, modern["Allow"]) == (405, "POST")
    no_stream = mcp.get("/mcp", headers={"Accept": "application/json"})
    assert no_stream.status_code == 406
    foreign = get_stream(mcp, Origin="https://evil.example")
    assert foreign.status_code == 403
    stranger = MCPClient(headers={"Authorization": "Token nope"}, mcp_path="/mcp", **THREADED)
    assert get_stream(stranger).status_code == 401
    unsupported = get_stream(mcp, "1999-01-01")
    assert unsupported.status_code == 400
    assert holds.held() == 0


def test_a_resource_the_caller_cant_read_cant_be_subscribed_to(alice):
    mcp = client(alice, "2025-06-18")
    with pytest.raises(Exception) as refused:
        mcp.rpc("resources/subscribe", {"uri": "elsewhere://1"})
    assert refused.value.code == -32002
    # 2026-07-28 subscribes through listen alone.
    with pytest.raises(Exception) as gone:
        client(alice).rpc("resources/subscribe", {"uri": "notes://1"})
    assert gone.value.code == -32601


def test_a_toolsets_endpoint_hears_of_a_tool_added_to_it_and_then_of_that_tools_change(alice):
    toolset = Toolset.objects.create(name="reading")
    toolset.tools.add(ExposedTool.objects.get(name="note_list"))
    stream = Stream(listen(client(alice), {"toolsListChanged": True}, "/mcp/toolsets/reading")[0])
    try:
        stream.next()
        toolset.tools.add(ExposedTool.objects.get(name="weather"))
        assert stream.next()["method"] == "notifications/tools/list_changed"
        disable("weather")  # not in the toolset when the stream opened: heard all the same
        assert stream.next()["method"] == "notifications/tools/list_changed"
    finally:
        stream.close()


def test_a_listen_whose_client_cant_read_a_stream_is_not_acceptable(alice):
    mcp = client(alice)
    sent = mcp.message("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    response = mcp.send(sent, headers={"Accept": "application/json"})
    assert response.status_code == 406
    assert json.loads(response.content)["id"] == sent["id"]
    assert holds.held() == 0


def test_a_listener_response_dropped_unsent_gives_its_stream_back(alice):
    response, _ = listen(client(alice), {"toolsListChanged": True})
    assert holds.held() == 1 and len(watcher.listeners()) == 1
    del response  # never iterated nor closed: Django dropped it (its client left first)
    gc.collect()
    assert holds.held() == 0 and watcher.listeners() == []


def test_an_anonymous_subscriber_is_its_address_never_a_header_it_sends(alice):
    from mcp_tools.auth.caller import Caller
    from mcp_tools.subscriptions.subscribed import subscriber_of

    factory = RequestFactory()
    anonymous = Caller(user=AnonymousUser(), auth=None, authentication_classes=())
    first = factory.get("/mcp", REMOTE_ADDR="10.0.0.1")
    forged = factory.get("/mcp", REMOTE_ADDR="10.0.0.6", HTTP_X_FORWARDED_FOR="10.0.0.1")
    assert subscriber_of(first, anonymous) == "anonymous@10.0.0.1"
    assert subscriber_of(forged, anonymous) == "anonymous@10.0.0.6"
    token = Token.objects.get(user=alice)
    by_token = Caller(user=alice, auth=token, authentication_classes=())
    by_session = Caller(user=alice, auth=None, authentication_classes=())
    assert subscriber_of(first, by_token) != subscriber_of(first, by_session)


def test_a_get_stream_past_the_budget_is_405_as_the_transport_says_of_no_stream(
    alice, bob, settings
):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_STREAMS_PER_CALLER": 1}
    first = Stream(get_stream(client(alice, "2025-06-18")))
    try:
        refused = get_stream(client(alice, "2025-06-18"))
        # A client that finds no stream carries on without one; a 429 fails its connection.
        assert (refused.status_code, refused["Allow"]) == (405, "POST")
        assert "MAX_STREAMS_PER_CALLER: 1" in json.loads(refused.content)["error"]["message"]
        other = get_stream(client(bob, "2025-06-18"))
        assert other.status_code == 200
        other.close()
    finally:
        first.close()


def test_a_watcher_thread_that_is_gone_is_started_again_by_the_next_listener(alice):
    """The thread once died of an exception outside its guard (CI): every later listener
    of the process heard nothing, since none started another while one was named."""
    deadline = time.monotonic() + 5
    while watcher._thread is not None:  # the last test's thread ends by itself
        assert time.monotonic() < deadline
        time.sleep(0.05)
    dead = threading.Thread(target=lambda: None)
    dead.start()
    dead.join()
    watcher._thread = dead  # gone, yet named: as after the death
    stream = Stream(listen(client(alice), {"toolsListChanged": True})[0])
    try:
        stream.next()
        disable("weather")
        assert stream.next()["method"] == "notifications/tools/list_changed"
    finally:
        stream.close()
