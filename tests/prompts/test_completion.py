"""``completion/complete`` (``mcp_tools.completion``): a prompt argument's choices or its
completion function, bounded; the room for resource template variables; its errors."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from mcp_tools import mcp_prompt
from mcp_tools.models import Prompt
from tests.prompts.conftest import VERSIONS

pytestmark = pytest.mark.django_db


def complete(client, ref, name, value, context=None):
    params = {"ref": ref, "argument": {"name": name, "value": value}}
    if context is not None:
        params["context"] = {"arguments": context}
    return client.exchange("completion/complete", params)


def prompt_ref(name):
    return {"type": "ref/prompt", "name": name}


@pytest.mark.parametrize("version", VERSIONS)
def test_declared_choices_are_prefix_matched(client_for, version):
    answer = complete(client_for(version), prompt_ref("test_prompt_with_arguments"), "arg1", "TE")
    assert answer["result"]["completion"] == {
        "values": ["test", "testing"],
        "total": 2,
        "hasMore": False,
    }


def test_at_most_a_hundred_values_with_the_total(client_for):
    choices = [f"v{index:03}" for index in range(250)]
    Prompt.objects.create(
        name="many",
        arguments=[{"name": "pick", "choices": choices}],
        messages=[{"role": "user", "text": "{pick}"}],
    )
    completion = complete(client_for(), prompt_ref("many"), "pick", "v")["result"]["completion"]
    assert completion["values"] == choices[:100]
    assert completion["total"] == 250 and completion["hasMore"] is True
    narrow = complete(client_for(), prompt_ref("many"), "pick", "v24")["result"]["completion"]
    assert narrow == {"values": choices[240:], "total": 10, "hasMore": False}


def test_an_argument_without_choices_completes_to_nothing(client_for):
    answer = complete(client_for(), prompt_ref("test_prompt_with_arguments"), "arg2", "x")
    assert answer["result"]["completion"] == {"values": [], "total": 0, "hasMore": False}


def test_a_completion_function_of_mcp_prompt_sees_the_other_arguments(client_for, code_prompts):
    def cities(request, value, arguments):
        assert request.user.username == "alice"  # the caller, for values that are theirs
        country = arguments.get("country", "")
        return [
            city for city in {"fr": ["Lyon", "Lille"]}.get(country, []) if city.startswith(value)
        ]

    def endless(request, value, arguments):
        index = 0
        while True:  # a generator: read only past the bound
            yield f"{value}{index}"
            index += 1

    @mcp_prompt(complete={"city": cities, "code": endless})
    def trip(request, country, city, code=""):
        return f"{city}, {country}"

    client = client_for("2026-07-28")
    answer = complete(client, prompt_ref("trip"), "city", "L", {"country": "fr"})
    assert answer["result"]["completion"] == {
        "values": ["Lyon", "Lille"],
        "total": 2,
        "hasMore": False,
    }
    endless_answer = complete(client, prompt_ref("trip"), "code", "c")["result"]["completion"]
    assert len(endless_answer["values"]) == 100 and endless_answer["hasMore"] is True
    assert "total" not in endless_answer


def test_a_resource_template_no_view_serves_is_invalid_params(client_for):
    # Resource templates complete from their views (tests/resources/test_completion.py).
    ref = {"type": "ref/resource", "uri": "app://orders/{pk}"}
    answer = complete(client_for("2026-07-28"), ref, "pk", "4")
    assert answer["error"] == {
        "code": -32602,
        "message": "Invalid params: unknown resource template app://orders/{pk}",
    }


@pytest.mark.parametrize(
    ("ref", "name", "message"),
    [
        (prompt_ref("nope"), "arg1", "Unknown prompt: nope"),
        (
            prompt_ref("test_prompt_with_arguments"),
            "arg9",
            "Invalid params: prompt test_prompt_with_arguments has no argument arg9",
        ),
        ({"type": "ref/other"}, "x", "Invalid params: unknown ref type: ref/other"),
        ({"type": "ref/resource"}, "x", "Invalid params: ref/resource needs a uri"),
    ],
)
def test_an_unknown_ref_is_invalid_params(client_for, ref, name, message):
    error = complete(client_for(), ref, name, "")["error"]
    assert error == {"code": -32602, "message": message}


def test_a_hidden_prompt_is_not_completed(client_for, bob):
    prompt = Prompt.objects.get(name="test_prompt_with_arguments")
    prompt.allowed_groups.add(Group.objects.create(name="staff"))
    answer = complete(client_for(user=bob), prompt_ref(prompt.name), "arg1", "t")
    assert answer["error"]["message"] == "Unknown prompt: test_prompt_with_arguments"


def test_the_demos_prompt_is_served_and_completes(client_for):
    client = client_for("2026-07-28")
    listed = client.exchange("prompts/list")["result"]["prompts"]
    assert {"name": "todo_breakdown", "title": "Break a task into todos"}.items() <= next(
        prompt for prompt in listed if prompt["name"] == "todo_breakdown"
    ).items()
    answer = complete(client, prompt_ref("todo_breakdown"), "size", "M")
    assert answer["result"]["completion"] == {"values": ["medium"], "total": 1, "hasMore": False}
    got = client.exchange("prompts/get", {"name": "todo_breakdown", "arguments": {"task": "move"}})
    assert got["result"]["messages"][0]["content"]["text"].startswith(
        "Break this task into small steps: move."
    )
