"""The handshake era's requests to the client: ids bound to the caller, responses relayed
through the shared cache, refused when they answer nothing of theirs (docs/input.md)."""

from __future__ import annotations

import threading
import time
from contextlib import nullcontext

import pytest
from django.core.cache import caches
from django.test import override_settings

from mcp_tools import ClientDisconnected
from mcp_tools.auth.caller import caller_key
from mcp_tools.core.holds import holds
from mcp_tools.endpoint.streaming import Channel, Notifier, StreamSpec
from mcp_tools.inputs import relay as client_requests
from mcp_tools.inputs.asks import Busy, NoAnswer
from mcp_tools.protocol.versions import Era
from mcp_tools.test import MCPClient
from tests.testapp.models import Entry
from tests.testapp.views import STREAM_RUNS
from tests.wire import sse_messages, validate_exchange, validator

pytestmark = pytest.mark.django_db

UNAVAILABLE = "This tool needs input from the user, which this client cannot provide"
UNASKABLE = "This tool needs the user's confirmation, which this client cannot ask for"
ELICIT = {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {}}}


def key_of(user):
    return f"auth.user:{user.pk}"


def post_response(client, message):
    """POST a response as a client does; return the status and the body (checked)."""
    message = {"jsonrpc": "2.0", **message}
    response = client.send(message)
    if response.status_code == 202:
        validate_exchange("2025-11-25", message, 202, response.content)
        return 202, None
    # Answered as every fault of a request without a request to name: id null, and an Error.
    validator("2025-11-25", "Error").validate(response.json()["error"])
    return response.status_code, response.json()


def test_a_response_reaches_the_request_it_answers(alice):
    request_id = client_requests.open_request(key_of(alice), 5)
    assert request_id.startswith(client_requests.ID_PREFIX)
    client_requests.deliver({"id": request_id, "result": {"action": "decline"}}, key_of(alice))
    answer = client_requests.wait(request_id, time.monotonic() + 1, threading.Event())
    assert answer == {"result": {"action": "decline"}}
    client_requests.close_request(request_id)


def test_a_response_posted_to_another_process_arrives_through_the_shared_cache(alice):
    # No in-process wake-up: the waiter finds the response by reading the cache.
    request_id = client_requests.open_request(key_of(alice), 5)
    client_requests._waiting.pop(request_id)
    found = []
    waiter = threading.Thread(
        target=lambda: found.append(
            client_requests.wait(request_id, time.monotonic() + 3, threading.Event())
        )
    )
    waiter.start()
    time.sleep(0.1)
    caches["mcp"].add(client_requests.PREFIX + request_id + ":response", {"result": {"roots": []}})
    waiter.join(5)
    assert found == [{"result": {"roots": []}}]
    client_requests.close_request(request_id)


def test_waiting_ends_at_the_deadline_or_when_the_stream_stops(alice):
    request_id = client_requests.open_request(key_of(alice), 5)
    started = time.monotonic()
    assert client_requests.wait(request_id, started + 0.2, threading.Event()) is None
    assert 0.2 <= time.monotonic() - started < 1
    stopped = threading.Event()
    stopped.set()
    assert client_requests.wait(request_id, time.monotonic() + 5, stopped) is None
    client_requests.close_request(request_id)


REFUSED = {"code": -32600, "message": client_requests.REFUSED}


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("unknown", REFUSED),
        ("not ours", REFUSED),
        ("an integer id", REFUSED),
        ("a long id", REFUSED),
        ("another caller's", REFUSED),
        ("answered twice", REFUSED),
        ("expired", REFUSED),
        (
            "a result that is no object",
            {"code": -32602, "message": "Invalid params: result must be an object"},
        ),
        (
            "a result too large",
            {"code": -32602, "message": "Invalid params: the result exceeds 65536 bytes"},
        ),
    ],
)
def test_a_response_to_nothing_of_the_caller_s_is_refused_with_400(alice, bob, case, expected):
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    owner = bob if case == "another caller's" else alice
    request_id = client_requests.open_request(key_of(owner), 5)
    result = {"action": "decline"}
    message = {"id": request_id, "result": result}
    if case == "unknown":
        message["id"] = client_requests.ID_PREFIX + "n" * 22
    elif case == "not ours":
        message["id"] = "some-id"
    elif case == "an integer id":
        message["id"] = 7
    elif case == "a long id":
        message["id"] = request_id + "x" * 300
    elif case == "answered twice":
        assert post_response(client, message) == (202, None)
    elif case == "expired":
        client_requests.close_request(request_id)
    elif case == "a result that is no object":
        message["result"] = ["accept"]
    elif case == "a result too large":
        message["result"] = {"action": "accept", "content": {"text": "x" * 70_000}}
    status, body = post_response(client, message)
    assert status == 400
    assert body == {"jsonrpc": "2.0", "id": None, "error": expected}
    client_requests.close_request(request_id)


def test_the_caller_s_own_response_is_taken_with_202(alice):
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    request_id = client_requests.open_request(caller_key_of(alice), 5)
    assert post_response(
        client, {"id": request_id, "error": {"code": -32601, "message": "no"}}
    ) == (
        202,
        None,
    )
    answer = client_requests.wait(request_id, time.monotonic() + 1, threading.Event())
    assert answer == {"error": {"code": -32601, "message": "no"}}
    client_requests.close_request(request_id)


def caller_key_of(user):
    from mcp_tools.auth.caller import Caller

    return caller_key(Caller(user=user, auth=None, authentication_classes=()))


def test_the_key_of_a_caller_is_its_model_and_primary_key(alice):
    assert caller_key_of(alice) == key_of(alice)


# Notifier.ask: the stream's side ----------------------------------------------------------


def make_notifier(version="2025-11-25", call_timeout=10.0, holder="anonymous"):
    era = Era(version, modern=version == "2026-07-28")
    spec = StreamSpec(
        request_id=1,
        era=era,
        progress_token=None,
        logger="t",
        timeout=call_timeout,
        holder=holder,
    )
    return Notifier(Channel(), spec)


def test_an_ask_sends_a_request_on_the_stream_and_returns_the_response():
    notifier = make_notifier()
    replies = []

    def client():
        event = notifier.channel.get(5)
        [request] = sse_messages(f"data: {event.data}\n\n".encode())
        replies.append(request)
        client_requests.deliver({"id": request["id"], "result": {"action": "cancel"}}, "anonymous")

    thread = threading.Thread(target=client)
    thread.start()
    assert notifier.ask({"k": ELICIT}) == {"k": {"result": {"action": "cancel"}}}
    thread.join(5)
    [request] = replies
    assert request == {"jsonrpc": "2.0", "id": request["id"], **ELICIT}


def test_an_ask_nobody_answers_raises_no_answer_after_input_timeout_and_keeps_call_timeout():
    notifier = make_notifier(call_timeout=10)
    left = notifier.deadline - time.monotonic()
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "INPUT_TIMEOUT": 0.3}):
        started = time.monotonic()
        with pytest.raises(NoAnswer, match=r"within INPUT_TIMEOUT \(0.3 s\)"):
            notifier.ask({"k": ELICIT})
    assert time.monotonic() - started >= 0.3
    # The wait was the user's: the view has as long left to run as before it asked.
    assert notifier.deadline - time.monotonic() == pytest.approx(left, abs=0.1)


def test_an_ask_ends_with_client_disconnected_once_the_client_left():
    notifier = make_notifier()
    threading.Timer(0.2, notifier.close).start()
    with pytest.raises(ClientDisconnected):
        notifier.ask({"k": ELICIT})


MULTIPLE_CHOICE = {
    "method": "elicitation/create",
    "params": {
        "message": "Pick",
        "requestedSchema": {
            "type": "object",
            "properties": {"picks": {"type": "array", "items": {"enum": ["a", "b"]}}},
        },
    },
}


@pytest.mark.parametrize(
    ("version", "request_", "can"),
    [
        ("2024-11-05", ELICIT, False),
        ("2025-03-26", ELICIT, False),
        ("2025-06-18", ELICIT, True),
        ("2024-11-05", {"method": "roots/list", "params": {}}, True),
        ("2025-06-18", {"method": "elicitation/create", "params": {"mode": "url"}}, False),
        ("2025-11-25", {"method": "elicitation/create", "params": {"mode": "url"}}, True),
        ("2025-06-18", {"method": "sampling/createMessage", "params": {"tools": []}}, False),
        # A multiple choice (SEP-1330: an array property) is a 2025-11-25 form.
        ("2025-06-18", MULTIPLE_CHOICE, False),
        ("2025-11-25", MULTIPLE_CHOICE, True),
        ("2026-07-28", ELICIT, False),  # asks by input-required results instead
    ],
)
def test_what_a_stream_can_ask_depends_on_the_version(version, request_, can):
    assert make_notifier(version).can_ask(request_) is can


# Through the endpoint, with MCPClient answering the stream --------------------------------


def test_mcp_client_answers_the_asks_of_a_stream_and_the_view_runs_once(alice):
    STREAM_RUNS.clear()
    asked = []

    def answer(method, params):
        asked.append((method, params["message"]))
        field = next(iter(params["requestedSchema"]["properties"]))
        return {"action": "accept", "content": {field: {"name": "Ann", "color": "red"}[field]}}

    client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, on_request=answer)
    done = client.call_tool("ask_on_stream", {"word": "yo"})
    assert done["structuredContent"] == {"word": "yo", "name": "Ann", "color": "red", "runs": 1}
    assert asked == [("elicitation/create", "Who says yo?"), ("elicitation/create", "Your colour?")]


def test_an_answer_that_does_not_fit_is_asked_again(alice):
    STREAM_RUNS.clear()
    answers = iter(
        [
            {"action": "accept", "content": {"nom": "Ann"}},  # not the schema: asked again
            {"action": "accept", "content": {"name": "Ann"}},
            {"action": "accept", "content": {"color": "red"}},
        ]
    )
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"},
        on_request=lambda method, params: next(answers),
    )
    done = client.call_tool("ask_on_stream", {"word": "yo"})
    assert done["structuredContent"]["name"] == "Ann"
    assert done["structuredContent"]["runs"] == 1


def test_a_client_that_answers_method_not_found_makes_the_ask_raise_input_unavailable(mcp):
    done = mcp.call_tool("ask_on_stream", {"word": "yo"})
    assert done == {"content": [{"type": "text", "text": UNAVAILABLE}], "isError": True}


def test_a_version_without_elicitation_is_refused_without_asking(alice):
    entry = Entry.objects.create(label="old")
    asked = []
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"},
        protocol_version="2025-03-26",
        on_request=lambda method, params: asked.append(method) or {"action": "accept"},
    )
    response = client.send(
        client.message("tools/call", {"name": "entry_remove", "arguments": {"pk": entry.pk}})
    )
    assert response["Content-Type"] == "application/json"  # nothing to stream
    assert response.json()["result"]["content"][0]["text"] == UNASKABLE
    assert asked == [] and Entry.objects.filter(pk=entry.pk).exists()


def test_a_client_that_does_not_read_sse_is_refused_without_asking(alice):
    entry = Entry.objects.create(label="old")
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    body = client.message("tools/call", {"name": "entry_remove", "arguments": {"pk": entry.pk}})
    response = client.send(body, headers={"Accept": "application/json"})
    assert response.json()["result"]["content"][0]["text"] == UNASKABLE
    assert Entry.objects.filter(pk=entry.pk).exists()


def test_an_operator_s_call_runs_a_confirmed_tool(alice, django_user_model):
    from django.core.management import call_command

    entry = Entry.objects.create(label="old")
    call_command("mcp_call", "entry_remove", "--user", "alice", "--args", f'{{"pk": {entry.pk}}}')
    assert not Entry.objects.filter(pk=entry.pk).exists()


def test_a_response_posted_at_2026_07_28_is_refused_and_the_ask_stays_open(alice):
    """2026-07-28 has no server-to-client requests: a response sent with its version header
    answers nothing there, even with the id of a handshake-era ask of the caller's."""
    request_id = client_requests.open_request(caller_key_of(alice), 5)
    modern = MCPClient(
        headers={"Authorization": f"Token {alice.token}"}, protocol_version="2026-07-28"
    )
    response = modern.send({"jsonrpc": "2.0", "id": request_id, "result": {"action": "cancel"}})
    assert response.status_code == 400
    error = response.json()["error"]
    validator("2026-07-28", "Error").validate(error)
    assert error["code"] == -32600 and "no response answers one" in error["message"]
    handshake = MCPClient(headers={"Authorization": f"Token {alice.token}"})
    assert post_response(handshake, {"id": request_id, "result": {"action": "cancel"}}) == (
        202,
        None,
    )
    client_requests.close_request(request_id)


# The held streams' budget (docs/deployment.md#held-streams) ----------------------------------

BUSY = (
    "This tool asked the user for input, and this server already holds as many unanswered "
    "questions as it allows (MAX_STREAMS_PER_CALLER: 1); try again once one is answered"
)
NOT_ASKED = (
    "Not confirmed: this server already holds as many unanswered questions as it allows "
    "(MAX_STREAMS_PER_CALLER: 1); try again once one is answered"
)


def answer_first_ask(notifier, answer):
    """Answer the first request on ``notifier``'s stream, as its client would."""
    event = notifier.channel.get(5)
    [request] = sse_messages(f"data: {event.data}\n\n".encode())
    client_requests.deliver({"id": request["id"], "result": answer}, "anonymous")


def test_an_ask_past_its_caller_s_share_is_refused_at_once_and_sends_nothing(settings):
    settings.MCP_TOOLS = {"CACHE": "mcp", "MAX_STREAMS_PER_CALLER": 1, "INPUT_TIMEOUT": 3}
    asking = make_notifier(holder="anonymous@10.0.0.1")
    ended = []

    def ask():
        try:
            asking.ask({"k": ELICIT})
        except ClientDisconnected as exc:
            ended.append(exc)

    waiting = threading.Thread(target=ask)
    waiting.start()
    assert asking.channel.get(5) is not None  # the first ask was sent, and waits
    assert holds.held("anonymous@10.0.0.1") == 1
    second = make_notifier(holder="anonymous@10.0.0.1")
    started = time.monotonic()
    with pytest.raises(Busy) as refused:
        second.ask({"k": ELICIT})
    assert time.monotonic() - started < 0.5
    assert str(refused.value.detail) == BUSY
    assert second.channel.get(0) is None
    # Another client (another address) has its own share.
    other = make_notifier(holder="anonymous@10.0.0.2")
    threading.Thread(target=answer_first_ask, args=(other, {"action": "decline"})).start()
    assert other.ask({"k": ELICIT}) == {"k": {"result": {"action": "decline"}}}
    asking.close()
    waiting.join(5)
    assert ended and holds.held() == 0


@pytest.mark.parametrize("end", ["answered", "timed out", "left"])
def test_an_ask_gives_its_hold_back_however_it_ends(settings, end):
    settings.MCP_TOOLS = {"CACHE": "mcp", "MAX_STREAMS_PER_CALLER": 1, "INPUT_TIMEOUT": 0.3}
    notifier = make_notifier()
    if end == "answered":
        threading.Thread(target=answer_first_ask, args=(notifier, {"action": "cancel"})).start()
    elif end == "left":
        threading.Timer(0.1, notifier.close).start()
    with pytest.raises((NoAnswer, ClientDisconnected)) if end != "answered" else nullcontext():
        notifier.ask({"k": ELICIT})
    assert holds.held() == 0
    # The share is free again for the caller's next ask.
    again = make_notifier()
    threading.Thread(target=answer_first_ask, args=(again, {"action": "cancel"})).start()
    assert again.ask({"k": ELICIT}) == {"k": {"result": {"action": "cancel"}}}


def test_a_view_whose_ask_is_refused_fails_at_once_with_the_bound_it_reached(alice, settings):
    settings.MCP_TOOLS = {"CACHE": "mcp", "MAX_STREAMS_PER_CALLER": 1}
    asked = []
    client = MCPClient(
        headers={"Authorization": f"Token {alice.token}"},
        on_request=lambda method, params: asked.append(method) or {"action": "accept"},
    )
    with holds.hold(key_of(alice)):  # alice's one question waits on another stream
        done = client.call_tool("ask_on_stream", {"word": "yo"})
    assert done == {"content": [{"type": "text", "text": BUSY}], "isError": True}
    assert asked == []


@pytest.mark.django_db(transaction=True)  # the confirmed view deletes on its stream's thread
def test_a_confirmation_past_the_budget_is_refused_whatever_confirm_unaskable_says(
    alice, bob, settings
):
    # The client could be asked: the server will not wait on it, and a destructive tool
    # never runs unconfirmed for that.
    settings.MCP_TOOLS = {"CACHE": "mcp", "MAX_STREAMS_PER_CALLER": 1, "CONFIRM_UNASKABLE": "run"}
    entry = Entry.objects.create(label="old")
    asked = []

    def answer(method, params):
        asked.append(method)
        return {"action": "accept"}

    alice_client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, on_request=answer)
    with holds.hold(key_of(alice)):
        started = time.monotonic()
        done = alice_client.call_tool("entry_remove", {"pk": entry.pk})
        assert time.monotonic() - started < 1
        assert done == {"content": [{"type": "text", "text": NOT_ASKED}], "isError": True}
        assert asked == [] and Entry.objects.filter(pk=entry.pk).exists()
        # Bob's share is his own: his confirmation is asked, and his call runs.
        bob_client = MCPClient(headers={"Authorization": f"Token {bob.token}"}, on_request=answer)
        done = bob_client.call_tool("entry_remove", {"pk": entry.pk})
    assert done["isError"] is False and asked == ["elicitation/create"]
    assert not Entry.objects.filter(pk=entry.pk).exists()
