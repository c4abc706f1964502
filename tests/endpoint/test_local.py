"""In-process tool calls (Try it, mcp_call) go through the endpoint the URLconf mounts."""

import io
import json
import types

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory
from django.urls import reverse

from mcp_tools.endpoint import local
from mcp_tools.models import ExposedTool
from mcp_tools.protocol.jsonrpc import JSONRPCError

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.admin_endpoint_urls")]


def try_url(name):
    return reverse("admin:mcp_tools_exposedtool_try", args=[ExposedTool.objects.get(name=name).pk])


def test_the_default_endpoint_is_chosen_when_it_serves_the_tool():
    path, endpoint = local.mounted_endpoint(tool="echo")
    assert path == "/mcp" and endpoint.tags == ["echoes"]


def test_another_mounted_endpoint_serves_a_tool_the_default_does_not():
    path, endpoint = local.mounted_endpoint(tool="r_png")
    assert path == "/staff/mcp" and endpoint.tags is None


def test_an_endpoint_is_named_by_its_url_name():
    path, endpoint = local.mounted_endpoint("closed-mcp")
    assert path == "/closed/mcp"
    assert [type(p).__name__ for p in endpoint.get_permissions()] == ["OnlyOnTuesdays"]


@pytest.mark.parametrize(
    ("name", "message"),
    [("nowhere", "No URL named 'nowhere'."), ("admin:index", "is not an MCP endpoint")],
)
def test_a_name_that_is_no_endpoint_is_refused(name, message):
    with pytest.raises(local.NoEndpoint, match=message):
        local.mounted_endpoint(name)


def test_the_endpoint_request_leaves_the_callers_request_as_it_was(admin_user):
    request = RequestFactory().post("/admin/x/try/", {"a": "b"}, HTTP_X_TENANT_ID="acme")
    request.user = admin_user
    before = dict(request.META)
    outer = local.endpoint_request("/mcp", request, HTTP_X_CSRFTOKEN="t")
    assert before == request.META
    assert outer.content_type == "application/json" and outer.path == "/mcp"
    assert outer.META["HTTP_X_TENANT_ID"] == "acme" and outer.META["HTTP_X_CSRFTOKEN"] == "t"
    assert outer.user is admin_user


def test_the_mounted_policy_refuses_as_over_http(alice):
    path, endpoint = local.mounted_endpoint("closed-mcp")
    request = local.endpoint_request(path, host="testserver")
    request.META["HTTP_AUTHORIZATION"] = f"Token {alice.token}"
    with pytest.raises(JSONRPCError, match="Only on Tuesdays."):
        endpoint.authenticate(request)


def test_try_it_calls_through_an_oauth_endpoint_with_the_admins_session(admin_client):
    # The admin's form POST is not the request the endpoint authenticates: DOT's class reads
    # a JSON request from the admin's browser, and its session is the caller.
    response = admin_client.post(try_url("echo"), {"argument_word": "hello"})
    assert response.context["error"] is None
    assert '"user": "admin"' in response.context["structured"]


@pytest.fixture
def closed_default_endpoint(settings):
    from django.contrib import admin
    from django.urls import include, path

    from mcp_tools.views import MCPView
    from tests.admin_endpoint_urls import OnlyOnTuesdays, test_patterns

    closed = MCPView.as_view(permission_classes=[OnlyOnTuesdays])
    module = types.ModuleType("closed_default_urls")
    module.urlpatterns = [
        path("admin/", admin.site.urls),
        path("", include(([path("mcp", closed, name="endpoint")], "mcp_tools"))),
        *test_patterns[:-1],
    ]
    settings.ROOT_URLCONF = module


def test_try_it_is_refused_by_the_mounted_endpoints_policy(closed_default_endpoint, admin_client):
    response = admin_client.post(try_url("echo"), {"argument_word": "hello"})
    assert response.context["error"]["message"] == "Only on Tuesdays."
    assert response.context["result"] is None


def test_try_it_finds_the_endpoint_that_serves_the_tool(admin_client):
    response = admin_client.post(try_url("r_png"), {})
    assert response.context["result"]["content"][0]["type"] == "image"


def test_try_it_returns_the_projected_result_not_json_text(admin_client):
    response = admin_client.post(try_url("echo"), {"argument_word": "x"})
    result = response.context["result"]
    assert result["structuredContent"]["word"] == "x"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_mcp_call_goes_through_the_endpoint_it_is_told(alice):
    out = io.StringIO()
    call_command("mcp_call", "r_png", "--user", "alice", "--endpoint", "staff-mcp", stdout=out)
    assert json.loads(out.getvalue())["content"][0]["type"] == "image"
    with pytest.raises(CommandError, match="Unknown tool: r_png"):
        call_command("mcp_call", "r_png", "--user", "alice", "--endpoint", "mcp_tools:endpoint")
    with pytest.raises(CommandError, match="No URL named 'nowhere'."):
        call_command("mcp_call", "r_png", "--endpoint", "nowhere")


def test_an_endpoint_is_found_behind_a_script_prefix(settings):
    from django.urls import set_script_prefix

    set_script_prefix("/app/")
    try:
        assert local.mounted_endpoint("mcp_tools:endpoint")[0] == "/mcp"
        assert local.mounted_endpoint(tool="r_png")[0] == "/staff/mcp"
    finally:
        set_script_prefix("/")


def test_a_2026_07_28_call_in_process_names_the_server_as_over_http(admin_client, settings):
    # Try it answers 2026-07-28 results as the endpoint does: its serverInfo in _meta, never
    # null (which no 2026-07-28 client's schema takes).
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "SERVER_NAME": "in-process"}
    response = admin_client.post(
        try_url("echo"), {"argument_word": "hi", "protocol_version": "2026-07-28"}
    )
    result = response.context["result"]
    assert result["resultType"] == "complete"
    info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert info["name"] == "in-process" and info["version"]
