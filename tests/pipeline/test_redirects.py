"""A safe tool's redirect to a tool its caller may call is followed (docs/results.md#redirects).

The views are ``tests.redirect_urls``'s, served by their own endpoint at ``/rd/mcp``; each is
called through ``MCPClient`` as alice. The followed call's result is the last view's, its
``_meta`` names where it went; every other redirect keeps the contract's text.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import RequestFactory

from mcp_tools.catalog.admin_state import publish
from mcp_tools.models import ExposedTool
from mcp_tools.pipeline.redirects import same_site
from mcp_tools.signals import tool_called
from mcp_tools.test import MCPClient
from tests.testapp.models import Entry

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.redirect_urls")]

LOCATION = "django-mcp-tools/location"


@pytest.fixture
def client(alice):
    return MCPClient(headers={"Authorization": f"Token {alice.token}"}, mcp_path="/rd/mcp")


@pytest.fixture
def entry():
    return Entry.objects.create(label="blog")


def not_followed(location):
    return [{"type": "text", "text": f"Redirect to {location} was not followed"}]


def test_a_find_view_is_followed_to_the_detail_tool_with_its_query(client, entry):
    result = client.call_tool("entry_find", {"label": "blog"})
    assert result["isError"] is False
    expected = {"id": entry.pk, "label": "blog", "query": "label=blog", "user": "alice"}
    assert result["structuredContent"] == expected
    assert result["_meta"] == {LOCATION: f"/rd/entries/{entry.pk}/?label=blog"}


def test_an_absolute_redirect_to_the_requests_own_host_is_followed(client, entry):
    result = client.call_tool("entry_find_absolute", {"label": "blog"})
    assert result["isError"] is False
    assert result["structuredContent"]["id"] == entry.pk
    # Wagtail's shape: the empty query is kept as the redirect gave it.
    assert result["_meta"] == {LOCATION: f"/rd/entries/{entry.pk}/?"}


def test_a_followed_call_is_logged_once_as_the_tool_the_client_called(client, entry):
    calls = []

    def receiver(**kwargs):
        calls.append(kwargs)

    tool_called.connect(receiver)
    try:
        client.call_tool("entry_find", {"label": "blog"})
    finally:
        tool_called.disconnect(receiver)
    [call] = calls
    assert call["tool"] == "entry_find" and call["arguments"] == {"label": "blog"}
    assert call["status"] == 200 and call["outcome"] == "ok"


def test_the_followed_views_own_answer_is_the_result(client):
    # entry_find answers 404 itself: nothing to follow.
    result = client.call_tool("entry_find", {"label": "missing"})
    assert result["isError"] is True and "_meta" not in result


@pytest.mark.parametrize(
    ("tool", "location"),
    [
        ("elsewhere", "https://other.example/rd/entries/1/"),
        ("to_page", "/rd/page/"),
        ("to_admin", "/admin/"),
        ("to_create", "/rd/entries/new/"),
    ],
)
def test_a_redirect_to_no_tool_of_this_site_is_not_followed(client, entry, tool, location):
    result = client.call_tool(tool)
    assert result["isError"] is True
    assert result["content"] == not_followed(location)
    assert "_meta" not in result


def test_a_redirect_to_a_disabled_tool_is_not_followed(client, entry):
    assert client.call_tool("to_hidden", {})["isError"] is False  # followed while enabled
    ExposedTool.objects.update_or_create(name="hidden_detail", defaults={"enabled": False})
    publish()
    result = client.call_tool("to_hidden")
    assert result["content"] == not_followed(f"/rd/hidden/{entry.pk}/")


def test_a_redirect_to_a_tool_of_a_group_the_caller_lacks_is_not_followed(client, alice, entry):
    ops = Group.objects.create(name="ops")
    row, _ = ExposedTool.objects.get_or_create(name="hidden_detail")
    row.allowed_groups.add(ops)
    publish()
    assert client.call_tool("to_hidden")["content"] == not_followed(f"/rd/hidden/{entry.pk}/")
    alice.groups.add(ops)
    result = client.call_tool("to_hidden")
    assert result["isError"] is False
    assert result["_meta"] == {LOCATION: f"/rd/hidden/{entry.pk}/"}


def test_the_override_of_the_view_the_call_ends_at_applies(client):
    result = client.call_tool("to_summary")
    assert result["content"] == [{"type": "text", "text": "the summary"}]
    assert result["_meta"] == {LOCATION: "/rd/summary/"}


def test_a_redirect_to_a_tool_that_asks_for_confirmation_is_not_followed(client):
    assert client.call_tool("to_confirmed")["content"] == not_followed("/rd/confirmed/")


def test_an_unsafe_methods_redirect_is_not_followed(client):
    result = client.call_tool("entry_create", {"label": "new"})
    [created] = Entry.objects.filter(label="new")
    assert result["content"] == not_followed(f"/rd/entries/{created.pk}/")


def test_a_loop_ends_in_an_error_that_says_so(client):
    result = client.call_tool("loop", {"end": "a"})
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "Redirect to /rd/loop/a/ was not followed: a redirect loop"
    )


def test_hops_are_bounded_by_max_redirects(client, settings):
    result = client.call_tool("countdown", {"n": 3})
    assert result["structuredContent"] == {"n": 0}
    assert result["_meta"] == {LOCATION: "/rd/countdown/0/"}
    result = client.call_tool("countdown", {"n": 4})
    assert result["content"][0]["text"] == (
        "Redirect to /rd/countdown/0/ was not followed: more than 3 redirects"
    )
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_REDIRECTS": 1}
    assert client.call_tool("countdown", {"n": 1})["structuredContent"] == {"n": 0}
    assert client.call_tool("countdown", {"n": 2})["content"][0]["text"] == (
        "Redirect to /rd/countdown/0/ was not followed: more than 1 redirects"
    )


def test_max_redirects_0_follows_none(client, entry, settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_REDIRECTS": 0}
    result = client.call_tool("entry_find", {"label": "blog"})
    assert result["content"] == not_followed(f"/rd/entries/{entry.pk}/?label=blog")


# same_site(): Django's own rule for a safe redirect target --------------------------------


@pytest.mark.parametrize(
    ("location", "secure", "expected"),
    [
        ("/rd/entries/1/?a=b", False, ("/rd/entries/1/", "a=b", "/rd/entries/1/?a=b")),
        ("1/", False, ("/rd/entries/1/", "", "/rd/entries/1/")),
        ("http://testserver/rd/x/?", False, ("/rd/x/", "", "/rd/x/?")),
        ("//testserver/rd/x/", False, ("/rd/x/", "", "/rd/x/")),
        ("/rd/caf%C3%A9/", False, ("/rd/café/", "", "/rd/caf%C3%A9/")),
        ("http://testserver/rd/x/", True, None),  # https down to http
        ("https://testserver/rd/x/", True, ("/rd/x/", "", "/rd/x/")),
        ("http://other.example/rd/x/", False, None),
        # A host ALLOWED_HOSTS names is this site's (Wagtail writes its Site's into links).
        ("http://localhost/rd/x/?", False, ("/rd/x/", "", "/rd/x/?")),
        ("//other.example/rd/x/", False, None),
        ("mailto:a@example.com", False, None),
        ("", False, None),
    ],
)
def test_same_site(location, secure, expected):
    request = RequestFactory().get("/rd/entries/", secure=secure)
    assert same_site(location, request) == expected


def test_a_wildcard_of_allowed_hosts_names_no_other_site(settings):
    settings.ALLOWED_HOSTS = ["*", ".example.org"]
    request = RequestFactory().get("/rd/entries/")
    assert same_site("http://testserver/rd/x/", request) == ("/rd/x/", "", "/rd/x/")
    assert same_site("http://localhost/rd/x/", request) is None
    assert same_site("http://www.example.org/rd/x/", request) is None


def test_same_site_keeps_under_the_script_prefix():
    request = RequestFactory().get("/rd/entries/", SCRIPT_NAME="/app")
    request.path = "/app/rd/entries/"
    assert same_site("/app/rd/x/", request) == ("/rd/x/", "", "/app/rd/x/")
    assert same_site("/rd/x/", request) is None
