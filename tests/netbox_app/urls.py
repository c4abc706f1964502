"""NetBox's routing shape: the API under api/, bulk edits on the list routes, each root
view named ``api-root``-like and served at two routes, a locator routed by hand,
drf-spectacular's schema view among the API's, and the endpoint."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter, Route

from . import views


class NetBoxRouter(DefaultRouter):
    """NetBox's router: the list route also takes its bulk edits."""

    routes = [
        route._replace(
            mapping={
                **route.mapping,
                "put": "bulk_update",
                "patch": "bulk_partial_update",
                "delete": "bulk_destroy",
            }
        )
        if isinstance(route, Route) and route.mapping.get("get") == "list"
        else route
        for route in DefaultRouter.routes
    ]


router = NetBoxRouter()
router.include_root_view = False
router.register("sites", views.SiteViewSet)
router.register("devices", views.DeviceViewSet)

urlpatterns = [
    path("api/", views.APIRootView.as_view(), name="api-root"),
    path("api/plugins/", views.PluginsRootView.as_view(), name="api-root"),
    path("api/", include(router.urls)),
    path(
        "api/dcim/connected-device/",
        views.ConnectedDeviceViewSet.as_view({"get": "list"}),
        name="connected-device-list",
    ),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("", include("mcp_tools.urls")),
]
