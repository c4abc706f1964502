from django.urls import include, path
from rest_framework.permissions import AllowAny
from rest_framework.throttling import UserRateThrottle

from mcp_tools.views import MCPView

from . import views


class BurstThrottle(UserRateThrottle):
    """What an endpoint that takes task calls from agents might allow one user: the burst
    test of tests/interop/test_task_clients.py sends more."""

    rate = "50/minute"
    scope = "mcp-tasks-burst"


endpoint = MCPView.as_view(registry=views.registry)

urlpatterns = [
    path("k/export/", views.ExportView.as_view()),
    path("k/shout/", views.RequiredTaskView.as_view()),
    path("k/wait/", views.WaitView.as_view()),
    path("k/fail/", views.FailingView.as_view()),
    path("k/crash/", views.CrashingView.as_view()),
    path("k/ask/", views.AskingView.as_view()),
    path("k/plain/", views.PlainView.as_view()),
    path("k/confirmed/", views.ConfirmedView.as_view()),
    path("k/prefix/", views.PrefixView.as_view()),
    path("k/tokyo/", views.TokyoView.as_view()),
    path("k/where/", views.WhereView.as_view(), name="where"),
    path("k/session-whoami/", views.SessionWhoAmIView.as_view()),
    path("k/token-whoami/", views.TokenWhoAmIView.as_view()),
    path("k/echo/", views.EchoView.as_view()),
    # Anyone may call the tool its view lets in (session_whoami): anonymous task quotas.
    path(
        "mcp-open",
        MCPView.as_view(registry=views.registry, tags=["open"], permission_classes=[AllowAny]),
    ),
    path(
        "mcp-throttled",
        MCPView.as_view(registry=views.registry, throttle_classes=[BurstThrottle]),
    ),
    path("", include(([path("mcp", endpoint, name="endpoint")], "mcp_tools"))),
]
