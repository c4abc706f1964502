"""The masking audit: with DEBUG off, what a failure carries never leaves the server.

Each failure below carries a file path, SQL, a setting's value (``SECRET_KEY``) and a
secret (an API key): a view's exception, a database error, a plain 5xx body, a 500 a view
rendered from its own data, a streamed view's exception, a result processor's exception,
and faults of the endpoint itself (its permission class, its formatter). For every
protocol version, streamed and not, no byte of the answer (body, SSE events, headers)
holds any of them; the client gets an error reference, and the log has the traceback
under it. With DEBUG on, the same failures say what happened.
"""

from __future__ import annotations

import json
import logging

import pytest
from rest_framework.permissions import BasePermission

from mcp_tools.pipeline.formatters import ResponseFormatter
from mcp_tools.protocol.versions import SUPPORTED_VERSIONS
from mcp_tools.test import MCPClient
from tests.wire import sse_messages, validate_exchange, validate_stream

pytestmark = pytest.mark.django_db(transaction=True)

#: What must not leave the server: parts of results_app.views.LEAK, the database error's
#: SQL, and the settings' own values.
MARKERS = [
    "/srv/app/private",
    "settings.py",
    "SELECT",
    "auth_user",
    "hidden_credentials_table",
    "sk-live-51Hd0ntL34k",
    "tests-only-secret-key",
    "Traceback",
]

VIEW_FAULTS = [
    "r_leak_exception",
    "r_leak_sql",
    "r_leak_5xx",
    "r_leak_503",
    "r_leak_data",
    "r_leak_streamed",
]


class LeakingPermission(BasePermission):
    def has_permission(self, request, view):
        from django.conf import settings

        raise RuntimeError(f"/srv/app/private/perms.py: {settings.SECRET_KEY}")


class LeakingFormatter(ResponseFormatter):
    def format_response(self, response, request, tool):
        from django.conf import settings

        raise RuntimeError(f"SELECT password FROM auth_user -- {settings.SECRET_KEY}")


def leaking_processor(result, tool, request):
    from django.conf import settings

    raise ValueError(f"sk-live-51Hd0ntL34k in /srv/app/private/keys.py ({settings.SECRET_KEY})")


#: Settings that make the endpoint itself, or a processor, fail on the call.
SETTINGS_FAULTS = {
    "permission": {"PERMISSION_CLASSES": ["tests.core.test_masking.LeakingPermission"]},
    "formatter": {"FORMATTER_CLASS": "tests.core.test_masking.LeakingFormatter"},
    "processor": {"RESULT_PROCESSORS": ["tests.core.test_masking.leaking_processor"]},
}

CASES = [
    *((tool, None) for tool in VIEW_FAULTS),
    *(("r_object", fault) for fault in SETTINGS_FAULTS),
]


def exchange(alice, version, tool, streamed):
    """Call ``tool`` as alice in ``version``; return the request, response and its bytes."""
    client = MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=version)
    params = {"name": tool, "arguments": {}}
    if streamed:
        params["_meta"] = {"progressToken": "p"}
    request = client.message("tools/call", params)
    response = client.send(request)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    headers = "\n".join(f"{name}: {value}" for name, value in response.items())
    return request, response, body, headers


def answer_of(response, body):
    return sse_messages(body)[-1] if response.streaming else json.loads(body)


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
@pytest.mark.parametrize(("tool", "fault"), CASES)
def test_with_debug_off_no_failure_leaks_anything(
    alice, settings, caplog, version, streamed, tool, fault
):
    settings.DEBUG = False
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, **SETTINGS_FAULTS.get(fault, {})}
    caplog.set_level(logging.ERROR, "mcp_tools")
    request, response, body, headers = exchange(alice, version, tool, streamed)
    text = body.decode() + headers
    assert [marker for marker in MARKERS if marker in text] == []
    answer = answer_of(response, body)
    if fault in ("permission", "formatter"):  # the endpoint's: -32603, its reference only
        assert response.status_code == (500 if not response.streaming else 200)
        assert answer["error"] == {
            "code": -32603,
            "message": "Internal error",
            "data": {"errorRef": answer["error"]["data"]["errorRef"]},
        }
        reference = answer["error"]["data"]["errorRef"]
    else:
        result = answer["result"]
        assert result["isError"] is True
        assert result["content"] == [{"type": "text", "text": "Internal server error"}]
        reference = result["_meta"]["django-mcp-tools/errorRef"]
    if response.streaming:
        validate_stream(version, request, body)
    else:
        validate_exchange(version, request, response.status_code, body)
    # What the client could not read is in the log, under the reference it got.
    [record] = [r for r in caplog.records if reference in r.getMessage()]
    assert record.exc_info is not None or tool in ("r_leak_5xx", "r_leak_503", "r_leak_data")


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(("tool", "fault"), CASES)
def test_with_debug_on_the_same_failures_say_what_happened(alice, settings, streamed, tool, fault):
    settings.DEBUG = True
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, **SETTINGS_FAULTS.get(fault, {})}
    _, response, body, _ = exchange(alice, "2025-11-25", tool, streamed)
    said = json.dumps(answer_of(response, body))
    expected = {
        "r_leak_sql": "hidden_credentials_table",
        "permission": "/srv/app/private/perms.py",
        "formatter": "SELECT password FROM auth_user",
        # A processor's failure stays masked whatever DEBUG says: the unprocessed result
        # may hold exactly what a redacting processor was there to remove.
        "processor": "Internal server error",
    }.get(fault or tool, "/srv/app/private/settings.py")
    assert expected in said, said
