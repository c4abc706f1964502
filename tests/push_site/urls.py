"""The device viewsets on a router, as django-push-notifications' README registers them,
and /mcp."""

from django.urls import include, path
from push_notifications.api.rest_framework import (
    APNSDeviceAuthorizedViewSet,
    GCMDeviceAuthorizedViewSet,
)
from rest_framework.routers import DefaultRouter

router = DefaultRouter()
router.register("apns", APNSDeviceAuthorizedViewSet)
router.register("gcm", GCMDeviceAuthorizedViewSet)

urlpatterns = [
    path("api/devices/", include(router.urls)),
    path("", include("mcp_tools.urls")),
]
