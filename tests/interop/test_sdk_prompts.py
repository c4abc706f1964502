"""The official MCP Python SDK lists, gets and completes prompts over real HTTP
(live_server), in both eras, every answer checked against the version's wire schema."""

from __future__ import annotations

import asyncio
import base64

import mcp_types as types
import pytest
from django.contrib.auth.models import Group
from mcp import MCPError

from mcp_tools.models import Prompt
from tests.sdk import Wire, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)

ERAS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


@pytest.fixture
def prompts(bob):
    """A prompt of arguments, one with an image of the site and an embedded resource, and
    one bob's group may not see (created here: a transactional test starts empty)."""
    Prompt.objects.create(
        name="triage",
        title="Triage a ticket",
        description="Sort a ticket by urgency",
        arguments=[
            {"name": "ticket", "description": "The ticket's text", "required": True},
            {"name": "team", "choices": ["billing", "backend", "frontend"]},
        ],
        messages=[{"role": "user", "text": "Triage for {team}: {ticket}"}],
    )
    Prompt.objects.create(
        name="chart",
        messages=[
            {"role": "user", "image": "conformance/red-dot.png"},
            {
                "role": "user",
                "resource": {"uri": "app://notes/{id}", "mimeType": "text/plain", "text": "N{id}"},
            },
        ],
        arguments=[{"name": "id", "required": True}],
    )
    hidden = Prompt.objects.create(name="payroll", messages=[{"role": "user", "text": "pay"}])
    hidden.allowed_groups.add(Group.objects.create(name="hr"))


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_sdk_lists_gets_and_completes_prompts(live_server, alice, prompts, mode, version):
    wire = Wire()

    async def scenario():
        async with connect(f"{live_server.url}/mcp", token=alice.token, mode=mode, wire=wire) as c:
            assert c.session.protocol_version == version
            listed = {prompt.name: prompt for prompt in (await c.list_prompts()).prompts}
            assert "payroll" not in listed
            assert listed["triage"].title == "Triage a ticket"
            assert [(a.name, a.required) for a in listed["triage"].arguments] == [
                ("ticket", True),
                ("team", False),
            ]
            got = await c.get_prompt("triage", {"ticket": "{0} {ticket.__class__}", "team": "x"})
            assert got.messages[0].role == "user"
            assert got.messages[0].content.text == "Triage for x: {0} {ticket.__class__}"
            chart = await c.get_prompt("chart", {"id": "7"})
            image, resource = (message.content for message in chart.messages)
            assert image.type == "image" and image.mime_type == "image/png"
            assert base64.b64decode(image.data).startswith(b"\x89PNG")
            assert str(resource.resource.uri) == "app://notes/7"
            assert resource.resource.text == "N7"
            completed = await c.complete(
                types.PromptReference(type="ref/prompt", name="triage"),
                {"name": "team", "value": "b"},
            )
            assert completed.completion.values == ["billing", "backend"]
            assert completed.completion.total == 2 and completed.completion.has_more is False
            with pytest.raises(MCPError) as refused:
                await c.get_prompt("payroll")
            assert refused.value.code == -32602
            with pytest.raises(MCPError) as missing:
                await c.get_prompt("triage", {})
            assert missing.value.code == -32602 and "ticket" in missing.value.message

    run(scenario())
    methods = {message.get("method") for message, *_ in wire.posts()}
    assert {"prompts/list", "prompts/get", "completion/complete"} <= methods
    for message, status, _content_type, body in wire.posts():
        validate_exchange(version, message, status, body)


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_sdk_answers_what_a_prompt_in_code_asks(live_server, alice, mode, version):
    """The conformance app's prompt asks for its context: on the call's stream in the
    handshake era, by an input-required result at 2026-07-28."""
    asked = []

    async def answer(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"context": "the changelog"})

    async def scenario():
        async with connect(
            f"{live_server.url}/mcp", token=alice.token, mode=mode, elicitation_callback=answer
        ) as c:
            assert c.session.protocol_version == version
            return await c.get_prompt("test_input_required_result_prompt")

    got = run(scenario())
    assert asked == ["What context should the prompt use?"]
    assert got.messages[0].content.text == "Write the answer for this context: the changelog"


@pytest.mark.urls("demo_project.urls")
@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_sdk_gets_a_resource_of_the_site_as_its_caller(live_server, alice, bob, mode, version):
    """A prompt that names the demo's ``todo://{pk}``: alice's todo for alice, read at get
    time as resources/read reads it; for bob, the read's not-found error and no card."""
    from demo_project.todos.models import Todo

    todo = Todo.objects.create(owner=alice, title="Ship prompts", done=True)
    Prompt.objects.create(
        name="card",
        arguments=[{"name": "pk", "required": True}],
        messages=[{"role": "user", "resource": {"uri": "todo://{pk}"}}],
    )
    uri = f"todo://{todo.pk}"
    wire = Wire()

    async def scenario(user):
        async with connect(f"{live_server.url}/mcp", token=user.token, mode=mode, wire=wire) as c:
            assert c.session.protocol_version == version
            return await c.get_prompt("card", {"pk": str(todo.pk)}), await c.read_resource(uri)

    got, read = run(scenario(alice))
    (message,) = got.messages
    assert message.role == "user" and message.content.type == "resource"
    assert message.content.resource == read.contents[0]
    assert str(message.content.resource.uri) == uri
    assert message.content.resource.mime_type == "text/markdown"
    assert message.content.resource.text == "# Ship prompts\n\n- [x] done\n"

    async def refused():
        async with connect(f"{live_server.url}/mcp", token=bob.token, mode=mode, wire=wire) as c:
            with pytest.raises(MCPError) as error:
                await c.get_prompt("card", {"pk": str(todo.pk)})
            return error.value

    error = run(refused())
    assert error.code == (-32602 if version == "2026-07-28" else -32002)
    assert error.message == f"Resource not found: {uri}"
    assert "Ship prompts" not in str(error.data)
    for message_sent, status, _content_type, body in wire.posts():
        validate_exchange(version, message_sent, status, body)
