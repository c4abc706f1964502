"""A tool call meets the project's middleware exactly as a direct request to its view does.

Each scenario serves the test project with its own ``MIDDLEWARE`` (a WSGI server in a thread
of this process, started and stopped by the test), then makes the same request twice: once
directly over HTTP, once as a tool call through the official MCP Python SDK, in both eras.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager

import httpx2
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.test import Client as HttpClient
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.plugins.otp_static.models import StaticDevice
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from mcp_tools.pipeline import chain as dispatch
from tests.middleware_app.models import Invoice, Tenant

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

ERAS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]
DJANGO_DEFAULT = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
OWN = "tests.middleware_app.middleware."


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


@contextmanager
def served():
    """Serve the project as configured now (its middleware loaded at start), on a free port."""
    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler, allow_reuse_address=False)
    server.set_app(WSGIHandler())
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture
def project(settings):
    """Set the project's MIDDLEWARE (Django's defaults plus ``extra``) and serve it."""

    @contextmanager
    def serve(*extra, **more_settings):
        settings.MIDDLEWARE = [*DJANGO_DEFAULT, *extra]
        for name, value in more_settings.items():
            setattr(settings, name, value)
        with served() as url:
            yield url

    return serve


def call(url, mode, name, arguments=None, headers=None, cookies=None):
    """Call tool ``name`` with the official SDK in ``mode``; return (is_error, text, data).

    A JSON-RPC error is returned as ("protocol", its message, None).
    """

    async def scenario():
        http = httpx2.AsyncClient(headers=headers or {}, cookies=cookies or {}, timeout=30)
        transport = streamable_http_client(f"{url}/mcp", http_client=http)
        async with http, Client(transport, mode=mode) as client:
            try:
                result = await client.call_tool(name, arguments or {})
            except MCPError as error:
                return "protocol", error.message, None
            text = "".join(getattr(block, "text", "") for block in result.content)
            return result.is_error, text, result.structured_content

    return asyncio.run(asyncio.wait_for(scenario(), timeout=60))


def direct(url, path, headers=None, cookies=None):
    with httpx2.Client(headers=headers or {}, cookies=cookies or {}, timeout=30) as http:
        return http.get(url + path, follow_redirects=False)


def token(user):
    return {"Authorization": f"Token {user.token}"}


@pytest.fixture
def staff(django_user_model):
    from rest_framework.authtoken.models import Token

    user = django_user_model.objects.create_user("stella", password="pw", is_staff=True)
    user.token = Token.objects.create(user=user).key
    return user


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_staff_only_prefix_refuses_the_tool_call_as_the_direct_request(
    project, alice, staff, mode, version
):
    with project(OWN + "StaffOnlyMiddleware") as url:
        refused = direct(url, "/m/internal/report/", token(alice))
        assert (refused.status_code, refused.text) == (403, "Staff only.")
        is_error, text, data = call(url, mode, "internal_report", headers=token(alice))
        assert is_error is True
        assert "Staff only." in text and "revenue" not in text
        assert data is None

        allowed = direct(url, "/m/internal/report/", token(staff))
        assert allowed.json() == {"secret": "revenue up 12%"}
        is_error, _, data = call(url, mode, "internal_report", headers=token(staff))
        assert is_error is False
        assert data == {"secret": "revenue up 12%"}


def listed(url, mode, headers):
    """Return the names of the tools the official SDK lists in ``mode``, every page."""

    async def scenario():
        http = httpx2.AsyncClient(headers=headers, timeout=30)
        transport = streamable_http_client(f"{url}/mcp", http_client=http)
        names, cursor = set(), None
        async with http, Client(transport, mode=mode) as client:
            for _page in range(50):
                page = await client.list_tools(cursor=cursor)
                names |= {tool.name for tool in page.tools}
                cursor = page.next_cursor
                if cursor is None:
                    return names
        raise AssertionError("more than 50 pages")

    return asyncio.run(asyncio.wait_for(scenario(), timeout=60))


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_view_only_middleware_protects_is_listed_to_a_caller_it_refuses(
    project, alice, mode, version
):
    """docs/dispatch.md: tools/list asks the view's permission classes, which admit alice;
    the staff-only middleware runs only when the view does, and refuses her call."""
    with project(OWN + "StaffOnlyMiddleware") as url:
        assert "internal_report" in listed(url, mode, token(alice))
        is_error, text, _ = call(url, mode, "internal_report", headers=token(alice))
        assert is_error is True and "Staff only." in text


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_tenant_middleware_scopes_the_tool_call_as_the_direct_request(
    project, alice, mode, version
):
    acme, globex = Tenant.objects.create(slug="acme"), Tenant.objects.create(slug="globex")
    Invoice.objects.create(tenant=acme, number="A-1")
    Invoice.objects.create(tenant=globex, number="G-1")
    headers = {**token(alice), "X-Tenant-ID": "acme"}
    with project(OWN + "TenantMiddleware") as url:
        numbers = [row["number"] for row in direct(url, "/m/invoices/", headers).json()]
        assert numbers == ["A-1"]
        is_error, _, data = call(url, mode, "invoice_list", headers=headers)
        assert is_error is False
        items = data if version == "2026-07-28" else data["items"]
        assert [row["number"] for row in items] == ["A-1"]

        # The middleware refuses an unknown tenant everywhere, the /mcp request included.
        unknown = {**token(alice), "X-Tenant-ID": "initech"}
        assert direct(url, "/m/invoices/", unknown).status_code == 404
        with httpx2.Client(headers=unknown) as http:
            refused = http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert (refused.status_code, refused.json()) == (404, {"detail": "No tenant initech."})


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_a_middleware_that_answers_itself_answers_the_tool_call(project, alice, mode, version):
    with project(OWN + "ShortCircuitMiddleware") as url:
        assert direct(url, "/m/closed/", token(alice)).status_code == 403
        is_error, text, _ = call(url, mode, "closed_area", headers=token(alice))
        assert is_error is True and "This area is closed." in text

        moved = direct(url, "/m/moved/", token(alice))
        assert (moved.status_code, moved.headers["Location"]) == (302, "/m/new-home/")
        is_error, text, _ = call(url, mode, "moved_area", headers=token(alice))
        assert is_error is True
        assert text == "Redirect to /m/new-home/ was not followed"


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_view_and_exception_middleware_run_around_the_tools_view(project, alice, mode, version):
    extra = (OWN + "ViewNameMiddleware", OWN + "ExceptionPageMiddleware")
    with project(*extra) as url:
        seen = direct(url, "/m/view-name/", token(alice)).json()
        assert seen["seen"]  # process_view saw the view that Django called
        assert call(url, mode, "view_name", headers=token(alice))[2] == seen

        conflict = direct(url, "/m/conflicting/", token(alice))
        assert conflict.status_code == 409
        is_error, text, _ = call(url, mode, "conflicting", headers=token(alice))
        assert is_error is True and "Conflict: no such slot" in text


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_login_required_middleware_meets_the_tool_call_as_the_direct_request(
    project, alice, mode, version
):
    login = "django.contrib.auth.middleware.LoginRequiredMiddleware"
    with project(login, LOGIN_URL="/accounts/login/") as url:
        # The endpoint answers for itself: its own policy, not a redirect to a login page.
        is_error, _, data = call(url, mode, "open_report", headers=token(alice))
        assert (is_error, data) == (False, {"report": "open"})
        assert direct(url, "/m/open-report/", token(alice)).json() == {"report": "open"}

        # A token is not a login: the middleware sends both requests to the login page.
        redirected = direct(url, "/m/login-report/", token(alice))
        assert redirected.status_code == 302
        location = redirected.headers["Location"]
        assert location == "/accounts/login/?next=/m/login-report/"
        is_error, text, _ = call(url, mode, "login_report", headers=token(alice))
        assert is_error is True
        assert text == f"Redirect to {location} was not followed"


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_django_maintenance_mode_closes_the_api_to_tool_calls_too(project, alice, mode, version):
    middleware = "maintenance_mode.middleware.MaintenanceModeMiddleware"
    # The operator keeps the MCP endpoint up (so that clients read why), the API closed.
    options = {"MAINTENANCE_MODE": True, "MAINTENANCE_MODE_IGNORE_URLS": [r"^/mcp$"]}
    with project(middleware, **options) as url:
        assert direct(url, "/m/view-name/", token(alice)).status_code == 503
        is_error, text, data = call(url, mode, "view_name", headers=token(alice))
        assert is_error is True and data is None


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_django_otp_gates_the_tool_call_on_the_sessions_second_factor(
    project, alice, mode, version
):
    device = StaticDevice.objects.create(user=alice, name="backup")
    browser = HttpClient()
    browser.force_login(alice)
    csrf = "c" * 32
    cookies = {"sessionid": browser.cookies["sessionid"].value, "csrftoken": csrf}
    headers = {"X-CSRFToken": csrf}
    otp = "django_otp.middleware.OTPMiddleware"
    with project(otp) as url:
        refused = direct(url, "/m/verified/", headers, cookies)
        assert refused.json() == {"detail": "A second factor is required."}
        # The tool is hidden from a caller its view refuses: an unknown tool (docs/visibility.md).
        refusal = call(url, mode, "verified_secret", headers=headers, cookies=cookies)
        assert refusal == ("protocol", "Unknown tool: verified_secret", None)

        session = browser.session
        session[DEVICE_ID_SESSION_KEY] = device.persistent_id
        session.save()
        assert direct(url, "/m/verified/", headers, cookies).json() == {"secret": "two factors"}
        is_error, _, data = call(url, mode, "verified_secret", headers=headers, cookies=cookies)
        assert (is_error, data) == (False, {"secret": "two factors"})


def test_direct_dispatch_carries_every_attribute_the_outer_middleware_set(project, alice, settings):
    acme = Tenant.objects.create(slug="acme")
    Invoice.objects.create(tenant=acme, number="A-1")
    Invoice.objects.create(tenant=Tenant.objects.create(slug="globex"), number="G-1")
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISPATCH": "direct"}
    headers = {**token(alice), "X-Tenant-ID": "acme"}
    with project(OWN + "TenantMiddleware") as url:
        # The tenant middleware ran once, for /mcp; its request.tenant reached the view.
        _, _, data = call(url, "legacy", "invoice_list", headers=headers)
        assert [row["number"] for row in data["items"]] == ["A-1"]


def test_direct_dispatch_runs_no_middleware_for_the_view(project, alice, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISPATCH": "direct"}
    with project(OWN + "StaffOnlyMiddleware") as url:
        # The opt-out's documented cost: path policy in middleware does not apply.
        is_error, _, data = call(url, "legacy", "internal_report", headers=token(alice))
        assert (is_error, data) == (False, {"secret": "revenue up 12%"})


def test_the_chain_is_built_once_and_again_when_the_settings_change(settings):
    settings.MIDDLEWARE = [*DJANGO_DEFAULT, OWN + "TenantMiddleware"]
    first = dispatch.chain()
    assert dispatch.chain() is first
    assert first.running == [OWN + "TenantMiddleware"]
    assert first.skipped == [path for path in DJANGO_DEFAULT]
    settings.MIDDLEWARE = [*DJANGO_DEFAULT]
    assert dispatch.chain() is not first
    assert dispatch.chain().running == []


# -- The chain as Django's handler runs it (in-process: Django's test client) ---------------


@pytest.fixture
def in_process(settings, alice):
    """Set MIDDLEWARE and return alice's MCP client and a plain HTTP client."""
    from mcp_tools.test import MCPClient

    def clients(*extra):
        settings.MIDDLEWARE = [*DJANGO_DEFAULT, *extra]
        headers = {"Authorization": f"Token {alice.token}"}
        return MCPClient(headers=headers), HttpClient(headers=headers)

    return clients


def test_an_async_only_middlewares_process_view_runs_to_completion(in_process):
    mcp, http = in_process(OWN + "AsyncOnlyGateMiddleware")
    assert http.get("/m/async-gate/").status_code == 403
    result = mcp.call_tool("async_gate")
    assert result["isError"] is True
    assert "closed by an async hook" in result["content"][0]["text"]


def test_a_template_response_from_process_view_is_rendered(in_process):
    mcp, http = in_process(OWN + "TemplatePageMiddleware")
    assert http.get("/m/page/").content == b"page for the middleware"
    result = mcp.call_tool("page")
    assert (result["isError"], result["content"][0]["text"]) == (False, "page for the middleware")


def test_what_a_hook_raises_is_djangos_500_not_the_exception_middlewares(in_process):
    from tests.middleware_app.middleware import BrokenHookMiddleware

    BrokenHookMiddleware.seen.clear()
    mcp, http = in_process(OWN + "BrokenHookMiddleware")
    http.raise_request_exception = False
    assert http.get("/m/broken-hook/").status_code == 500
    result = mcp.call_tool("broken_hook")
    assert result["isError"] is True and result["content"][0]["text"] == "Internal server error"
    assert BrokenHookMiddleware.seen == []  # as Django: process_exception is for the view


def test_a_view_that_returns_nothing_is_a_masked_error_with_a_reference(in_process):
    mcp, _ = in_process(OWN + "ViewNameMiddleware")
    result = mcp.call_tool("returns_nothing")
    assert result["isError"] is True and result["content"][0]["text"] == "Internal server error"
    assert result["_meta"]["django-mcp-tools/errorRef"]


def test_a_middleware_that_changes_the_method_refuses_the_tool_call(in_process):
    mcp, _ = in_process(OWN + "AlwaysDeleteMiddleware")
    result = mcp.call_tool("overridden")
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text == "A middleware changed the method of this tool call to DELETE."
