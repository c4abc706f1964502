"""Resources under real servers through the official TypeScript SDK: gunicorn (sync workers,
in processes of their own) and uvicorn (ASGI) serve the conformance app's fixture resources,
views a user would write; the client lists them and reads text, a blob and a template's
URI, and a URI no view answers is its era's not-found error."""

from __future__ import annotations

import base64
import json

import pytest

from tests.conformance_app.server import serve
from tests.conformance_app.views import PNG
from tests.interop.test_results_clients import run_node_script


@pytest.fixture(params=["gunicorn", "uvicorn"], scope="module")
def server(request):
    with serve(request.param, workers=2) as url:
        yield f"{url}/mcp"


def typescript_reads(url, tmp_path, uris):
    uris_file = tmp_path / "uris.json"
    uris_file.write_text(json.dumps(uris))
    return run_node_script("read_resources.cjs", url, "-", str(uris_file), home=tmp_path)


def test_the_typescript_sdk_lists_and_reads_resources(server, tmp_path, request):
    uris = ["test://static-text", "test://static-binary", "test://template/123/data", "test://nope"]
    report = typescript_reads(server, tmp_path, uris)
    assert report["protocolVersion"] == "2025-11-25"
    # uvicorn holds listeners' streams; gunicorn's sync workers can't (docs/subscriptions.md).
    live = request.node.callspec.params["server"] == "uvicorn"
    assert report["capabilities"]["resources"] == {"listChanged": live, "subscribe": live}
    assert [each["uri"] for each in report["resources"]] == [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
    ]
    assert [each["uriTemplate"] for each in report["templates"]] == ["test://template/{id}/data"]
    text, blob, template, missing = report["reads"]
    assert text["result"]["contents"] == [
        {
            "uri": "test://static-text",
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource.",
        }
    ]
    (content,) = blob["result"]["contents"]
    assert (content["mimeType"], base64.b64decode(content["blob"])) == ("image/png", PNG)
    (data,) = template["result"]["contents"]
    assert json.loads(data["text"]) == {
        "id": "123",
        "templateTest": True,
        "data": "Data for ID: 123",
    }
    assert missing["code"] == -32002
    assert "Resource not found: test://nope" in missing["error"]
