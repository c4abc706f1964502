"""One JSON-RPC message in, one answer out (``mcp_tools.endpoint.server``), whatever carries it.

Malformed messages, ids, notifications and responses, each message's era and version
(docs/protocol.md, eras), unknown methods, faults of the server itself and the items of a
batch.
"""

from __future__ import annotations

import json
from unittest import mock

import pytest

from mcp_tools.endpoint import handlers
from mcp_tools.protocol import versions
from tests.helpers import error_of

pytestmark = pytest.mark.django_db

JSON = "application/json"
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
SERVER_INFO = {"name": "mcp-tools-tests", "version": "0.1.0", "title": "Test server"}


# -- Malformed messages ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("{not json", 400, -32700),
        ("   ", 400, -32700),
        (b"\xff\xfe", 400, -32700),
        ("[]", 400, -32600),
        ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', 400, -32600),
        ('"just a string"', 400, -32600),
        ('{"id": 1, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "1.0", "id": 1, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1, "method": 5}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1}', 400, -32600),
    ],
)
def test_malformed_json_rpc_gets_a_clear_error(mcp, body, status, code):
    # 2025-11-25: batches are refused (only 2025-03-26, the header-less default, has them).
    response = mcp.send(body, headers={"MCP-Protocol-Version": "2025-11-25"})
    assert response.status_code == status
    assert error_of(response)["code"] == code


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"null",
        b"\x00\x01",
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"todo_list","_meta":5}}',
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":[1]}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\\ud800"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\ud800"}}',
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, null, []]',
    ],
)
def test_garbage_never_yields_a_500(mcp, body):
    # No MCP-Protocol-Version: 2025-03-26 applies, so the batch's items are answered too.
    assert mcp.send(body, headers={"MCP-Protocol-Version": None}).status_code < 500


# -- Notifications and responses -------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"x": [1]}},
    ],
)
def test_notifications_are_202_without_a_body(mcp, message):
    response = mcp.send(message)
    assert response.status_code == 202 and response.content == b""


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 7, "result": {}},
        {"jsonrpc": "2.0", "id": 3, "result": {"anything": True}},
        {"jsonrpc": "2.0", "id": "r", "error": {"code": -1, "message": "no"}},
    ],
)
def test_a_response_to_no_request_of_the_server_s_is_refused(mcp, message):
    # Responses answer the handshake era's input requests (tests/inputs/test_relay.py).
    response = mcp.send(message)
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": -32600,
        "message": "Invalid Request: no request of this server awaits this response",
    }


# -- The era and version of each message -----------------------------------------------------


def test_an_unsupported_protocol_version_header_is_a_bad_request(mcp):
    response = mcp.send(mcp.message("tools/list"), headers={"MCP-Protocol-Version": "1999-01-01"})
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


@pytest.mark.parametrize(
    "header",
    ["", "2025-11-25 ", "x" * 10_000, "2026-07-28", "\u00e9"],
)
def test_a_bad_protocol_version_header_is_400(mcp, header):
    response = mcp.send(PING, headers={"MCP-Protocol-Version": header})
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == -32600


def test_an_unsupported_modern_version_lists_the_supported_ones(modern_mcp):
    meta = {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    message = modern_mcp.message("server/discover", {"_meta": meta})
    response = modern_mcp.send(message, headers={"MCP-Protocol-Version": "2099-01-01"})
    assert response.status_code == 400
    error = json.loads(response.content)["error"]
    assert error["code"] == -32022
    assert error["data"] == {
        "supported": list(versions.SUPPORTED_VERSIONS),
        "requested": "2099-01-01",
    }


def test_modern_tools_call_is_complete_and_names_the_server(modern_mcp):
    result = modern_mcp.call_tool("todo_list")
    assert result["resultType"] == "complete" and result["isError"] is False
    assert result["structuredContent"] == []  # the array itself: nothing wraps it in 2026
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == SERVER_INFO


# -- Unknown methods -------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["resources/watch", "sampling/createMessage", "nope"])
def test_unknown_methods_answer_method_not_found_at_once(mcp, method):
    response = mcp.send(mcp.message(method))
    assert error_of(response) == {"code": -32601, "message": f"Method not found: {method}"}


@pytest.mark.parametrize(
    "method", ["initialize", "ping", "logging/setLevel", "resources/subscribe", "x/y"]
)
def test_methods_the_modern_era_lacks_are_404_method_not_found(modern_mcp, method):
    response = modern_mcp.send({**modern_mcp.message(method), "id": "k"})
    assert response.status_code == 404
    payload = json.loads(response.content)
    assert payload["id"] == "k" and payload["error"]["code"] == -32601


# -- Faults of the server itself -------------------------------------------------------------


def test_a_server_fault_is_a_json_rpc_internal_error_without_a_traceback(mcp, settings, caplog):
    # DjangoModelPermissions needs a queryset the endpoint does not have: a misconfiguration.
    settings.MCP_TOOLS = {
        "PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"]
    }
    response = mcp.send(mcp.message("tools/list"))
    assert response.status_code == 500
    assert response["Content-Type"] == JSON
    error = error_of(response)
    assert error["code"] == -32603 and error["message"] == "Internal error"
    assert error["data"]["errorRef"] in caplog.text
    assert b"Traceback" not in response.content


#: What no handler should return: none is a result, and none is a run for the transport.
NO_RESULTS = [None, [1, 2], "text", 42]


@pytest.mark.parametrize("value", NO_RESULTS)
def test_a_handler_that_returns_no_result_is_a_fault_answered_with_its_id(mcp, value, caplog):
    with mock.patch.dict(handlers.HANDSHAKE_HANDLERS, {"ping": lambda call: value}):
        response = mcp.send(mcp.message("ping"))
    assert response.status_code == 500
    answer = json.loads(response.content)
    assert answer["id"] == 1
    assert answer["error"]["code"] == -32603
    assert answer["error"]["data"]["errorRef"] in caplog.text


@pytest.mark.parametrize("value", NO_RESULTS)
def test_in_a_batch_a_handler_that_returns_no_result_faults_its_item_alone(mcp, value):
    batch = [mcp.message("ping"), mcp.message("tools/list")]
    with mock.patch.dict(handlers.HANDSHAKE_HANDLERS, {"ping": lambda call: value}):
        response = mcp.send(batch, headers={"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 200
    answers = {answer["id"]: answer for answer in json.loads(response.content)}
    assert answers[batch[0]["id"]]["error"]["code"] == -32603
    assert answers[batch[1]["id"]]["result"]["tools"]


# -- The items of a batch --------------------------------------------------------------------


def test_a_2025_03_26_batch_answers_each_request_in_one_array(mcp):
    ping = mcp.message("ping", {})
    unknown_tool = mcp.message("tools/call", {"name": "no_such_tool"})
    initialize = mcp.message("initialize", {"protocolVersion": "2025-03-26"})
    no_method = {"jsonrpc": "2.0", "id": 4}  # an id the client has not used yet
    batch = [
        ping,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        unknown_tool,
        initialize,
        no_method,
    ]
    response = mcp.send(batch, headers={"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 200
    answers = {answer["id"]: answer for answer in json.loads(response.content)}
    assert answers[ping["id"]]["result"] == {}
    assert answers[unknown_tool["id"]]["error"]["code"] == -32602
    assert answers[initialize["id"]]["error"]["code"] == -32600
    assert answers[no_method["id"]]["error"]["code"] == -32600
    assert set(answers) == {ping["id"], unknown_tool["id"], initialize["id"], no_method["id"]}


# -- Strings the endpoint would echo ---------------------------------------------------------


def entry_write(request_id, label="x", progress_token=None):
    """A raw tools/call of entry_write (it writes a row), ids and strings left unescaped."""
    meta = f',"_meta":{{"progressToken":"{progress_token}"}}' if progress_token else ""
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{'
        f'"name":"entry_write","arguments":{{"label":"{label}"}}{meta}}}}}'
    )


@pytest.mark.parametrize(
    "body",
    [
        entry_write('"\\ud800"'),
        entry_write('"a\\udfffb"'),
        entry_write("7", label="\\udc00"),
        entry_write("7", progress_token="\\ud83d"),
        # Raw bytes of a surrogate (CESU-8), which json.loads(bytes) would let through.
        entry_write("7", label="\xed\xa0\x80").encode("latin-1"),
    ],
)
def test_a_lone_surrogate_is_refused_before_anything_runs(mcp, body):
    from tests.testapp.models import Entry

    response = mcp.send(body)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] in (-32600, -32700)
    assert Entry.objects.count() == 0


def test_a_surrogate_pair_is_ordinary_text(mcp):
    from tests.testapp.models import Entry

    response = mcp.send(entry_write('"\\ud83d\\ude00"', label="\\ud83d\\ude00"))
    assert response.status_code == 200
    assert json.loads(response.content)["id"] == "\U0001f600"
    assert Entry.objects.get().label == "\U0001f600"


# -- What a lenient parser would let through -------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":NaN}}', -32700),
        ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":-Infinity}}', -32700),
        ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":Infinity}}', -32700),
        ('{"jsonrpc":"2.0","id":1,"method":"ping"}'.encode("utf-16"), -32700),
        ('{"jsonrpc":"2.0","id":1,"method":"ping"}'.encode("utf-16-le"), -32700),
        ('{"jsonrpc":"2.0","id":1,"method":"ping"}'.encode("utf-32"), -32700),
        ('{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', -32600),
        ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":{"b":1,"b":2}}}', -32600),
    ],
)
def test_what_a_lenient_parser_would_accept_is_refused(mcp, body, code):
    response = mcp.send(body)
    assert response.status_code == 400
    assert error_of(response)["code"] == code


def test_a_duplicate_tool_name_is_refused_before_the_tool_runs(mcp):
    # A gateway that reads the first "name" would see another tool than the one that runs.
    from tests.testapp.models import Entry

    body = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
        '{"name":"greet","arguments":{"label":"x"},"name":"entry_write"}}'
    )
    response = mcp.send(body)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == -32600 and "'name'" in error["message"]
    assert Entry.objects.count() == 0


# -- The answer as sent is bounded by MAX_RESPONSE_BYTES -------------------------------------


def test_the_answer_as_sent_is_bounded_not_only_the_views_body(mcp, settings):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 10_000}
    # A 6,000-byte body fits, but its answer carries it twice: as text and as structure.
    response = mcp.send(mcp.message("tools/call", {"name": "r_sized", "arguments": {"size": 6000}}))
    assert response.status_code == 200
    assert len(response.content) <= 10_000
    result = json.loads(response.content)["result"]
    assert result == {
        "content": [{"type": "text", "text": "Response too large: more than 10000 bytes"}],
        "isError": True,
    }
    small = mcp.call_tool("r_sized", {"size": 3000})
    assert small["isError"] is False and small["structuredContent"] == {"blob": "x" * 3000}


def test_the_answer_of_a_streamed_call_is_bounded_too(mcp, settings):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 10_000}
    params = {"name": "r_sized", "arguments": {"size": 6000}, "_meta": {"progressToken": 1}}
    response = mcp.send(mcp.message("tools/call", params))
    assert response["Content-Type"] == "text/event-stream"
    result = mcp.answer_of(response)["result"]
    assert result["content"][0]["text"] == "Response too large: more than 10000 bytes"


def test_a_message_whose_method_is_no_string_is_invalid_never_a_fault(mcp):
    """Found by the fuzzer: a method that is a list (unhashable) in a batch's item once
    reached a set lookup and answered 500."""
    batch = [{"jsonrpc": "2.0", "method": [], "params": {"requestId": 1}}]
    response = mcp.send(batch, headers={"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code < 500, response.content
    alone = mcp.send({"jsonrpc": "2.0", "id": 9, "method": ["resources/read"]})
    assert alone.status_code == 400
    assert json.loads(alone.content)["error"]["code"] == -32600


def test_a_batch_answer_is_bounded_as_a_whole(mcp, settings):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 10_000}
    calls = [
        mcp.message("tools/call", {"name": "r_sized", "arguments": {"size": 2600}})
        for _ in range(4)
    ]
    response = mcp.send(calls, headers={"MCP-Protocol-Version": "2025-03-26"})
    assert len(response.content) <= 10_000
    answers = json.loads(response.content)
    assert [answer["id"] for answer in answers] == [call["id"] for call in calls]
    texts = [answer["result"]["content"][0]["text"] for answer in answers]
    # 2025-03-26 has no structuredContent: about 2,700 bytes an answer, three fit.
    assert texts[:3] == ['{"blob":"' + "x" * 2600 + '"}'] * 3
    assert texts[3] == "Response too large: more than 10000 bytes"


def test_an_answered_call_leaves_no_reference_cycle_of_its_own(mcp):
    # The call and its invocation referred to each other: every tools/call left the whole
    # call hanging from a cycle, for the garbage collector to find (docs/performance.md).
    import gc

    from mcp_tools.pipeline.invocation import Invocation

    def invocations():
        # Other tests' streamed calls may still hold theirs (a view that ignores a timeout).
        return {id(o) for o in gc.get_objects() if isinstance(o, Invocation)}

    mcp.call_tool("todo_list")
    gc.collect()
    gc.disable()
    try:
        before = invocations()
        for _ in range(5):
            mcp.call_tool("todo_list")
        lingering = invocations() - before
    finally:
        gc.enable()
    assert lingering == set()
