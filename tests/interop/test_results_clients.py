"""The result contract through the front door: real MCP clients over real HTTP (live_server).

Every row of docs/results.md goes through the official Python SDK client and is checked on the
wire against the 2025-11-25 schema; the TypeScript SDK client and the Inspector CLI accept
every demo tool's result, output-schema tools included.
"""

import asyncio
import base64
import json
import os
import subprocess
from pathlib import Path

import pytest
from django.core.signals import got_request_exception
from django.test import Client as HttpClient

from demo_project.showcase.media import beep_wav
from demo_project.todos.models import Todo
from tests.results_app.views import PNG, WAV
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)

VERSION = "2025-11-25"
REPO = Path(__file__).resolve().parents[2]
REF = "<errorRef>"


def text(value, **extra):
    return {"content": [{"type": "text", "text": value}], "isError": False, **extra}


def error(value, **extra):
    return {"content": [{"type": "text", "text": value}], "isError": True, **extra}


def block(kind, data, mime):
    return {"content": [{"type": kind, "data": data, "mimeType": mime}], "isError": False}


MASKED = error("Internal server error", _meta={"django-mcp-tools/errorRef": REF})
MISMATCH_AT_ROOT = "Output does not match the tool's output schema at $: "
COUNT_MISMATCH = (
    "Output does not match the tool's output schema at $: Additional properties are not "
    'allowed ("extra" was unexpected)\n'
    "Output does not match the tool's output schema at $.count: -1 is less than the minimum of 0"
)

#: (tool, arguments, the result as it crossed the wire; errorRef values normalised to REF)
ROWS = [
    # 2xx by content type (§4.2)
    ("r_object", {}, text('{"a":1,"b":"é"}', structuredContent={"a": 1, "b": "é"})),
    ("r_array", {}, text("[1,2]", structuredContent={"items": [1, 2]})),
    (
        "r_string",
        {},
        text('{"looks": "like json"}', structuredContent={"result": '{"looks": "like json"}'}),
    ),
    ("r_number", {}, text("3.5", structuredContent={"result": 3.5})),
    ("r_boolean", {}, text("false", structuredContent={"result": False})),
    ("r_null", {}, text("null", structuredContent={"result": None})),
    ("r_json_array_plain", {}, text('[{"x": 1}]', structuredContent={"items": [{"x": 1}]})),
    (
        "r_problem",
        {},
        text(
            '{"title": "Out of stock", "status": 409}',
            structuredContent={"title": "Out of stock", "status": 409},
        ),
    ),
    ("r_vendor_json", {}, text('{"data": []}', structuredContent={"data": []})),
    ("r_enveloped", {}, text('{"data":{"a":1}}', structuredContent={"data": {"a": 1}})),
    ("r_text", {}, text("héllo")),
    ("r_latin1", {}, text("héllo")),
    ("r_invalid_utf8", {}, text("ok\ufffd")),
    ("r_html", {}, text("<p>hi</p>")),
    ("r_csv", {}, text("a,b\r\n1,2\r\n")),
    ("r_xml", {}, text("<a>1</a>")),
    ("r_atom", {}, text("<feed/>")),
    ("r_svg", {}, text("<svg/>")),
    ("r_yaml", {}, text("a: 1\n")),
    ("r_png", {}, block("image", base64.b64encode(PNG).decode(), "image/png")),
    ("r_wav", {}, block("audio", base64.b64encode(WAV).decode(), "audio/wav")),
    ("r_empty", {}, text("Done (204 No Content).")),  # something the model can quote
    ("r_pdf", {}, error("Unsupported response content type application/pdf")),
    ("r_streaming", {}, text("ab")),
    ("r_file", {}, text("file body")),
    ("r_nan", {}, error("Result is not valid JSON: NaN or infinity")),
    # status and errors (§4.1)
    ("r_redirect", {}, error("Redirect to /elsewhere/ was not followed")),
    ("r_validation", {}, error('{"name":["This field is required."]}')),
    ("r_not_found", {}, error('{"detail":"Not found."}')),
    ("r_tool_error", {}, error("Pick a date in the future.")),
    ("r_api_503", {}, error('{"detail":"Upstream down"}')),
    ("r_plain_5xx", {}, MASKED),
    ("r_crash", {}, MASKED),
    # overrides (§5)
    ("r_override_content", {}, text("Short summary.", structuredContent={"a": 1})),
    (
        "r_override_all",
        {},
        {
            "content": [
                {
                    "type": "text",
                    "text": "Two items.",
                    "annotations": {"audience": ["user"], "priority": 0.8},
                }
            ],
            "structuredContent": {"count": 2},
            "_meta": {"source": "tests"},
            "isError": False,
        },
    ),
    ("r_override_structured", {}, text('{"b":[1,2]}', structuredContent={"b": [1, 2]})),
    ("r_override_array", {}, text("[1,2]", structuredContent={"items": [1, 2]})),
    (
        "r_override_string",
        {},
        text('{"not": "parsed"}', structuredContent={"result": '{"not": "parsed"}'}),
    ),
    ("r_override_remove", {}, text('{"a":1}')),
    ("r_override_meta", {}, text('{"a":1}', structuredContent={"a": 1}, _meta={"trace": "abc"})),
    (
        "r_override_annotations",
        {},
        {
            "content": [
                {
                    "type": "text",
                    "text": '{"a":1}',
                    "annotations": {"audience": ["assistant"], "priority": 0},
                }
            ],
            "structuredContent": {"a": 1},
            "isError": False,
        },
    ),
    ("r_override_twice", {}, text('{"second":true}', structuredContent={"second": True})),
    ("r_override_nan", {}, error("Result is not valid JSON: NaN or infinity")),
    (
        "r_override_on_error",
        {},
        {
            "content": [
                {"type": "text", "text": "Try a later date.", "annotations": {"priority": 1}}
            ],
            "_meta": {"hint": "date"},
            "isError": True,
        },
    ),
    ("r_override_masked", {}, MASKED),
    (
        "r_override_image",
        {},
        {
            "content": [
                {
                    "type": "image",
                    "data": base64.b64encode(PNG).decode(),
                    "mimeType": "image/png",
                    "annotations": {"audience": ["user"]},
                }
            ],
            "isError": False,
        },
    ),
    ("r_override_bad", {}, MASKED),
    # output schemas (§4.5)
    ("r_schema_dict", {"count": "4"}, text('{"count":4}', structuredContent={"count": 4})),
    (
        "r_schema_serializer",
        {},
        text('{"id":1,"name":"one"}', structuredContent={"id": 1, "name": "one"}),
    ),
    ("r_schema_mismatch", {}, error(COUNT_MISMATCH)),
    (
        "r_schema_text",
        {},
        error(f"{MISMATCH_AT_ROOT}the result has no structured content"),
    ),
    ("r_schema_error", {}, error("No count today.")),
    ("r_schema_scalar", {}, text("42", structuredContent={"result": 42})),
    ("r_schema_override", {}, text("Three.", structuredContent={"count": 3})),
    ("r_thing", {}, text('{"id":1,"name":"one"}', structuredContent={"id": 1, "name": "one"})),
    (
        "r_things",
        {},
        text(
            '[{"id":1,"name":"one"},{"id":2,"name":"two"}]',
            structuredContent={"items": [{"id": 1, "name": "one"}, {"id": 2, "name": "two"}]},
        ),
    ),
]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def normalise(result):
    """Replace the random error reference, so results compare whole."""
    meta = result.get("_meta")
    if meta and "django-mcp-tools/errorRef" in meta:
        result = {**result, "_meta": {**meta, "django-mcp-tools/errorRef": REF}}
    return result


def call_all(url, token, calls, *, mode="legacy"):
    """Call each (name, arguments) with the Python SDK; return wire results and SDK results."""
    wire = Wire()

    async def scenario():
        async with connect(url, token=token, mode=mode, wire=wire) as client:
            await client.list_tools()  # the SDK validates outputs against listed schemas
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return client.session.protocol_version, results

    version, sdk_results = run(scenario())
    if mode == "legacy":
        assert version == VERSION
    on_wire = {}
    for message, status, _, body in wire.posts():
        validate_exchange(version, message, status, body)
        if message.get("method") == "tools/call":
            on_wire[message["params"]["name"]] = json.loads(body)["result"]
    return on_wire, dict(zip([name for name, _ in calls], sdk_results, strict=True))


@pytest.fixture
def mcp_url(live_server):
    return f"{live_server.url}/mcp"


def test_every_row_of_the_contract_through_the_python_sdk(mcp_url, alice):
    on_wire, sdk = call_all(mcp_url, alice.token, [(name, args) for name, args, _ in ROWS])
    assert {name: normalise(on_wire[name]) for name, *_ in ROWS} == {
        name: expected for name, _, expected in ROWS
    }
    for name, _, expected in ROWS:
        assert sdk[name].is_error is expected["isError"], name
        assert sdk[name].structured_content == expected.get("structuredContent"), name


def test_a_body_past_max_response_bytes_is_refused(mcp_url, alice, settings):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 5000}
    on_wire, _ = call_all(mcp_url, alice.token, [("r_big", {})])
    assert on_wire["r_big"] == error("Response too large: more than 5000 bytes")


def test_binary_as_resource_and_json_nan_settings(mcp_url, live_server, alice, settings):
    settings.MCP_TOOLS = {"BINARY_AS_RESOURCE": True, "JSON_NAN": "string"}
    calls = [("r_pdf", {}), ("r_nan", {}), ("r_override_nan", {})]
    on_wire, _ = call_all(mcp_url, alice.token, calls)
    assert on_wire["r_pdf"] == {
        "content": [
            {
                "type": "resource",
                "resource": {
                    "uri": f"{live_server.url}/r/pdf/",
                    "mimeType": "application/pdf",
                    "blob": base64.b64encode(b"%PDF-1.4").decode(),
                },
            }
        ],
        "isError": False,
    }
    assert on_wire["r_nan"] == text('{"x": NaN, "y": 1}', structuredContent={"x": "NaN", "y": 1})
    assert on_wire["r_override_nan"] == text(
        '{"x":"Infinity"}', structuredContent={"x": "Infinity"}
    )


def test_a_masked_exception_is_logged_and_signalled_under_its_reference(mcp_url, alice, caplog):
    signalled = []

    def receiver(sender, request, **kwargs):
        signalled.append(request.path)

    got_request_exception.connect(receiver)
    try:
        on_wire, _ = call_all(mcp_url, alice.token, [("r_crash", {})])
    finally:
        got_request_exception.disconnect(receiver)
    reference = on_wire["r_crash"]["_meta"]["django-mcp-tools/errorRef"]
    record = next(r for r in caplog.records if reference in r.getMessage())
    assert record.name == "mcp_tools" and record.exc_info[0] is ValueError
    assert "secret" not in json.dumps(on_wire)
    assert signalled == ["/r/crash/"]


def test_unmasked_errors_name_the_exception_and_keep_the_override(mcp_url, alice, settings):
    settings.MCP_TOOLS = {"MASK_ERRORS": False}
    calls = [("r_crash", {}), ("r_override_masked", {}), ("r_override_bad", {"kind": "video"})]
    on_wire, _ = call_all(mcp_url, alice.token, calls)
    assert normalise(on_wire["r_crash"]) == error(
        "ValueError: secret path /srv/app", _meta={"django-mcp-tools/errorRef": REF}
    )
    # Unmasked, the error path applies the override's content and meta (§5).
    assert normalise(on_wire["r_override_masked"]) == error(
        "leak", _meta={"leak": True, "django-mcp-tools/errorRef": REF}
    )
    assert on_wire["r_override_bad"]["content"][0]["text"].startswith(
        "ValueError: mcp_output: unknown content block type 'video'"
    )


def test_output_schemas_are_listed_wrapped_and_forced_on(mcp_url, alice, settings):
    settings.MCP_TOOLS = {"INCLUDE_STRUCTURED_CONTENT": False}
    wire = Wire()

    async def scenario():
        async with connect(mcp_url, token=alice.token, mode="legacy", wire=wire) as client:
            tools = await all_tools(client)
            results = {
                name: await client.call_tool(name, {})
                for name in ("r_schema_dict", "r_object", "r_things")
            }
            return tools, results

    tools, results = run(scenario())
    for message, status, _, body in wire.posts():
        validate_exchange(VERSION, message, status, body)
    assert tools["r_schema_dict"].output_schema["required"] == ["count"]
    assert tools["r_schema_hidden"].output_schema is None  # include_output_schema off
    assert tools["r_object"].output_schema is None
    assert tools["r_schema_scalar"].output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert tools["r_things"].output_schema["properties"]["items"]["type"] == "array"
    assert tools["r_things_paged"].output_schema["required"] == ["count", "results"]
    # The setting turned structured content off, except where an output schema forces it.
    assert results["r_object"].structured_content is None
    assert results["r_schema_dict"].structured_content == {"count": 3}
    assert results["r_things"].structured_content["items"][0] == {"id": 1, "name": "one"}


def test_the_python_sdk_in_auto_mode_reads_the_same_results(mcp_url, alice):
    calls = [("r_object", {}), ("r_png", {}), ("r_schema_dict", {}), ("r_array", {})]
    calls += [("r_things", {}), ("r_schema_scalar", {})]
    on_wire, sdk = call_all(mcp_url, alice.token, calls, mode="auto")
    assert sdk["r_object"].structured_content == {"a": 1, "b": "é"}
    assert sdk["r_png"].content[0].data == base64.b64encode(PNG).decode()
    assert sdk["r_schema_dict"].structured_content == {"count": 3}
    # Whatever version auto mode settled on, values and schemas are wrapped together.
    modern = "resultType" in on_wire["r_array"]
    assert sdk["r_array"].structured_content == ([1, 2] if modern else {"items": [1, 2]})
    assert sdk["r_schema_scalar"].structured_content == (42 if modern else {"result": 42})
    assert sdk["r_things"].is_error is False


# -- independent clients: the TypeScript SDK and the Inspector CLI ---------------------------


def node_dir() -> Path:
    """Locate the Node tools of `make node-tools`; fail under CI, skip locally, when missing."""
    root = Path(os.environ.get("MCP_TOOLS_NODE_DIR") or REPO / ".mcp-tools")
    node = root / "node_modules" / ".bin" / "node"
    if not node.exists():
        message = f"Node tools missing in {root}: run `make node-tools`"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return root


def demo_calls(todo_id: int) -> list[tuple[str, dict]]:
    return [
        ("todo_summary", {}),
        ("todo_chart", {}),
        ("beep", {}),
        ("todo_report_csv", {}),
        ("todo_feed_xml", {}),
        ("todo_export_pdf", {}),
        ("todo_sync", {}),
        ("todo_list", {}),
        ("todo_retrieve", {"pk": todo_id}),
        ("todo_create", {"title": "Call the plumber"}),
        ("todo_partial_update", {"pk": todo_id, "done": True}),
        ("todo_update", {"pk": todo_id, "title": "Water the plants", "done": False}),
        ("r_schema_dict", {}),
        ("r_schema_scalar", {}),
        ("r_things", {}),
        ("r_things_paged", {}),
    ]


#: What each demo call must give: (isError, first block type, structured keys or None).
DEMO_EXPECTED = {
    "todo_summary": (False, "text", {"total", "done", "open", "overdue", "next_due"}),
    "todo_chart": (False, "image", None),
    "beep": (False, "audio", None),
    "todo_report_csv": (False, "text", None),
    "todo_feed_xml": (False, "text", None),
    "todo_export_pdf": (True, "text", None),
    "todo_sync": (True, "text", None),
    "todo_list": (False, "text", {"items"}),
    "todo_retrieve": (False, "text", {"id", "title", "done", "due", "created"}),
    "todo_create": (False, "text", {"id", "title", "done", "due", "created"}),
    "todo_partial_update": (False, "text", {"id", "title", "done", "due", "created"}),
    "todo_update": (False, "text", {"id", "title", "done", "due", "created"}),
    "r_schema_dict": (False, "text", {"count"}),
    "r_schema_scalar": (False, "text", {"result"}),
    "r_things": (False, "text", {"items"}),
    "r_things_paged": (False, "text", {"count", "next", "previous", "results"}),
}


@pytest.fixture
def demo_data(alice, settings):
    # Every demo tool advertises the schema it knows, so both clients check outputs too.
    settings.MCP_TOOLS = {"INCLUDE_OUTPUT_SCHEMA": True}
    Todo.objects.create(owner=alice, title="Renew passport", due="2020-01-01")
    return Todo.objects.create(owner=alice, title="Buy milk")


def check_demo_result(name, result):
    is_error, kind, keys = DEMO_EXPECTED[name]
    assert result["isError"] is is_error, (name, result)
    assert result["content"][0]["type"] == kind, (name, result)
    structured = result.get("structuredContent")
    assert (set(structured) if structured is not None else None) == keys, (name, result)


def run_node_script(script: str, *args: str, home: Path) -> dict:
    """Run ``tests/js/<script>`` with the Node tools, ``HOME`` at ``home``; return the JSON
    document it prints."""
    root = node_dir()
    completed = subprocess.run(
        [str(root / "node_modules" / ".bin" / "node"), str(REPO / "tests" / "js" / script), *args],
        env={**os.environ, "NODE_PATH": str(root / "node_modules"), "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def typescript_calls(url: str, token: str, calls: list[tuple[str, dict]], home: Path) -> dict:
    """Make ``calls`` with the official TypeScript SDK (tests/js/call_tools.cjs) after it
    lists every tool; return its report."""
    calls_file = home / "calls.json"
    calls_file.write_text(json.dumps([{"name": n, "arguments": a} for n, a in calls]))
    return run_node_script("call_tools.cjs", url, token, str(calls_file), home=home)


def test_the_typescript_sdk_accepts_every_demo_tool(live_server, alice, demo_data, tmp_path):
    calls = demo_calls(demo_data.pk)
    report = typescript_calls(f"{live_server.url}/mcp", alice.token, calls, tmp_path)
    assert report["protocolVersion"] == VERSION
    assert report["tools"]["todo_summary"]["outputSchema"]["type"] == "object"
    assert report["tools"]["todo_list"]["outputSchema"]["required"] == ["items"]
    for entry in report["results"]:
        assert "error" not in entry, entry
        check_demo_result(entry["name"], entry["result"])
    results = {entry["name"]: entry["result"] for entry in report["results"]}
    assert results["todo_summary"]["structuredContent"]["overdue"] == 1
    assert results["beep"]["content"][0]["data"] == base64.b64encode(beep_wav()).decode()


def inspector_command(inspector: Path, url: str, token: str, name: str, arguments: dict) -> list:
    command = [str(inspector), "--cli", url, "--transport", "http", "--format", "json"]
    command += ["--header", f"Authorization: Token {token}"]
    command += ["--method", "tools/call", "--tool-name", name]
    for key, value in arguments.items():
        command += ["--tool-arg", f"{key}={json.dumps(value)}"]
    return command


def test_the_inspector_cli_accepts_every_demo_tool(live_server, alice, demo_data, tmp_path):
    root = node_dir()
    inspector = root / "node_modules" / ".bin" / "mcp-inspector"
    url = f"{live_server.url}/mcp"
    # The Inspector writes a settings folder under HOME; its launcher needs node on PATH.
    env = {**os.environ, "HOME": str(tmp_path), "PATH": f"{inspector.parent}:{os.environ['PATH']}"}
    for name, arguments in demo_calls(demo_data.pk):
        completed = subprocess.run(
            inspector_command(inspector, url, alice.token, name, arguments),
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        # 0: ok (outputs checked against outputSchema with ajv); 5: the tool reported an error.
        assert completed.returncode == (5 if DEMO_EXPECTED[name][0] else 0), (
            name,
            completed.stderr,
        )
        output = json.loads(completed.stdout)
        check_demo_result(name, output.get("result", output))


def test_plain_http_is_unchanged_by_the_override(alice):
    http = HttpClient(headers={"Authorization": f"Token {alice.token}"})
    response = http.get("/r/showcase/summary/")
    assert response.status_code == 200
    assert response.json() == {"total": 0, "done": 0, "open": 0, "overdue": 0, "next_due": []}


def test_the_demo_serves_the_showcase_and_its_media_are_real():
    import struct
    import wave
    import zlib
    from io import BytesIO

    from django.urls import resolve

    from demo_project.showcase import media, views

    assert resolve("/showcase/summary/", urlconf="demo_project.urls").func.cls is views.SummaryView
    png = media.bar_chart_png([3, 1], width=20, height=10)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    idat_length = struct.unpack(">I", png[33:37])[0]
    pixels = zlib.decompress(png[41 : 41 + idat_length])
    assert (width, height, len(pixels)) == (20, 10, 10 * (1 + 3 * 20))
    with wave.open(BytesIO(media.beep_wav(seconds=0.1, rate=8000))) as audio:
        assert (audio.getnchannels(), audio.getframerate(), audio.getnframes()) == (1, 8000, 800)
    pdf = media.one_line_pdf("Todos (2)")
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
