"""``prompts/list`` and ``prompts/get`` (``mcp_tools.prompts.methods``) in every era: their
wire form, their errors, who sees which prompt, and which endpoints serve them."""

from __future__ import annotations

import base64

import pytest
from django.contrib.auth.models import Group

from mcp_tools.models import Prompt, ToolCall, Toolset
from tests.prompts.conftest import VERSIONS

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def review():
    return Prompt.objects.create(
        name="review",
        title="Review a change",
        description="Ask for a review",
        arguments=[
            {"name": "change", "description": "What changed", "required": True},
            {"name": "tone", "choices": ["kind", "terse"]},
        ],
        messages=[
            {"role": "user", "text": "Review {change} in a {tone} tone."},
            {"role": "assistant", "text": "Which {change}?"},
        ],
    )


def names(answer):
    return [prompt["name"] for prompt in answer["result"]["prompts"]]


@pytest.mark.parametrize("version", VERSIONS)
def test_list_gives_each_prompt_as_the_version_writes_it(client_for, review, version):
    answer = client_for(version).exchange("prompts/list")
    listed = {prompt["name"]: prompt for prompt in answer["result"]["prompts"]}
    assert {"review", "test_input_required_result_prompt"} <= set(listed)
    expected = {
        "name": "review",
        "description": "Ask for a review",
        "arguments": [
            {"name": "change", "description": "What changed", "required": True},
            {"name": "tone", "required": False},
        ],
    }
    if version >= "2025-06-18":
        expected["title"] = "Review a change"
    assert listed["review"] == expected


@pytest.mark.parametrize("version", VERSIONS)
def test_get_fills_the_arguments(client_for, review, version):
    params = {"name": "review", "arguments": {"change": "PR 7", "tone": "kind", "extra": "x"}}
    result = client_for(version).exchange("prompts/get", params)["result"]
    assert result["description"] == "Ask for a review"
    assert result["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Review PR 7 in a kind tone."}},
        {"role": "assistant", "content": {"type": "text", "text": "Which PR 7?"}},
    ]


@pytest.mark.parametrize("version", ["2024-11-05", "2026-07-28"])
def test_get_gives_an_image_of_the_site_and_an_embedded_resource(client_for, version):
    client = client_for(version)
    image = client.exchange("prompts/get", {"name": "test_prompt_with_image"})["result"]
    content = image["messages"][0]["content"]
    assert content["type"] == "image" and content["mimeType"] == "image/png"
    assert base64.b64decode(content["data"]).startswith(PNG)
    params = {
        "name": "test_prompt_with_embedded_resource",
        "arguments": {"resourceUri": "app://notes/1"},
    }
    embedded = client.exchange("prompts/get", params)["result"]["messages"][0]["content"]
    assert embedded == {
        "type": "resource",
        "resource": {
            "uri": "app://notes/1",
            "mimeType": "text/plain",
            "text": "Embedded resource content for testing.",
        },
    }


@pytest.mark.parametrize("version", ["2025-03-26", "2026-07-28"])
def test_a_missing_required_argument_is_invalid_params(client_for, review, version):
    error = client_for(version).exchange("prompts/get", {"name": "review"})["error"]
    assert error == {
        "code": -32602,
        "message": "Invalid params: prompt review needs the argument change",
    }
    error = client_for(version).exchange(
        "prompts/get", {"name": "test_prompt_with_arguments", "arguments": {}}
    )["error"]
    assert error["message"].endswith("needs the arguments arg1, arg2")


def test_an_argument_that_is_no_string_is_invalid_params(client_for, review):
    params = {"name": "review", "arguments": {"change": 7}}
    error = client_for().exchange("prompts/get", params)["error"]
    assert error == {"code": -32602, "message": "Invalid params: argument change must be a string"}


@pytest.mark.parametrize("version", ["2024-11-05", "2026-07-28"])
def test_an_unknown_prompt_is_invalid_params(client_for, version):
    error = client_for(version).exchange("prompts/get", {"name": "nope"})["error"]
    assert error == {"code": -32602, "message": "Unknown prompt: nope"}


def test_a_name_that_is_no_string_is_invalid_params(client_for):
    error = client_for().exchange("prompts/get", {"arguments": {}})["error"]
    assert error == {"code": -32602, "message": "Invalid params: name must be a string"}


def test_a_disabled_prompt_is_unknown_and_unlisted(client_for, review):
    review.enabled = False
    review.save()
    client = client_for()
    assert "review" not in names(client.exchange("prompts/list"))
    error = client.exchange("prompts/get", {"name": "review", "arguments": {"change": "x"}})
    assert error["error"]["message"] == "Unknown prompt: review"


def test_a_prompt_of_some_groups_is_seen_by_their_members_only(client_for, review, alice, bob):
    staff = Group.objects.create(name="staff")
    review.allowed_groups.add(staff)
    alice.groups.add(staff)
    params = {"name": "review", "arguments": {"change": "x"}}
    for_alice, for_bob = client_for("2026-07-28"), client_for("2026-07-28", user=bob)
    assert "review" in names(for_alice.exchange("prompts/list"))
    assert "messages" in for_alice.exchange("prompts/get", params)["result"]
    listed = for_bob.exchange("prompts/list")
    assert "review" not in names(listed)
    assert listed["result"]["cacheScope"] == "private"
    assert for_bob.exchange("prompts/get", params)["error"]["message"] == "Unknown prompt: review"


def test_the_list_of_an_anonymous_caller_who_sees_all_may_be_shared(anonymous_mcp, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "PERMISSION_CLASSES": []}
    anonymous_mcp.protocol_version = "2026-07-28"
    result = anonymous_mcp.rpc("prompts/list")
    assert result["cacheScope"] == "public"
    assert isinstance(result["ttlMs"], int) and result["ttlMs"] >= 0


def test_the_list_pages_with_cursors(client_for, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "PAGE_SIZE": 2}
    for name in ("one", "two", "three", "four", "five"):
        Prompt.objects.create(name=name, messages=[{"role": "user", "text": name}])
    client = client_for()
    seen, cursor = [], None
    while True:
        result = client.exchange("prompts/list", {"cursor": cursor} if cursor else None)["result"]
        assert len(result["prompts"]) <= 2
        seen += [prompt["name"] for prompt in result["prompts"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert seen == sorted(seen) and len(seen) == len(set(seen)) >= 5
    error = client.exchange("prompts/list", {"cursor": "bogus"})["error"]
    assert error["code"] == -32602


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_a_toolsets_endpoint_serves_no_prompts(client_for, review, version):
    Toolset.objects.create(name="ops")
    client = client_for(version, mcp_path="/mcp/toolsets/ops")
    if version == "2026-07-28":
        capabilities = client.exchange("server/discover")["result"]["capabilities"]
    else:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}}
        capabilities = client.exchange("initialize", params)["result"]["capabilities"]
    assert "prompts" not in capabilities and "completions" not in capabilities
    assert client.exchange("prompts/list")["result"]["prompts"] == []
    error = client.exchange("prompts/get", {"name": "review"})["error"]
    assert error["message"] == "Unknown prompt: review"


def test_deleting_its_only_group_disables_a_prompt_rather_than_opening_it(review, caplog):
    hr, staff = Group.objects.create(name="hr"), Group.objects.create(name="staff")
    review.allowed_groups.add(hr)
    shared = Prompt.objects.create(name="shared", messages=[{"role": "user", "text": "x"}])
    shared.allowed_groups.add(hr, staff)
    hr.delete()
    review.refresh_from_db()
    shared.refresh_from_db()
    assert review.enabled is False and list(review.allowed_groups.all()) == []
    assert shared.enabled is True and list(shared.allowed_groups.all()) == [staff]
    assert "prompts restricted to it alone disabled: review" in caplog.text


def test_a_get_is_logged_as_a_prompt_with_its_arguments(client_for, review, alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "CALL_LOG": "all", "CALL_LOG_ARGUMENTS": True}
    params = {"name": "review", "arguments": {"change": "the tests", "tone": "kind"}}
    assert "result" in client_for().exchange("prompts/get", params)
    row = ToolCall.objects.get()
    assert (row.kind, row.tool_name, row.outcome, row.user) == ("prompt", "review", "ok", alice)
    assert row.arguments == {"change": "the tests", "tone": "kind"}


def test_under_the_default_mode_only_a_failed_get_is_logged(client_for, review):
    assert "result" in client_for().exchange(
        "prompts/get", {"name": "review", "arguments": {"change": "x"}}
    )
    assert not ToolCall.objects.exists()
    Prompt.objects.create(name="broken", messages=[{"role": "user"}])
    error = client_for().exchange("prompts/get", {"name": "broken"})["error"]
    assert error["code"] == -32603
    row = ToolCall.objects.get()
    assert (row.kind, row.tool_name, row.outcome) == ("prompt", "broken", "error")
    # The call log and the client's answer share the reference.
    assert row.error_ref == error["data"]["errorRef"]
    assert row.error_message == f"Internal server error (reference {row.error_ref})"


def test_an_image_grown_past_the_bound_since_it_was_saved_is_an_internal_error(
    client_for, monkeypatch
):
    from mcp_tools.prompts import messages, runs

    Prompt.objects.create(
        name="pictured", messages=[{"role": "user", "image": "conformance/red-dot.png"}]
    )
    assert "result" in client_for().exchange("prompts/get", {"name": "pictured"})
    monkeypatch.setattr(messages, "MAX_IMAGE_BYTES", 10)  # the file is 69 bytes
    monkeypatch.setattr(runs, "read_static", lambda path: b"x" * 11)
    error = client_for().exchange("prompts/get", {"name": "pictured"})["error"]
    assert error["code"] == -32603 and "errorRef" in error["data"]


def test_a_get_of_a_hidden_prompt_is_logged_as_refused(client_for, review, settings):
    review.enabled = False
    review.save()
    error = client_for().exchange("prompts/get", {"name": "review", "arguments": {"change": "x"}})
    assert error["error"]["message"] == "Unknown prompt: review"
    assert client_for().exchange("prompts/get", {"name": "nothing"})["error"]["code"] == -32602
    row = ToolCall.objects.get()  # the unknown prompt is no one's: not logged
    assert (row.kind, row.tool_name, row.outcome, row.refusal) == (
        "prompt",
        "review",
        "refused",
        "hidden",
    )
