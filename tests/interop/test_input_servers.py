"""The handshake era's input requests under real servers: the TypeScript SDK 1.x client,
with an elicitation handler, against gunicorn (sync workers, in processes of their own:
the answer reaches the worker holding the stream through the shared cache) and uvicorn
(ASGI). A tool declared ``stream=True`` streams from the start; one that is not starts again
on a stream at its first ask."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.conformance_app.server import REPO, serve
from tests.interop.test_results_clients import node_dir


@pytest.fixture(params=["gunicorn", "uvicorn"])
def server(request):
    # Two gunicorn workers: one holds the call's stream, the other takes the client's answer.
    with serve(request.param, workers=2) as url:
        yield f"{url}/mcp"


def typescript_client(url, tmp_path, calls, answer):
    root = node_dir()
    calls_file = tmp_path / "calls.json"
    calls_file.write_text(json.dumps(calls))
    answer_file = tmp_path / "answer.json"
    answer_file.write_text(json.dumps(answer))
    completed = subprocess.run(
        [
            str(root / "node_modules" / ".bin" / "node"),
            str(REPO / "tests" / "js" / "elicit_tools.cjs"),
            url,
            "-",
            str(calls_file),
            str(answer_file),
        ],
        env={**os.environ, "NODE_PATH": str(root / "node_modules"), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_the_typescript_sdk_answers_an_elicitation_on_the_stream(server, tmp_path):
    # A streamed tool twice, then one that declares no stream=True: its call starts again on
    # a stream at its first ask.
    calls = [
        {"name": "test_streaming_elicitation"},
        {"name": "test_streaming_elicitation"},
        {"name": "test_input_required_result_elicitation"},
    ]
    report = typescript_client(
        server, tmp_path, calls, {"action": "accept", "content": {"name": "Ada"}}
    )
    assert report["protocolVersion"] == "2025-11-25"
    assert [params["message"] for params in report["asked"]] == ["What is your name?"] * 3
    for entry in report["results"]:
        assert "error" not in entry, entry
        assert entry["result"]["isError"] is False, entry
        assert entry["result"]["content"] == [{"type": "text", "text": "Hello, Ada!"}]
