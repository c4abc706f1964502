"""The scale-out URLconf: the admin test URLconf, and an endpoint with a throttle of its own.

The throttle's history lives in the shared Redis, so it counts the calls of every instance
(tests/interop/test_scale_out.py).
"""

from django.urls import path
from rest_framework.throttling import UserRateThrottle

from mcp_tools.views import MCPView
from tests.admin_urls import urlpatterns as admin_urlpatterns


class FourPerMinute(UserRateThrottle):
    rate = "4/minute"
    scope = "mcp-scale-out-endpoint"


urlpatterns = [
    path("mcp-throttled", MCPView.as_view(throttle_classes=[FourPerMinute])),
    *admin_urlpatterns,
]
