"""mcp_tools.contrib.oauth in-process: audience, scopes, step-up, the challenge (tests/oauth_app).

The real flows, over HTTP with the SDKs' OAuth clients, are in tests/interop/test_oauth_flow.py.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model

from mcp_tools.test import MCPClient, MCPError
from tests.contrib.conftest import BASE, RESOURCE
from tests.oauth_app import views

pytestmark = pytest.mark.django_db

NOT_HERE = "The access token is not valid for this resource."
UNBOUND = "The access token names no resource (RFC 8707): it was not issued for this server."

METADATA = f"{BASE}/.well-known/oauth-protected-resource/mcp"


@pytest.fixture(autouse=True)
def oauth_project(settings):
    settings.ROOT_URLCONF = "tests.oauth_app.urls"
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "OAUTH_AUTHORIZATION_SERVERS": ["/"],
        "OAUTH_SCOPES": ["notes:read"],
        "PUBLIC_URL": RESOURCE,
    }


def client(token=None, path="/mcp"):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return MCPClient(mcp_path=path, headers=headers)


def names(client):
    return sorted(tool["name"] for tool in client.list_tools())


def test_anonymous_callers_get_the_oauth_challenge():
    response = client().send(client().message("tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        f'Bearer scope="notes:read", resource_metadata="{METADATA}"'
    )


def test_the_endpoints_own_scopes_name_the_challenge_and_its_path_form():
    anonymous = client(path="/notes/mcp")
    response = anonymous.send(anonymous.message("tools/list"))
    assert response["WWW-Authenticate"] == (
        'Bearer scope="notes:read notes:write", '
        f'resource_metadata="{BASE}/.well-known/oauth-protected-resource/notes/mcp"'
    )


def test_a_token_for_the_resource_calls_its_tools(mint):
    caller = client(mint())
    assert names(caller) == ["notes_list", "whoami", "whoami_again"]
    result = caller.call_tool("whoami")
    assert result["structuredContent"] == {"username": "alice", "scope": "notes:read"}
    # A view with other classes authenticates the token itself, for the same resource: the
    # tool call is a request to the endpoint, wherever the view is mounted.
    assert caller.call_tool("whoami_again")["structuredContent"]["username"] == "alice"


def test_a_token_for_a_broader_resource_covers_the_endpoint(mint):
    # RFC 8707 as DOT reads it: the resource indicator is a prefix of the endpoint's URL.
    assert names(client(mint(resource=[BASE]))) == ["notes_list", "whoami", "whoami_again"]


@pytest.mark.parametrize(
    ("kwargs", "detail"),
    [
        (
            {"resource": ["https://other.example/mcp"]},
            "The access token is not valid for this resource.",
        ),
        ({"resource": [f"{BASE}/notes/mcp"]}, "The access token is not valid for this resource."),
        (
            {"resource": []},
            "The access token names no resource (RFC 8707): it was not issued for this server.",
        ),
        ({"expires": timedelta(minutes=-1)}, "The access token has expired."),
    ],
)
def test_tokens_not_valid_here_are_refused_with_401(mint, kwargs, detail):
    token = mint(**kwargs)
    caller = client(token)
    response = caller.send(caller.message("tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        f'Bearer error="invalid_token", scope="notes:read", resource_metadata="{METADATA}"'
    )
    assert MCPClient.answer_of(response)["error"]["message"] == detail
    assert token not in response.content.decode()


def test_an_unknown_token_says_nothing_of_the_token_store():
    caller = client("not-a-token")
    response = caller.send(caller.message("tools/list"))
    assert response.status_code == 401
    assert MCPClient.answer_of(response)["error"]["message"] == "The access token is invalid."


def test_a_revoked_token_is_refused(mint):
    token = mint()
    get_access_token_model().objects.get(token=token).revoke()
    assert client(token).send(client(token).message("tools/list")).status_code == 401


def test_tools_whose_scopes_the_token_lacks_are_hidden_and_answer_403(mint):
    caller = client(mint(scope="profile"))
    assert names(caller) == ["whoami", "whoami_again"]
    response = caller.send(caller.message("tools/call", {"name": "notes_create", "arguments": {}}))
    assert response.status_code == 403
    assert response["WWW-Authenticate"] == (
        f'Bearer error="insufficient_scope", scope="notes:write", resource_metadata="{METADATA}"'
    )
    assert MCPClient.answer_of(response)["error"] == {
        "code": -32001,
        "message": "Insufficient scope: this needs the scopes notes:write",
    }


def test_a_step_up_token_sees_and_calls_the_tool(mint):
    caller = client(mint(scope="notes:read notes:write"))
    assert "notes_create" in names(caller)
    assert caller.call_tool("notes_create", {"text": "hi"})["structuredContent"]["text"] == "hi"


def test_a_tool_hidden_for_more_than_scopes_stays_unknown(mint):
    # notes_report needs staff as well: granting scopes would not open it.
    caller = client(mint(scope="profile"))
    with pytest.raises(MCPError, match="Unknown tool: notes_report"):
        caller.call_tool("notes_report")


def test_staff_with_the_scope_see_the_report(mint, alice):
    alice.is_staff = True
    alice.save()
    assert "notes_report" in names(client(mint()))


def test_the_endpoints_own_required_scopes_give_403_insufficient_scope(mint, settings):
    import types

    from django.urls import path
    from oauth2_provider.contrib.rest_framework.permissions import TokenHasScope

    from mcp_tools.views import MCPView

    class ScopedEndpoint(MCPView):
        authentication_classes = views.ENDPOINT_AUTHENTICATION
        permission_classes = [TokenHasScope]
        required_scopes = ["mcp"]

    module = types.ModuleType("scoped_urls")
    module.urlpatterns = [path("mcp", ScopedEndpoint.as_view(registry=views.registry))]
    settings.ROOT_URLCONF = module
    caller = client(mint())
    response = caller.send(caller.message("tools/list"))
    assert response.status_code == 403
    assert response["WWW-Authenticate"] == (
        f'Bearer error="insufficient_scope", scope="mcp", resource_metadata="{METADATA}"'
    )
    assert client(mint(scope="mcp notes:read")).send(caller.message("ping")).status_code == 200


def test_plain_api_calls_keep_dots_rules(mint, alice):
    from django.test import Client

    # Over plain HTTP the view's own URL is what the token must cover: a token bound to the
    # MCP endpoint is refused at /t/whoami, an unbound one accepted as DOT accepts it.
    bound = Client(headers={"Authorization": f"Bearer {mint()}"})
    assert bound.get("/t/whoami").status_code == 401
    unbound = Client(headers={"Authorization": f"Bearer {mint(resource=[])}"})
    assert unbound.get("/t/whoami").json()["username"] == "alice"


def test_oauth_tokens_and_bearer_drf_keys_side_by_side(mint, alice, settings):
    import types

    from django.urls import path

    from mcp_tools.authentication import BearerTokenAuthentication
    from mcp_tools.views import MCPView

    classes = [*views.ENDPOINT_AUTHENTICATION, BearerTokenAuthentication]
    module = types.ModuleType("both_urls")
    module.urlpatterns = [
        path("mcp", MCPView.as_view(registry=views.registry, authentication_classes=classes))
    ]
    settings.ROOT_URLCONF = module
    # DOT's class passes over a key it does not know; the DRF-token class takes it.
    assert client(mint()).send(client().message("ping")).status_code == 200
    assert client(alice.token).send(client().message("ping")).status_code == 200
    assert client("neither").send(client().message("ping")).status_code == 401
    # A DOT token refused for its own reason keeps that reason behind the DRF-key class.
    for kwargs, reason in (
        ({"expires": timedelta(minutes=-1)}, "The access token has expired."),
        ({"resource": ["https://other.example/mcp"]}, NOT_HERE),
    ):
        refused = client(mint(**kwargs)).send(client().message("ping"))
        assert refused.status_code == 401
        assert MCPClient.answer_of(refused)["error"]["message"] == reason


@pytest.mark.parametrize(
    ("permission", "attributes", "method", "scopes"),
    [
        ("TokenHasScope", {"required_scopes": ["a", "b"]}, "GET", {"a", "b"}),
        ("TokenHasReadWriteScope", {"required_scopes": ["a"]}, "GET", {"a", "read"}),
        ("TokenHasReadWriteScope", {}, "POST", {"write"}),
        ("TokenHasResourceScope", {"required_scopes": ["notes"]}, "PUT", {"notes:write"}),
        ("IsAuthenticatedOrTokenHasScope", {"required_scopes": ["a"]}, "GET", {"a"}),
        (
            "TokenMatchesOASRequirements",
            {"required_alternate_scopes": {"POST": [["x", "y"], ["z"]]}},
            "POST",
            {"x", "y"},
        ),
        ("TokenHasScope", {}, "GET", set()),  # no required_scopes: DOT refuses; no step-up
    ],
)
def test_required_scopes_are_read_as_dots_classes_read_them(permission, attributes, method, scopes):
    from oauth2_provider.contrib.rest_framework import permissions
    from rest_framework.permissions import IsAdminUser

    from mcp_tools.contrib.oauth.authentication import OAuth2ResourceAuthentication
    from mcp_tools.schemas.introspection import synthetic_request

    cls = getattr(permissions, permission)
    view = types_view([cls], attributes)
    request = synthetic_request(method)
    assert OAuth2ResourceAuthentication().required_scopes(request, view) == scopes
    composed = types_view([IsAdminUser & cls], attributes)
    assert OAuth2ResourceAuthentication().required_scopes(request, composed) == scopes


def types_view(permission_classes, attributes):
    from rest_framework.views import APIView

    return type("V", (APIView,), {"permission_classes": permission_classes, **attributes})()


def test_without_a_public_url_no_token_is_the_endpoints_and_no_document_is_served(settings, mint):
    # Check mcp_tools.E044 stops `manage.py check`; a server started without it fails closed.
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "PUBLIC_URL": None}
    caller = client(mint())
    response = caller.send(caller.message("tools/list"))
    assert response.status_code == 401
    assert MCPClient.answer_of(response)["error"]["message"] == (
        "This server does not know its own resource identifier: no token can be checked."
    )
    assert "resource_metadata" not in response["WWW-Authenticate"]
    assert Client().get("/.well-known/oauth-protected-resource/mcp").status_code == 404


def test_the_step_up_probe_never_stores_the_scopes_it_tries(mint, settings):
    # A permission class that saves the token it reads (a "last used" stamp, say): the
    # probe's widened copy must never reach the database.
    import types

    from django.urls import path
    from oauth2_provider.contrib.rest_framework.permissions import TokenHasScope

    from mcp_tools.views import MCPView

    class StampsTheToken(TokenHasScope):
        def has_permission(self, request, view):
            request.auth.save()
            return super().has_permission(request, view)

    class ScopedEndpoint(MCPView):
        authentication_classes = views.ENDPOINT_AUTHENTICATION
        permission_classes = [StampsTheToken]
        required_scopes = ["mcp"]

    module = types.ModuleType("stamping_urls")
    module.urlpatterns = [path("mcp", ScopedEndpoint.as_view(registry=views.registry))]
    settings.ROOT_URLCONF = module
    token = mint(scope="notes:read")
    response = client(token).send(client(token).message("tools/list"))
    assert response.status_code == 403  # a step-up to "mcp" would help
    assert get_access_token_model().objects.get(token=token).scope == "notes:read"


def test_the_audience_never_follows_the_requests_script_name(mint, settings):
    # Some servers take SCRIPT_NAME from a request header (gunicorn's forwarder_headers): a
    # token for another resource on this origin, at /other/mcp, stays refused.
    import json

    token = mint(resource=[f"{BASE}/other/mcp"])
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    response = Client(headers=headers).post(
        "/mcp", body, content_type="application/json", SCRIPT_NAME="/other"
    )
    assert response.status_code == 401
    assert MCPClient.answer_of(response)["error"]["message"] == NOT_HERE
    assert f'resource_metadata="{METADATA}"' in response["WWW-Authenticate"]
    # FORCE_SCRIPT_NAME, a setting, is how a site mounted under a prefix says so.
    settings.FORCE_SCRIPT_NAME = "/other"
    accepted = Client(headers=headers).post("/mcp", body, content_type="application/json")
    assert accepted.status_code == 200
    document = Client().get("/.well-known/oauth-protected-resource/other/mcp").json()
    assert document["resource"] == f"{BASE}/other/mcp"


def test_a_toolset_url_is_a_resource_of_its_own(settings):
    import types

    from django.urls import path

    from tests.oauth_app import urls

    module = types.ModuleType("toolset_oauth_urls")
    module.urlpatterns = [
        path("mcp/toolsets/<slug:toolset>", urls.endpoint),
        *urls.urlpatterns,
    ]
    settings.ROOT_URLCONF = module
    document = Client().get("/.well-known/oauth-protected-resource/mcp/toolsets/notes").json()
    assert document["resource"] == f"{BASE}/mcp/toolsets/notes"
