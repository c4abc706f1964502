"""Prompts under real servers: the official TypeScript SDK client lists, gets and completes
the conformance app's prompts (rows of its data migration, and one in code that asks the
user, answered on the call's stream) against gunicorn and uvicorn."""

from __future__ import annotations

import base64
import json

import pytest

from tests.conformance_app.server import serve
from tests.interop.test_results_clients import run_node_script


@pytest.fixture(params=["gunicorn", "uvicorn"])
def server(request):
    with serve(request.param, workers=2) as url:
        yield f"{url}/mcp"


def typescript_prompts(url, tmp_path, requests):
    requests_file = tmp_path / "requests.json"
    requests_file.write_text(json.dumps(requests))
    return run_node_script("get_prompts.cjs", url, "-", str(requests_file), home=tmp_path)


def test_the_typescript_sdk_lists_gets_and_completes_prompts(server, tmp_path, request):
    requests = {
        "gets": [
            {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a{0}", "arg2": "b"}},
            {"name": "test_prompt_with_image"},
            {
                "name": "test_prompt_with_embedded_resource",
                "arguments": {"resourceUri": "app://notes/1"},
            },
            {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}},
            {"name": "no_such_prompt"},
            # In code, and it asks: on the stream, where its elicitation handler answers; under
            # gunicorn the answer may reach the other worker, through the shared cache.
            {"name": "test_input_required_result_prompt"},
        ],
        "answer": {"action": "accept", "content": {"context": "release notes"}},
        "completions": [
            {
                "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                "argument": {"name": "arg1", "value": "test"},
            },
            {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}},
        ],
    }
    report = typescript_prompts(server, tmp_path, requests)
    assert report["protocolVersion"] == "2025-11-25"
    # uvicorn holds listeners' streams; gunicorn's sync workers can't (docs/subscriptions.md).
    live = request.node.callspec.params["server"] == "uvicorn"
    assert report["capabilities"]["prompts"] == {"listChanged": live}
    assert report["capabilities"]["completions"] == {}
    names = [prompt["name"] for prompt in report["prompts"]]
    assert names == sorted(names)
    assert {
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_image",
        "test_prompt_with_embedded_resource",
        "test_input_required_result_prompt",
    } <= set(names)
    args, image, embedded, missing, unknown, asking = report["gets"]
    assert args["result"]["messages"] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "Prompt with arguments: arg1='a{0}', arg2='b'"},
        }
    ]
    picture = image["result"]["messages"][0]["content"]
    assert picture["mimeType"] == "image/png"
    assert base64.b64decode(picture["data"]).startswith(b"\x89PNG")
    assert embedded["result"]["messages"][0]["content"]["resource"]["uri"] == "app://notes/1"
    assert missing["code"] == -32602 and "arg2" in missing["error"]
    assert unknown["code"] == -32602 and "Unknown prompt: no_such_prompt" in unknown["error"]
    assert [params["message"] for params in report["asked"]] == [
        "What context should the prompt use?"
    ]
    assert asking["result"]["messages"] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "Write the answer for this context: release notes"},
        }
    ]
    completed, refused = report["completions"]
    assert completed["result"]["completion"] == {
        "values": ["test", "testing"],
        "total": 2,
        "hasMore": False,
    }
    assert refused["code"] == -32602
