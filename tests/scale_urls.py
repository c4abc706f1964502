"""The scale-out URLconf: the admin test URLconf, an endpoint with a throttle of its own,
and the demo's ``todo://{pk}`` resource.

The throttle's history lives in the shared Redis, so it counts the calls of every instance
(tests/interop/test_scale_out.py). The resource is routed as the demo routes it
(demo_project/urls.py): a listener on one instance follows a todo saved elsewhere.
"""

from django.urls import path
from rest_framework.throttling import UserRateThrottle

from demo_project.todos.resources import TodoCardView
from mcp_tools.views import MCPView
from tests.admin_urls import urlpatterns as admin_urlpatterns


class FourPerMinute(UserRateThrottle):
    rate = "4/minute"
    scope = "mcp-scale-out-endpoint"


urlpatterns = [
    path("mcp-throttled", MCPView.as_view(throttle_classes=[FourPerMinute])),
    path("api/todos/<int:pk>/card/", TodoCardView.as_view(), name="todo-card"),
    *admin_urlpatterns,
]
