"""``@mcp_prompt`` (``mcp_tools.prompts.decorators``): prompts in code, their arguments,
and the input they ask for through ``mcp_tools.inputs`` as a view does."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from mcp_tools import ToolError, elicit, mcp_prompt
from mcp_tools.models import Prompt
from mcp_tools.prompts.messages import Argument
from mcp_tools.prompts.registry import PromptRegistry

pytestmark = pytest.mark.django_db

ELICITING = {"elicitation": {}}
SCHEMA = {"type": "object", "properties": {"goal": {"type": "string"}}, "required": ["goal"]}


@pytest.fixture
def plan(code_prompts):
    @mcp_prompt(title="Plan a trip")
    def plan_trip(request, city, days="3"):
        """Plan a trip to a city.

        Second paragraph, not shown."""
        return [
            f"Plan {days} days in {city}.",
            {"role": "assistant", "content": {"type": "text", "text": "Sure."}},
        ]

    return plan_trip


@pytest.fixture
def asking(code_prompts):
    @mcp_prompt("asking")
    def ask_first(request, topic):
        answer = elicit(request, "goal", f"What is your goal for {topic}?", SCHEMA)
        if answer["action"] != "accept":
            raise ToolError("The user did not say")
        return f"Write about {topic} for this goal: {answer['content']['goal']}"

    return ask_first


def test_the_arguments_are_the_functions_parameters(client_for, plan):
    listed = client_for("2025-06-18").exchange("prompts/list")["result"]["prompts"]
    assert {
        "name": "plan_trip",
        "title": "Plan a trip",
        "description": "Plan a trip to a city.",
        "arguments": [{"name": "city", "required": True}, {"name": "days", "required": False}],
    } in listed


def test_get_runs_the_function_with_the_given_arguments(client_for, plan):
    params = {"name": "plan_trip", "arguments": {"city": "Lyon"}}
    result = client_for().exchange("prompts/get", params)["result"]
    assert result["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Plan 3 days in Lyon."}},
        {"role": "assistant", "content": {"type": "text", "text": "Sure."}},
    ]


def test_a_row_of_the_same_name_stands_in_for_the_code_prompt(client_for, plan):
    Prompt.objects.create(name="plan_trip", messages=[{"role": "user", "text": "From the admin"}])
    result = client_for().exchange("prompts/get", {"name": "plan_trip"})["result"]
    assert result["messages"][0]["content"]["text"] == "From the admin"


def test_a_prompt_asks_with_an_input_required_result_and_answers_the_retry(client_for, asking):
    client = client_for("2026-07-28", client_capabilities=ELICITING)
    params = {"name": "asking", "arguments": {"topic": "bees"}}
    first = client.exchange("prompts/get", params)["result"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {
        "goal": {
            "method": "elicitation/create",
            "params": {"message": "What is your goal for bees?", "requestedSchema": SCHEMA},
        }
    }
    retry = {
        **params,
        "inputResponses": {"goal": {"action": "accept", "content": {"goal": "honey"}}},
        "requestState": first["requestState"],
    }
    done = client.exchange("prompts/get", retry)["result"]
    assert done["resultType"] == "complete"
    assert done["messages"][0]["content"]["text"] == "Write about bees for this goal: honey"
    # The state is bound to the prompt's arguments: another topic can't reuse it.
    moved = {**retry, "arguments": {"topic": "wasps"}}
    assert client.exchange("prompts/get", moved)["error"]["code"] == -32602
    declined = {**retry, "inputResponses": {"goal": {"action": "decline"}}}
    error = client.exchange("prompts/get", declined)["error"]
    assert error == {"code": -32602, "message": "Prompt asking: The user did not say"}


def test_a_client_without_elicitation_gets_missing_capability(client_for, asking):
    client = client_for("2026-07-28", client_capabilities={})
    answer = client.exchange("prompts/get", {"name": "asking", "arguments": {"topic": "bees"}})
    assert answer["error"]["code"] == -32021
    assert answer["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}


def test_in_the_handshake_era_a_prompt_asks_on_a_stream(client_for, asking):
    asked = []

    def answer(method, params):
        asked.append((method, params["message"]))
        return {"action": "accept", "content": {"goal": "honey"}}

    client = client_for("2025-11-25", on_request=answer)
    params = {"name": "asking", "arguments": {"topic": "bees"}}
    response = client.send(client.message("prompts/get", params))
    assert response.streaming and response["Content-Type"].startswith("text/event-stream")
    result = client.read_answer(response)["result"]
    assert asked == [("elicitation/create", "What is your goal for bees?")]
    assert result["messages"][0]["content"]["text"] == "Write about bees for this goal: honey"
    declined = client_for("2025-11-25", on_request=lambda method, params: {"action": "decline"})
    error = declined.read_answer(declined.send(declined.message("prompts/get", params)))["error"]
    assert error == {"code": -32602, "message": "Prompt asking: The user did not say"}


@pytest.mark.parametrize(
    ("version", "accept"),
    [
        ("2025-03-26", None),  # a version without elicitation
        ("2025-11-25", "application/json"),  # a client that reads no stream
    ],
)
def test_where_the_client_cant_be_asked_the_prompt_is_refused_clearly(
    client_for, asking, version, accept
):
    client = client_for(version)
    message = client.message("prompts/get", {"name": "asking", "arguments": {"topic": "bees"}})
    response = client.send(message, headers={"Accept": accept} if accept else None)
    assert not response.streaming
    error = client.answer_of(response)["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("Prompt asking asks the user for input")


def test_the_decorator_refuses_misuse():
    registry = PromptRegistry()
    with pytest.raises(TypeError, match="needs parentheses"):
        mcp_prompt(lambda request: "x")
    with pytest.raises(ValueError, match="no prompt name"):
        mcp_prompt("has space", registry=registry)(lambda request: "x")
    with pytest.raises(ValueError, match="complete names 'nope'"):
        mcp_prompt("p", complete={"nope": lambda r, v, a: []}, registry=registry)(
            lambda request, topic: "x"
        )

    def first(request):
        return "x"

    def second(request):
        return "y"

    mcp_prompt("same", registry=registry)(first)
    with pytest.raises(ImproperlyConfigured, match="declared twice"):
        mcp_prompt("same", registry=registry)(second)


def test_declared_arguments_replace_the_signatures():
    registry = PromptRegistry()

    @mcp_prompt(
        arguments=[{"name": "lang", "required": True, "choices": ["py"]}], registry=registry
    )
    def code(request, **arguments):
        return str(arguments)

    assert registry.get("code").arguments == (Argument("lang", "", True, ("py",)),)


def test_the_function_sees_the_endpoints_caller(client_for, code_prompts, alice):
    @mcp_prompt()
    def whoami(request):
        return f"{request.user.username} {request.auth is not None}"

    result = client_for().exchange("prompts/get", {"name": "whoami"})["result"]
    assert result["messages"][0]["content"]["text"] == "alice True"


def test_a_row_saved_past_the_form_is_an_internal_error_not_a_crash(client_for, caplog):
    Prompt.objects.create(name="broken", messages=[{"role": "user"}])
    error = client_for().exchange("prompts/get", {"name": "broken"})["error"]
    assert error["code"] == -32603
    assert "errorRef" in error["data"]


@pytest.mark.urls("tests.prompts.urls")
def test_an_endpoint_serves_the_prompt_registry_it_is_given(client_for):
    Prompt.objects.create(name="from_admin", messages=[{"role": "user", "text": "Hello"}])
    own = client_for(mcp_path="/own/mcp")
    names = {prompt["name"] for prompt in own.exchange("prompts/list")["result"]["prompts"]}
    assert "own_prompt" in names and "test_input_required_result_prompt" not in names
    assert "from_admin" in names  # the admin's rows are every default endpoint's
    default = client_for()
    assert "own_prompt" not in {
        prompt["name"] for prompt in default.exchange("prompts/list")["result"]["prompts"]
    }
    error = default.exchange("prompts/get", {"name": "own_prompt"})["error"]
    assert error["message"] == "Unknown prompt: own_prompt"


def test_a_message_the_function_makes_up_is_an_internal_error(client_for, code_prompts, caplog):
    @mcp_prompt()
    def malformed(request):
        return [{"role": "user", "content": {"type": "image", "data": "not base64!"}}]

    error = client_for().exchange("prompts/get", {"name": "malformed"})["error"]
    assert error["code"] == -32603
    assert "A prompt's message: a 'image' content block needs 'mimeType'" in caplog.text
