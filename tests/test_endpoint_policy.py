"""An endpoint's DRF policy: authentication, permission and throttle classes, per endpoint."""

import base64
import types

import pytest
from django.urls import include, path
from rest_framework.authentication import BasicAuthentication, TokenAuthentication
from rest_framework.permissions import AllowAny, IsAdminUser, IsAuthenticated
from rest_framework.throttling import UserRateThrottle

from mcp_tools.test import MCPClient, MCPError
from mcp_tools.views import MCPView

pytestmark = pytest.mark.django_db


class OncePerMinute(UserRateThrottle):
    rate = "1/minute"
    scope = "mcp-endpoint-tests"


class BasicMCPView(MCPView):
    """A project's own endpoint class: its policy as class attributes."""

    authentication_classes = [BasicAuthentication]
    permission_classes = [IsAuthenticated]


@pytest.fixture
def two_endpoints(settings):
    module = types.ModuleType("two_endpoint_urls")
    module.urlpatterns = [
        path("api/", include("demo_project.todos.urls")),
        path("mcp-token", MCPView.as_view(authentication_classes=[TokenAuthentication])),
        path("mcp-basic", BasicMCPView.as_view()),
        path("mcp-admins", MCPView.as_view(permission_classes=[IsAdminUser])),
        path("mcp-throttled", MCPView.as_view(throttle_classes=[OncePerMinute])),
        path("mcp-open", MCPView.as_view(authentication_classes=[], permission_classes=[AllowAny])),
    ]
    settings.ROOT_URLCONF = module


def basic(user):
    return (
        "Basic " + base64.b64encode(f"{user.username}:{user.username}-password".encode()).decode()
    )


def status(path, authorization=None):
    headers = {"Authorization": authorization} if authorization else {}
    client = MCPClient(mcp_path=path, headers=headers)
    return client.send(client.message("tools/list")).status_code


def test_two_endpoints_authenticate_differently(two_endpoints, alice):
    token = f"Token {alice.token}"
    assert status("/mcp-token", token) == 200
    assert status("/mcp-basic", token) == 401
    assert status("/mcp-basic", basic(alice)) == 200
    assert status("/mcp-token", basic(alice)) == 401


def test_an_endpoint_with_its_own_permission_classes(two_endpoints, alice, django_user_model):
    assert status("/mcp-admins", f"Token {alice.token}") == 403
    alice.is_staff = True
    alice.save()
    assert status("/mcp-admins", f"Token {alice.token}") == 200


def test_an_open_endpoint_still_runs_each_view_as_its_own_caller(two_endpoints, alice):
    # No authentication at the endpoint: the view's own classes read the copied header, and
    # a view that refuses anonymous callers is hidden from them (an unknown tool).
    anonymous = MCPClient(mcp_path="/mcp-open")
    with pytest.raises(MCPError, match="Unknown tool: todo_list"):
        anonymous.call_tool("todo_list")
    authenticated = MCPClient(
        mcp_path="/mcp-open", headers={"Authorization": f"Token {alice.token}"}
    )
    assert authenticated.call_tool("todo_list")["isError"] is False


def test_an_endpoint_throttle_counts_each_mcp_request_once(two_endpoints, alice):
    from django.core.cache import cache

    cache.clear()
    client = MCPClient(mcp_path="/mcp-throttled", headers={"Authorization": f"Token {alice.token}"})
    assert client.send(client.message("tools/list")).status_code == 200
    refused = client.send(client.message("tools/list"))
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    error = MCPClient.answer_of(refused)["error"]
    assert error["code"] == -32029
    assert error["message"].startswith("Request was throttled.")


def test_the_get_hooks_choose_the_policy(settings, alice):
    class HookedView(MCPView):
        def get_authenticators(self):
            return [BasicAuthentication()]

    module = types.ModuleType("hooked_urls")
    module.urlpatterns = [path("mcp-hooked", HookedView.as_view())]
    settings.ROOT_URLCONF = module
    assert status("/mcp-hooked", f"Token {alice.token}") == 401
    assert status("/mcp-hooked", basic(alice)) == 200


class TwicePerMinute(UserRateThrottle):
    rate = "2/minute"
    scope = "mcp-endpoint-sdk-tests"


@pytest.mark.django_db(transaction=True)
def test_an_endpoint_throttle_refuses_a_real_client_with_429(live_server, settings, alice):
    import anyio
    import mcp
    from django.core.cache import cache

    from tests.sdk import Wire, connect

    module = types.ModuleType("throttled_sdk_urls")
    module.urlpatterns = [
        path("api/", include("demo_project.todos.urls")),
        path("mcp", MCPView.as_view(throttle_classes=[TwicePerMinute])),
    ]
    settings.ROOT_URLCONF = module
    cache.clear()
    wire = Wire()

    async def run():
        async with connect(
            f"{live_server.url}/mcp", token=alice.token, mode="legacy", wire=wire
        ) as client:
            # initialize and notifications/initialized were the two this minute allows.
            with pytest.raises(mcp.MCPError) as refused:
                await client.list_tools()
            return refused.value

    error = anyio.run(run)
    assert error.code == -32029
    assert error.message.startswith("Request was throttled.")
    statuses = [status for _, status, _, _ in wire.posts()]
    assert statuses[:3] == [200, 202, 429]


class RefusesLikeDjango:
    """A permission class that raises Django's own PermissionDenied (not DRF's)."""

    def has_permission(self, request, view):
        from django.core.exceptions import PermissionDenied

        raise PermissionDenied


class FindsTheRequestSuspicious:
    def has_permission(self, request, view):
        from django.core.exceptions import SuspiciousOperation

        raise SuspiciousOperation("odd")


@pytest.mark.parametrize(
    ("permission", "status", "message"),
    [
        (RefusesLikeDjango, 403, "Forbidden"),
        (FindsTheRequestSuspicious, 400, "Bad Request (SuspiciousOperation)"),
    ],
)
def test_djangos_own_refusals_from_a_policy_class_are_answered_as_django_answers_them(
    settings, caplog, permission, status, message
):
    module = types.ModuleType("refusing_urls")
    module.urlpatterns = [
        path("api/", include("demo_project.todos.urls")),
        path("mcp", MCPView.as_view(authentication_classes=[], permission_classes=[permission])),
    ]
    settings.ROOT_URLCONF = module
    client = MCPClient(mcp_path="/mcp")
    response = client.send(client.message("tools/list"))
    assert response.status_code == status
    assert response.json()["error"]["message"] == message
    assert not [record for record in caplog.records if record.levelname == "ERROR"]
