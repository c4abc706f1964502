"""Input requests through /mcp: ask, answer, retry (docs/input.md).

Every exchange is checked against the 2026-07-28 schema as it crossed the wire.
"""

from __future__ import annotations

import json
import random
from unittest import mock

import pytest
from django.core import signing
from django.test import override_settings

from mcp_tools import InputUnavailable, elicit, request_input
from mcp_tools.inputs.request_state import SALT
from mcp_tools.models import ToolCall
from mcp_tools.signals import tool_called
from mcp_tools.test import MCPClient
from tests.helpers import MODERN
from tests.testapp.models import Entry
from tests.testapp.views import ASK_RUNS
from tests.wire import validate_exchange, validate_stream

pytestmark = pytest.mark.django_db

EVERYTHING = {"elicitation": {}, "sampling": {}, "roots": {}}
NAME = {"action": "accept", "content": {"name": "Alice"}}
BLUE = {"action": "accept", "content": {"color": "blue"}}
SAMPLED = {
    "role": "assistant",
    "content": {"type": "text", "text": "Hello there!"},
    "model": "test-model",
    "stopReason": "endTurn",
}
ROOTS = {"roots": [{"uri": "file:///srv/project", "name": "Project"}]}
UNAVAILABLE = "This tool needs input from the user, which this client cannot provide"
UNASKABLE = "This tool needs the user's confirmation, which this client cannot ask for"


def client_for(user, capabilities=None):
    return MCPClient(
        headers={"Authorization": f"Token {user.token}"},
        protocol_version=MODERN,
        client_capabilities=EVERYTHING if capabilities is None else capabilities,
    )


@pytest.fixture
def asking(alice):
    """alice's 2026-07-28 client, declaring elicitation, sampling and roots."""
    return client_for(alice)


@pytest.fixture(autouse=True)
def fresh_runs():
    ASK_RUNS.clear()
    yield
    ASK_RUNS.clear()


def call(client, name, arguments=None, **params):
    """Send one tools/call; return (status, payload) after checking it on the wire."""
    body = {"name": name, **params}
    if arguments is not None:
        body["arguments"] = arguments
    message = client.message("tools/call", body)
    response = client.send(message)
    validate_exchange(MODERN, message, response.status_code, response.content)
    return response.status_code, json.loads(response.content)


def result(client, name, arguments=None, **params):
    status, payload = call(client, name, arguments, **params)
    assert status == 200 and "result" in payload, payload
    return payload["result"]


def error(client, name, arguments=None, **params):
    status, payload = call(client, name, arguments, **params)
    assert "error" in payload, payload
    return status, payload["error"]


def texts(answer):
    return [block["text"] for block in answer["content"]]


# Asking and answering --------------------------------------------------------------------


def test_an_elicitation_asks_then_the_retry_answers(asking):
    first = result(asking, "test_input_required_result_elicitation")
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {
        "user_name": {
            "method": "elicitation/create",
            "params": {
                "message": "What is your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            },
        }
    }
    assert isinstance(first["requestState"], str)
    done = result(
        asking,
        "test_input_required_result_elicitation",
        inputResponses={"user_name": NAME},
        requestState=first["requestState"],
    )
    assert done["resultType"] == "complete"
    assert texts(done) == ["Hello, Alice!"]


def test_several_asks_of_each_kind_go_in_one_round(asking):
    first = result(asking, "test_input_required_result_multiple_inputs")
    methods = {key: asked["method"] for key, asked in first["inputRequests"].items()}
    assert methods == {
        "user_name": "elicitation/create",
        "greeting": "sampling/createMessage",
        "client_roots": "roots/list",
    }
    done = result(
        asking,
        "test_input_required_result_multiple_inputs",
        inputResponses={"user_name": NAME, "greeting": SAMPLED, "client_roots": ROOTS},
        requestState=first["requestState"],
    )
    assert texts(done) == ["Hello there! Alice (1 roots)"]


def test_sampling_and_roots_answers_reach_the_view(asking):
    sampled = result(asking, "test_input_required_result_sampling")
    assert sampled["inputRequests"]["capital_question"]["params"]["maxTokens"] == 100
    done = result(
        asking,
        "test_input_required_result_sampling",
        inputResponses={"capital_question": SAMPLED},
        requestState=sampled["requestState"],
    )
    assert texts(done) == ["Hello there!"]
    listed = result(asking, "test_input_required_result_list_roots")
    assert listed["inputRequests"] == {"client_roots": {"method": "roots/list", "params": {}}}
    done = result(
        asking, "test_input_required_result_list_roots", inputResponses={"client_roots": ROOTS}
    )
    assert texts(done) == ["Roots: file:///srv/project"]


def test_each_round_runs_the_view_again_and_the_state_carries_earlier_answers(asking):
    first = result(asking, "ask_word", {"word": "hello"})
    assert list(first["inputRequests"]) == ["name"]
    second = result(
        asking,
        "ask_word",
        {"word": "hello"},
        inputResponses={"name": NAME},
        requestState=first["requestState"],
    )
    assert list(second["inputRequests"]) == ["color"]
    assert second["requestState"] != first["requestState"]
    # The third round sends only the colour: the name comes back in the signed state.
    done = result(
        asking,
        "ask_word",
        {"word": "hello"},
        inputResponses={"color": BLUE},
        requestState=second["requestState"],
    )
    assert done["structuredContent"] == {
        "word": "hello",
        "name": "Alice",
        "color": "blue",
        "entries": 3,
    }
    # The re-run rule: the view ran once per round, and so did the code before its asks.
    assert ASK_RUNS == ["hello", "hello", "hello"]


def test_under_atomic_requests_what_a_view_wrote_before_the_ask_is_rolled_back(
    asking, atomic_requests
):
    first = result(asking, "ask_word", {"word": "hi"})
    assert Entry.objects.count() == 0
    done = result(
        asking,
        "ask_word",
        {"word": "hi"},
        inputResponses={"name": NAME, "color": BLUE},
        requestState=first["requestState"],
    )
    assert done["structuredContent"]["entries"] == 1
    assert Entry.objects.count() == 1


def test_missing_wrong_and_unusable_answers_are_asked_again(asking):
    wrong_key = result(
        asking, "test_input_required_result_elicitation", inputResponses={"wrong_key": NAME}
    )
    assert list(wrong_key["inputRequests"]) == ["user_name"]
    wrong_kind = result(
        asking, "test_input_required_result_elicitation", inputResponses={"user_name": ROOTS}
    )
    assert list(wrong_kind["inputRequests"]) == ["user_name"]
    # Accepted, but without the field the form requires.
    incomplete = {"action": "accept", "content": {"nickname": "Al"}}
    off_form = result(
        asking, "test_input_required_result_elicitation", inputResponses={"user_name": incomplete}
    )
    assert list(off_form["inputRequests"]) == ["user_name"]
    # An answer outside an enum.
    green = {"action": "accept", "content": {"color": "green"}}
    second = result(
        asking, "ask_word", {"word": "w"}, inputResponses={"name": NAME, "color": green}
    )
    assert list(second["inputRequests"]) == ["color"]


def test_extra_answers_are_ignored_and_never_carried(asking):
    first = result(
        asking,
        "ask_word",
        {"word": "x"},
        inputResponses={"name": NAME, "extra": {"action": "accept", "content": {"foo": "bar"}}},
    )
    assert list(first["inputRequests"]) == ["color"]
    carried = signing.loads(first["requestState"], salt=SALT)
    assert carried["answers"] == {"name": NAME}


def test_a_declined_elicitation_reaches_the_view(asking):
    done = result(
        asking, "ask_word", {"word": "no"}, inputResponses={"name": {"action": "decline"}}
    )
    assert done["structuredContent"] == {"word": "no", "name": None, "action": "decline"}


def test_a_streamed_call_ends_its_stream_with_the_input_request(asking):
    message = asking.message(
        "tools/call", {"name": "test_streaming_elicitation", "_meta": {"progressToken": "p1"}}
    )
    response = asking.send(message)
    assert response["Content-Type"] == "text/event-stream"
    body = b"".join(response.streaming_content)
    progress, answer = validate_stream(MODERN, message, body)
    assert progress["method"] == "notifications/progress"
    assert answer["result"]["resultType"] == "input_required"
    assert list(answer["result"]["inputRequests"]) == ["user_name"]


# Clients that can't answer ---------------------------------------------------------------


def test_an_undeclared_capability_answers_32021_with_what_is_required(alice):
    status, failure = error(client_for(alice, {}), "test_missing_capability")
    assert status == 400
    assert failure == {
        "code": -32021,
        "message": "Missing required client capability: sampling",
        "data": {"requiredCapabilities": {"sampling": {}}},
    }


def test_a_view_that_catches_input_unavailable_asks_for_what_the_client_can_give(alice):
    first = result(client_for(alice, {"sampling": {}}), "test_input_required_result_capabilities")
    assert {asked["method"] for asked in first["inputRequests"].values()} == {
        "sampling/createMessage"
    }


def test_the_handshake_era_raises_input_unavailable(mcp):
    answer = mcp.call_tool("test_input_required_result_elicitation")
    assert answer == {"content": [{"type": "text", "text": UNAVAILABLE}], "isError": True}


def test_a_handshake_era_confirmation_a_client_cannot_answer_is_refused(mcp):
    # MCPClient without on_request answers the stream's elicitation/create with -32601.
    entry = Entry.objects.create(label="old")
    answer = mcp.call_tool("entry_remove", {"pk": entry.pk})
    assert answer == {
        "content": [{"type": "text", "text": UNASKABLE}],
        "isError": True,
    }
    assert Entry.objects.filter(pk=entry.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_handshake_era_confirmation_a_client_cannot_answer_runs_when_so_configured(mcp):
    entry = Entry.objects.create(label="old")
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "CONFIRM_UNASKABLE": "run"}):
        answer = mcp.call_tool("entry_remove", {"pk": entry.pk})
    assert answer["isError"] is False
    assert not Entry.objects.filter(pk=entry.pk).exists()


def test_outside_a_tool_call_an_ask_is_a_plain_400(http):
    response = http.get("/c/input/elicitation/")
    assert response.status_code == 400
    assert response.json() == {"detail": UNAVAILABLE}


def test_the_asks_check_what_a_view_passes(rf):
    with pytest.raises(ValueError, match="method 'tools/call'"):
        request_input(rf.get("/"), {"k": {"method": "tools/call", "params": {}}})
    with pytest.raises(ValueError, match="reserved"):
        request_input(rf.get("/"), {"django-mcp-tools/x": {"method": "roots/list"}})
    with pytest.raises(ValueError, match="requestedSchema"):
        elicit(rf.get("/"), "k", "Name?", {"type": "string"})
    with pytest.raises(InputUnavailable):
        elicit(rf.get("/"), "k", "Name?", {"type": "object", "properties": {}})


# Signals and the call log ----------------------------------------------------------------


def test_tool_called_reports_each_round_and_the_call_log_keeps_the_complete_one(asking):
    seen = []

    def receiver(sender, **kwargs):
        seen.append((kwargs["result_type"], kwargs["is_error"]))

    tool_called.connect(receiver)
    try:
        with override_settings(MCP_TOOLS={"CACHE": "mcp", "CALL_LOG": "all"}):
            first = result(asking, "test_input_required_result_elicitation")
            result(
                asking,
                "test_input_required_result_elicitation",
                inputResponses={"user_name": NAME},
                requestState=first["requestState"],
            )
    finally:
        tool_called.disconnect(receiver)
    assert seen == [("input_required", False), ("complete", False)]
    assert list(ToolCall.objects.values_list("tool_name", flat=True)) == [
        "test_input_required_result_elicitation"
    ]


# Bad input: a clear error, never a 500, never the view run ------------------------------


@pytest.fixture
def asked(asking):
    """The first round of ask_word(word=w): its input-required result, the view run once."""
    first = result(asking, "ask_word", {"word": "w"})
    assert ASK_RUNS == ["w"]
    return first


def refused(client, state, *, name="ask_word", arguments=None, responses=None):
    """Retry with ``state``; return the -32602 message, checking the view did not run."""
    runs = list(ASK_RUNS)
    params = {"requestState": state, "inputResponses": responses or {"name": NAME}}
    status, failure = error(
        client, name, {"word": "w"} if arguments is None else arguments, **params
    )
    assert status == 200 and failure["code"] == -32602, failure
    assert runs == ASK_RUNS
    return failure["message"]


def test_a_forged_truncated_or_tampered_state_is_refused(asking, asked):
    state = asked["requestState"]
    not_ours = "Invalid params: requestState was not issued by this server"
    assert refused(asking, "forged-state") == not_ours
    assert refused(asking, state[:-5]) == not_ours
    middle = len(state) // 2
    tampered = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1 :]
    assert refused(asking, tampered) == not_ours
    assert refused(asking, state + "-TAMPERED") == not_ours
    # Signed with this server's key, but not by this package (another salt): refused too.
    assert refused(asking, signing.dumps({"v": 1, "tool": "ask_word"})) == not_ours


def test_a_state_replayed_for_another_tool_or_other_arguments_is_refused(asking, asked):
    state = asked["requestState"]
    message = refused(asking, state, name="test_input_required_result_elicitation", arguments={})
    assert message == "Invalid params: requestState was issued for another tool"
    assert refused(asking, state, arguments={"word": "other"}) == (
        "Invalid params: requestState was issued for other arguments"
    )


def test_a_state_replayed_by_another_user_is_refused(asked, bob):
    assert refused(client_for(bob), asked["requestState"]) == (
        "Invalid params: requestState was issued to another caller"
    )


def test_an_expired_state_is_refused(asking, asked):
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "INPUT_STATE_MAX_AGE": 60}):
        issued = signing.loads(asked["requestState"], salt=SALT)
        with mock.patch("django.core.signing.time.time", return_value=1_000_000_000):
            old = signing.dumps(issued, salt=SALT, compress=True)
        assert refused(asking, old) == (
            "Invalid params: requestState has expired: call the tool again without it"
        )


@pytest.mark.parametrize("state", [None, 42, ["a"], {"s": 1}])
def test_a_state_that_is_not_a_string_is_refused(asking, asked, state):
    assert refused(asking, state) == "Invalid params: requestState must be a string"


def test_a_huge_state_is_refused_before_it_is_checked(asking, asked):
    with mock.patch("django.core.signing.loads") as loads:
        message = refused(asking, "x" * (64 * 1024 + 1))
    assert message == "Invalid params: requestState was not issued by this server"
    loads.assert_not_called()


@pytest.mark.parametrize(
    ("responses", "message"),
    [
        (None, "inputResponses must be an object"),
        (12345, "inputResponses must be an object"),
        ([NAME], "inputResponses must be an object"),
        (
            {"name": 12345},
            "inputResponses['name'] must be an elicitation, sampling or roots result",
        ),
        (
            {"name": {"foo": 1}},
            "inputResponses['name'] must be an elicitation, sampling or roots result",
        ),
        (
            {"name": {"action": "maybe"}},
            "inputResponses['name'] must be an elicitation, sampling or roots result",
        ),
        (
            {"name": {"action": "accept", "content": {"a": {"b": 1}}}},
            "inputResponses['name'] must be an elicitation, sampling or roots result",
        ),
        (
            {"name": {"roots": [{"name": "no uri"}]}},
            "inputResponses['name'] must be an elicitation, sampling or roots result",
        ),
    ],
)
def test_wrong_shaped_input_responses_are_refused(asking, responses, message):
    status, payload = call(asking, "ask_word", {"word": "w"}, inputResponses=responses)
    assert status == 200
    assert payload["error"] == {"code": -32602, "message": f"Invalid params: {message}"}
    assert ASK_RUNS == []


def test_huge_input_responses_are_refused(asking):
    huge = {"action": "accept", "content": {"name": "A" * (64 * 1024)}}
    status, failure = error(asking, "ask_word", {"word": "w"}, inputResponses={"name": huge})
    assert failure == {
        "code": -32602,
        "message": "Invalid params: inputResponses exceed 65536 bytes",
    }
    assert ASK_RUNS == []


def test_answers_that_would_make_the_state_too_large_are_refused(asking):
    # 350 random ideographs: 1,105 bytes of inputResponses, about 1,500 once signed.
    pick = random.Random(15).randrange
    text = "".join(chr(0x4E00 + pick(20000)) for _ in range(350))
    name = {"action": "accept", "content": {"name": text}}
    with override_settings(MCP_TOOLS={"CACHE": "mcp", "MAX_INPUT_BYTES": 1400}):
        status, failure = error(asking, "ask_word", {"word": "w"}, inputResponses={"name": name})
    assert failure == {
        "code": -32602,
        "message": "Invalid params: the answers of this call exceed 1400 bytes",
    }
    assert ASK_RUNS == ["w"]  # the view ran and asked; its answers could not be carried


def test_a_long_input_responses_key_is_clipped_in_the_refusal(asking):
    key = "k" * 200_000
    status, failure = error(asking, "ask_word", {"word": "w"}, inputResponses={key: "nope"})
    assert status == 200 and failure["code"] == -32602
    assert len(failure["message"]) < 300
    assert failure["message"].endswith("'] must be an elicitation, sampling or roots result")
