"""An endpoint's DRF policy: authentication, permission and throttle classes, per endpoint."""

import base64
import json
import types

import pytest
from django.core.cache import cache
from django.urls import include, path
from rest_framework.authentication import BasicAuthentication, TokenAuthentication
from rest_framework.permissions import AllowAny, BasePermission, IsAdminUser, IsAuthenticated
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

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


class FourPerMinute(UserRateThrottle):
    rate = "4/minute"
    scope = "mcp-endpoint-batch-tests"


def mount_with_the_todos(settings, route, view):
    """Serve the demo's todos and ``view`` at ``/route``, with a fresh throttle history."""
    module = types.ModuleType(f"{route}_urls")
    module.urlpatterns = [path("api/", include("demo_project.todos.urls")), path(route, view)]
    settings.ROOT_URLCONF = module
    cache.clear()


def creates(client, count):
    """A batch of ``count`` todo_create calls (2025-03-26 is the last version with batches)."""
    return [
        client.message("tools/call", {"name": "todo_create", "arguments": {"title": "t"}})
        for _ in range(count)
    ]


@pytest.mark.parametrize("batches", [1, 4])
def test_an_endpoint_throttle_counts_every_tools_call_of_a_batch(settings, alice, batches):
    # Four a minute: the batch's request counts once for its first call, each further call
    # once more; past four, each call is refused in the batch, and no view runs for it.
    from demo_project.todos.models import Todo

    mount_with_the_todos(settings, "mcp-batched", MCPView.as_view(throttle_classes=[FourPerMinute]))
    client = MCPClient(mcp_path="/mcp-batched", headers={"Authorization": f"Token {alice.token}"})
    answers = []
    for _ in range(batches):
        response = client.send(
            creates(client, 20 // batches), headers={"MCP-Protocol-Version": "2025-03-26"}
        )
        if response.status_code == 429:  # the batch's request itself, past the limit
            answers.append("request refused")
            continue
        assert response.status_code == 200
        for answer in json.loads(response.content):
            answers.append("ran" if "result" in answer else answer["error"]["code"])
    assert answers.count("ran") == 4
    assert Todo.objects.filter(owner=alice).count() == 4
    assert set(answers) - {"ran"} <= {-32029, "request refused"}


def test_a_get_hook_reads_the_authenticated_user_as_on_a_drf_view(settings, alice):
    # DRF users write get_throttles() from self.request.user: a batch's further calls must
    # be counted as the token's user, not as the middleware's anonymous one.
    from demo_project.todos.models import Todo

    class UsersThrottled(MCPView):
        def get_throttles(self):
            return [FourPerMinute()] if self.request.user.is_authenticated else []

    mount_with_the_todos(settings, "mcp-user-hook", UsersThrottled.as_view())
    client = MCPClient(mcp_path="/mcp-user-hook", headers={"Authorization": f"Token {alice.token}"})
    response = client.send(creates(client, 10), headers={"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 200
    codes = [answer.get("error", {}).get("code") for answer in json.loads(response.content)]
    assert codes == [None] * 4 + [-32029] * 6
    assert Todo.objects.filter(owner=alice).count() == 4


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


# -- DRF's own permission tests (rest_framework/tests/test_permissions.py), on the endpoint --


class OnlyOnTuesdays(BasePermission):
    message = "Only on Tuesdays."

    def has_permission(self, request, view):
        return False


class CodedRefusal(BasePermission):
    message = "Not in this region."
    code = "region_closed"

    def has_permission(self, request, view):
        return False


class OwnHooksView(MCPView):
    """A project's endpoint that overrides DRF's refusal hooks, as it would on an APIView."""

    authentication_classes = [TokenAuthentication]
    permission_classes = [OnlyOnTuesdays]
    throttle_classes = [OncePerMinute]

    def permission_denied(self, request, message=None, code=None):
        super().permission_denied(request, message=f"{message} (today is not)", code=code)


class NeverThrottleWait(OncePerMinute):
    def wait(self):
        return None


@pytest.fixture
def refusing_endpoints(settings):
    cache.clear()  # the throttles' history
    module = types.ModuleType("refusing_endpoint_urls")
    module.urlpatterns = [
        path("api/", include("demo_project.todos.urls")),
        path("mcp-tuesday", MCPView.as_view(permission_classes=[OnlyOnTuesdays])),
        path("mcp-coded", MCPView.as_view(permission_classes=[CodedRefusal])),
        path("mcp-hooks", OwnHooksView.as_view(permission_classes=[IsAuthenticated])),
        path("mcp-hooks-tuesday", OwnHooksView.as_view()),
        path(
            "mcp-no-wait",
            MCPView.as_view(permission_classes=[AllowAny], throttle_classes=[NeverThrottleWait]),
        ),
    ]
    settings.ROOT_URLCONF = module


def refusal(path, authorization=None):
    headers = {"Authorization": authorization} if authorization else {}
    client = MCPClient(mcp_path=path, headers=headers)
    response = client.send(client.message("tools/list"))
    return response.status_code, response.json().get("error"), response


def test_a_permissions_message_is_the_refusals_message_as_in_drf(refusing_endpoints, alice):
    status_code, error, _ = refusal("/mcp-tuesday", f"Token {alice.token}")
    assert status_code == 403
    assert error["message"] == "Only on Tuesdays."
    assert "data" not in error  # DRF's default code, permission_denied: nothing to add


def test_a_permissions_code_travels_in_the_errors_data(refusing_endpoints, alice):
    status_code, error, _ = refusal("/mcp-coded", f"Token {alice.token}")
    assert (status_code, error["message"]) == (403, "Not in this region.")
    assert error["data"] == {"code": "region_closed"}


def test_an_unauthenticated_caller_is_told_to_authenticate_whatever_the_message(
    refusing_endpoints,
):
    # DRF: permission_denied raises NotAuthenticated when no authenticator succeeded.
    status_code, error, response = refusal("/mcp-tuesday")
    assert status_code == 401
    assert error["message"] == "Authentication credentials were not provided."
    assert response["WWW-Authenticate"] == "Token"


def test_an_endpoint_subclass_overrides_permission_denied(refusing_endpoints, alice):
    status_code, error, _ = refusal("/mcp-hooks-tuesday", f"Token {alice.token}")
    assert (status_code, error["message"]) == (403, "Only on Tuesdays. (today is not)")


def test_an_endpoint_subclass_throttles_with_its_own_classes(refusing_endpoints, alice):
    assert refusal("/mcp-hooks", f"Token {alice.token}")[0] == 200
    status_code, error, response = refusal("/mcp-hooks", f"Token {alice.token}")
    assert status_code == 429
    assert error["message"].startswith("Request was throttled.")
    assert int(response["Retry-After"]) > 0


def test_a_throttle_without_a_wait_refuses_without_retry_after(refusing_endpoints):
    assert refusal("/mcp-no-wait")[0] == 200
    status_code, error, response = refusal("/mcp-no-wait")
    assert (status_code, error["message"]) == (429, "Request was throttled.")
    assert not response.has_header("Retry-After")


def test_the_policy_runs_in_drfs_order_from_initial(refusing_endpoints, alice, monkeypatch):
    order = []
    for hook in ("perform_authentication", "check_permissions", "check_throttles"):
        original = getattr(MCPView, hook)

        def spy(self, request, _original=original, _hook=hook):
            order.append(_hook)
            return _original(self, request)

        monkeypatch.setattr(MCPView, hook, spy)
    assert refusal("/mcp-no-wait", f"Token {alice.token}")[0] == 200
    assert order == ["perform_authentication", "check_permissions", "check_throttles"]


class OnlyFromTheOffice(MCPView):
    """An open endpoint (no credentials read) whose own hook refuses outside one address."""

    authentication_classes = []
    permission_classes = [AllowAny]

    def check_permissions(self, request):
        if request.META.get("REMOTE_ADDR") != "10.0.0.1":
            self.permission_denied(request, message="Only from the office.")


def test_an_open_endpoint_still_runs_a_subclasss_own_hooks(settings):
    module = types.ModuleType("office_urls")
    module.urlpatterns = [path("mcp-office", OnlyFromTheOffice.as_view())]
    settings.ROOT_URLCONF = module
    status_code, error, _ = refusal("/mcp-office")
    assert (status_code, error["message"]) == (403, "Only from the office.")


class AnonOncePerMinute(AnonRateThrottle):
    rate = "1/minute"
    scope = "mcp-endpoint-anon-tests"


@pytest.mark.parametrize(("num_proxies", "second"), [(None, 200), (0, 429)])
def test_an_anonymous_throttle_keys_on_the_address_as_drfs_num_proxies_says(
    settings, num_proxies, second
):
    # docs/security.md: with NUM_PROXIES unset, a client's own X-Forwarded-For is its key.
    from django.core.cache import cache

    module = types.ModuleType("anon_throttled_urls")
    module.urlpatterns = [
        path(
            "mcp-anon",
            MCPView.as_view(
                authentication_classes=[],
                permission_classes=[AllowAny],
                throttle_classes=[AnonOncePerMinute],
            ),
        )
    ]
    settings.ROOT_URLCONF = module
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}
    cache.clear()
    statuses = []
    for address in ("198.51.100.1", "198.51.100.2"):
        client = MCPClient(mcp_path="/mcp-anon", headers={"X-Forwarded-For": address})
        statuses.append(client.send(client.message("tools/list")).status_code)
    assert statuses == [200, second]
