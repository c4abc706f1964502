"""The view's request over MCP is the request a direct HTTP call by the same caller makes."""

import base64

import pytest
from django.core.cache import cache
from django.core.signals import request_finished
from django.http.request import HttpHeaders
from django.test import RequestFactory
from django.test.utils import override_settings

from mcp_tools.test import MCPClient, MCPError

pytestmark = pytest.mark.django_db


@pytest.fixture
def mcp_with_headers(alice):
    """Alice's MCP client, with headers a client or a proxy adds and some that must stay behind."""
    return MCPClient(
        headers={
            "Authorization": f"Token {alice.token}",
            "Accept-Language": "fr",
            "User-Agent": "agent/1.0",
            "X-Forwarded-For": "203.0.113.9",
            "X-Tenant-ID": "acme",
            "X-Request-ID": "req-42",
            "Mcp-Session-Id": "ignored",
            "Last-Event-ID": "ignored",
            "Accept-Encoding": "gzip",
            "X-HTTP-Method-Override": "DELETE",
            "If-None-Match": '"etag-of-the-mcp-answer"',
        }
    )


def test_the_view_sees_an_ordinary_request_from_the_same_caller(mcp_with_headers):
    result = mcp_with_headers.call_tool("echo", {"word": "hello"})
    seen = result["structuredContent"]
    assert seen["word"] == "hello"
    assert seen["method"] == "GET"
    assert seen["path"] == "/t/echo/hello/"
    assert seen["user"] == "alice"
    assert seen["url_name"] == "echo"
    assert seen["accept"] == "*/*"
    assert seen["is_mcp_request"] is True
    assert seen["tool_call"] == {"name": "echo", "arguments": {"word": "hello"}}
    assert seen["scheme"] == "http"


def test_the_clients_headers_reach_the_view_less_the_transports(mcp_with_headers):
    headers = set(mcp_with_headers.call_tool("echo", {"word": "x"})["structuredContent"]["headers"])
    # As a direct request from the same client: the project's own headers too. The test
    # client sends no Host header (Django falls back to SERVER_NAME) and an empty Cookie
    # header; MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Accept-Encoding, method
    # overrides and the conditions on the /mcp answer stay behind, and Accept is the view
    # request's own.
    assert headers == {
        "HTTP_ACCEPT",
        "HTTP_ACCEPT_LANGUAGE",
        "HTTP_AUTHORIZATION",
        "HTTP_COOKIE",
        "HTTP_USER_AGENT",
        "HTTP_X_FORWARDED_FOR",
        "HTTP_X_TENANT_ID",
        "HTTP_X_REQUEST_ID",
    }


def test_the_views_request_headers_are_djangos_of_its_meta(mcp_with_headers):
    # request.headers of the view's request is built by mcp_tools (core.request_headers): the
    # same mapping Django builds of the same META, names and values.
    seen = mcp_with_headers.call_tool("echo", {"word": "x"})["structuredContent"]
    headers = seen["request_headers"]
    assert {HttpHeaders.to_wsgi_name(name) for name in headers} == set(seen["headers"]) | {
        "CONTENT_LENGTH"  # the view's request's own body, empty: "0"
    }
    assert headers["Accept"] == "*/*"
    assert headers["X-Tenant-Id"] == "acme"
    assert headers["Content-Length"] == "0"
    assert "Mcp-Session-Id" not in headers


def test_over_plain_http_the_view_is_not_an_mcp_request(http):
    seen = http.get("/t/echo/hello/").json()
    assert seen["is_mcp_request"] is False
    assert seen["tool_call"] is None


def test_the_endpoints_authentication_is_handed_over_when_the_classes_match(mcp_with_headers):
    # DRF's forced-authentication hook: the view does not authenticate the token again.
    seen = mcp_with_headers.call_tool("echo", {"word": "x"})["structuredContent"]
    assert seen["authenticator"] == "ForcedAuthentication"


def invoke(name, headers):
    """Run a tool's invocation as the endpoint does, past the visibility rule.

    Over MCP these tools are hidden from a caller their views refuse; this runs the view
    anyway, to show that its own checks refuse the call exactly as a direct request.
    """
    from mcp_tools.endpoint.exchange import Call, Exchange
    from mcp_tools.pipeline.invocation import Invocation
    from mcp_tools.pipeline.plans import CallPlan
    from mcp_tools.protocol.jsonrpc import parse_message
    from mcp_tools.protocol.projection import project_result
    from mcp_tools.protocol.versions import Era
    from mcp_tools.tools.registry import registry
    from mcp_tools.views import MCPView

    request = RequestFactory().post("/mcp", headers=headers)
    endpoint = MCPView()
    caller = endpoint.authenticate(request)
    tool = registry.get_tool(name)
    params = {"name": name}
    message = parse_message({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    call = Call(Exchange(request, caller, endpoint), message, Era("2025-11-25"))
    invocation = Invocation(call, CallPlan(tool), {})
    assert invocation.start() is None
    return project_result(invocation.run(), "2025-11-25")


def assert_hidden(mcp, name):
    with pytest.raises(MCPError, match=f"Unknown tool: {name}"):
        mcp.call_tool(name)


def test_a_view_with_other_authentication_classes_authenticates_for_itself(mcp, http, alice):
    # The view only accepts Basic auth: the copied Token header does not satisfy it, so the
    # call is refused exactly as a direct HTTP call with the same header is (and over MCP
    # the tool is hidden from this caller).
    headers = {"Authorization": f"Token {alice.token}"}
    assert_hidden(mcp, "basic_only")
    result = invoke("basic_only", headers)
    direct = http.get("/t/basic-only/")
    assert direct.status_code == 401
    assert result["isError"] is True
    assert result["content"][0]["text"] == direct.content.decode()


@pytest.mark.parametrize(
    "path,name",
    [("/t/session-only/", "session_only"), ("/t/own-authenticators/", "own_authenticators")],
)
def test_a_token_caller_gets_no_more_than_a_direct_call_would(mcp, http, alice, path, name):
    # A session-only view must not take the token user for its session's, and a view that
    # chooses its authenticators itself is not handed the endpoint's identity (and over MCP
    # the tool is hidden from this caller).
    direct = http.get(path)
    assert direct.status_code in (401, 403)
    assert_hidden(mcp, name)
    result = invoke(name, {"Authorization": f"Token {alice.token}"})
    assert result["isError"] is True
    assert result["content"][0]["text"] == direct.content.decode()


def test_basic_credentials_are_copied_to_a_basic_only_view(alice, settings):
    settings.MCP_TOOLS = {
        "AUTHENTICATION_CLASSES": ["rest_framework.authentication.BasicAuthentication"]
    }
    basic = base64.b64encode(b"alice:alice-password").decode()
    mcp = MCPClient(headers={"Authorization": f"Basic {basic}"})
    result = mcp.call_tool("basic_only")
    assert result["structuredContent"] == {"user": "alice"}


def test_the_views_permission_classes_always_run(mcp, alice):
    assert_hidden(mcp, "staff_only")
    result = invoke("staff_only", {"Authorization": f"Token {alice.token}"})
    assert result["isError"] is True
    assert "You do not have permission" in result["content"][0]["text"]
    alice.is_staff = True
    alice.save()
    assert mcp.call_tool("staff_only")["structuredContent"] == {"staff": True}


def test_the_views_throttles_count_each_call_once(mcp_with_headers):
    cache.clear()
    assert mcp_with_headers.call_tool("limited")["isError"] is False
    mcp_with_headers.list_tools()  # the endpoint applies no throttle of its own
    assert mcp_with_headers.call_tool("limited")["isError"] is False
    third = mcp_with_headers.call_tool("limited")
    assert third["isError"] is True
    assert "throttled" in third["content"][0]["text"]


def test_no_request_finished_is_sent_for_the_inner_response(mcp_with_headers):
    sent = []

    def receiver(**kwargs):
        sent.append(kwargs)

    request_finished.connect(receiver)
    try:
        mcp_with_headers.call_tool("echo", {"word": "x"})
    finally:
        request_finished.disconnect(receiver)
    # Exactly one: the outer /mcp response's own, when the test client closes it.
    assert len(sent) == 1


def test_session_user_and_language_are_carried_over(alice):
    client = MCPClient(enforce_csrf_checks=False)
    client.force_login(alice)
    seen = client.call_tool("echo", {"word": "x"})["structuredContent"]
    assert seen["user"] == "alice"
    assert seen["authenticator"] == "ForcedAuthentication"


@override_settings(ALLOWED_HOSTS=["api.example"])
def test_host_is_forwarded_and_checked(alice, anonymous_mcp):
    mcp = MCPClient(headers={"Authorization": f"Token {alice.token}", "Host": "api.example"})
    assert mcp.call_tool("echo", {"word": "x"})["isError"] is False
    response = anonymous_mcp.send("{}", headers={"Host": "evil.example"})
    assert response.status_code == 400


@pytest.mark.parametrize(
    "name", ["plain", "é", "١", "\U0001f600", "a b", "%41", "a+b", "ü%E9", "\u202eevil"]
)
def test_a_path_argument_reaches_the_view_as_the_same_url_over_http_would(mcp, http, name):
    # PATH_INFO as a WSGI server hands it to Django: the URL's bytes, read as Latin-1.
    from urllib.parse import quote

    direct = http.get(f"/t/files/{quote(name)}/").json()
    assert direct["name"] == name
    result = mcp.call_tool("file_get", {"name": name})
    assert result["isError"] is False, result
    assert result["structuredContent"] == direct


@pytest.mark.django_db(transaction=True)
def test_a_path_argument_beyond_latin_1_reaches_the_view_under_asgi_too(alice):
    import json

    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    client = AsyncClient()
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "file_get", "arguments": {"name": "١é"}},
    }
    response = async_to_sync(client.post)(
        "/mcp",
        json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Token {alice.token}"},
    )
    result = json.loads(response.content)["result"]  # 2025-03-26: the text carries it
    assert json.loads(result["content"][0]["text"])["path"] == "/t/files/١é/"


def test_the_header_filter_remembers_at_most_a_bounded_number_of_names(monkeypatch):
    from mcp_tools.core import request_headers
    from mcp_tools.pipeline import inner_requests

    monkeypatch.setattr(inner_requests, "_CARRIED", {})
    monkeypatch.setattr(request_headers, "MAX_REMEMBERED_KEYS", 3)
    meta = {"HTTP_X_A": "1", "HTTP_MCP_METHOD": "tools/call", "wsgi.input": None}
    assert inner_requests.client_environ(meta) == {"HTTP_X_A": "1"}
    assert inner_requests._CARRIED == {
        "HTTP_X_A": True,
        "HTTP_MCP_METHOD": False,
        "wsgi.input": False,
    }
    hostile = {f"HTTP_X_{n}": str(n) for n in range(10)}
    assert inner_requests.client_environ(hostile) == hostile  # answered all the same
    assert len(inner_requests._CARRIED) == 3  # and nothing more remembered
    monkeypatch.setattr(inner_requests, "_CARRIED", {})
    long = {"HTTP_X_" + "Y" * 8000: "1"}  # as long as the server lets a header name be
    assert inner_requests.client_environ(long) == long
    assert inner_requests._CARRIED == {}  # never remembered


def test_direct_dispatch_never_carries_what_the_mcp_request_computes_of_its_own(alice):
    from mcp_tools.pipeline.inner_requests import carried_attributes

    outer = RequestFactory().post("/mcp?search=injected&page_size=100000", HTTP_MCP_SESSION_ID="x")
    outer.tenant = "acme"
    outer.GET, outer.COOKIES, outer.headers  # noqa: B018  (what a middleware may read)
    carried = carried_attributes(outer, every=True)
    assert carried["tenant"] == "acme"
    assert not {"GET", "COOKIES", "headers", "POST", "FILES"} & set(carried)


def _environ(**items):
    import io

    environ = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/api/entries/",
        "QUERY_STRING": "",
        "CONTENT_TYPE": "application/json; version=1",
        "CONTENT_LENGTH": "2",
        "wsgi.input": io.BytesIO(b"{}"),
        "wsgi.url_scheme": "http",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
    }
    environ.update(items)
    return environ


@pytest.mark.parametrize(
    "items",
    [
        {},
        {"SCRIPT_NAME": "/prefix", "PATH_INFO": "/caf\xc3\xa9/"},  # "café", as WSGI carries it
        {"REQUEST_METHOD": "GET", "CONTENT_TYPE": "", "CONTENT_LENGTH": "0"},
        {"PATH_INFO": ""},  # the constructor's "/"
    ],
)
def test_a_request_from_the_plans_template_is_what_djangos_constructor_makes(items):
    from types import SimpleNamespace

    from mcp_tools.pipeline.inner_requests import InnerRequest, new_request

    plan = SimpleNamespace(request_template=None)
    length = int(_environ(**items)["CONTENT_LENGTH"])
    new_request(_environ(**items), length, plan)  # the first call's, built: the template
    assert plan.request_template is not None
    copied = new_request(_environ(**items), length, plan)
    built = InnerRequest(_environ(**items))
    assert type(copied) is InnerRequest
    mine, djangos = vars(copied), vars(built)
    assert mine.keys() == djangos.keys()
    for name in djangos.keys() - {"environ", "META", "_stream"}:
        assert mine[name] == djangos[name], name
    assert {k: v for k, v in copied.META.items() if k != "wsgi.input"} == {
        k: v for k, v in built.META.items() if k != "wsgi.input"
    }
    assert copied.environ is copied.META
    assert copied.read() == built.read()


def test_requests_from_one_template_share_nothing_they_may_write_on():
    from types import SimpleNamespace

    from mcp_tools.pipeline.inner_requests import new_request

    plan = SimpleNamespace(request_template=None)
    made = new_request(_environ(), 2, plan)  # the first call's, the template's model
    made.content_params["version"] = "2"  # its view writes on it: no later call sees it
    first = new_request(_environ(), 2, plan)
    second = new_request(_environ(**{"wsgi.input": __import__("io").BytesIO(b"[]")}), 2, plan)
    first.content_params["version"] = "3"
    assert second.content_params == {"version": "1"}
    assert (first.read(), second.read()) == (b"{}", b"[]")
    assert first.META is not second.META


def test_a_request_whose_media_type_names_a_charset_is_built_every_time():
    # Django's constructor reads the query string when a charset is given (and may refuse
    # it): every call's request is its own, so that every call fails alike.
    from types import SimpleNamespace

    from mcp_tools.pipeline.inner_requests import new_request

    plan = SimpleNamespace(request_template=None)
    charset = {"CONTENT_TYPE": "application/json; charset=utf-8"}
    assert new_request(_environ(**charset), 2, plan).encoding == "utf-8"
    assert plan.request_template is None


def test_another_path_or_media_type_makes_the_template_again():
    from types import SimpleNamespace

    from mcp_tools.pipeline.inner_requests import new_request

    plan = SimpleNamespace(request_template=None)
    new_request(_environ(), 2, plan)
    made = plan.request_template
    other = new_request(_environ(SCRIPT_NAME="/other"), 2, plan)
    assert other.path == "/other/api/entries/"
    assert plan.request_template is not made
    plain = new_request(_environ(SCRIPT_NAME="/other", CONTENT_TYPE="text/plain"), 2, plan)
    assert (plain.content_type, plain.content_params) == ("text/plain", {})
    assert plan.request_template.key[3] == "text/plain"


def test_each_call_of_a_tool_without_path_arguments_sends_its_own_body(mcp):
    from mcp_tools.catalog.admin_state import catalog_for
    from mcp_tools.tools.registry import registry
    from tests.testapp.models import Entry

    for label in ("one", "two", "three"):
        assert mcp.call_tool("entry_write", {"label": label})["isError"] is False
    plan = catalog_for(registry.tools()).plan(registry.get_tool("entry_write"))
    assert plan.request_template is not None  # the later calls' requests were copies
    assert list(Entry.objects.order_by("pk").values_list("label", flat=True)) == [
        "one",
        "two",
        "three",
    ]


@pytest.mark.django_db(transaction=True)
def test_the_python_sdk_gets_each_calls_own_request_of_a_templated_tool(live_server, alice):
    # Through the official SDK over HTTP: one session, calls of a tool without path
    # arguments whose requests after the first are copies of its plan's template.
    import anyio

    from mcp_tools.catalog.admin_state import catalog_for
    from mcp_tools.tools.registry import registry
    from tests.sdk import connect
    from tests.testapp.models import Entry

    async def run():
        async with connect(f"{live_server.url}/mcp", token=alice.token) as client:
            return [
                await client.call_tool("entry_write", {"label": label})
                for label in ("one", "two", "three")
            ]

    results = anyio.run(run)
    assert [result.structured_content["count"] for result in results] == [1, 2, 3]
    assert list(Entry.objects.order_by("pk").values_list("label", flat=True)) == [
        "one",
        "two",
        "three",
    ]
    plan = catalog_for(registry.tools()).plan(registry.get_tool("entry_write"))
    assert plan.request_template is not None
    assert plan.request_template.attributes["path"] == "/t/entries/"
