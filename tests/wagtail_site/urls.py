"""Wagtail's API v2 on its own router, as Wagtail's documentation sets it up, and /mcp."""

from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.api.v2.router import WagtailAPIRouter
from wagtail.api.v2.views import PagesAPIViewSet
from wagtail.documents.api.v2.views import DocumentsAPIViewSet
from wagtail.images.api.v2.views import ImagesAPIViewSet

api_router = WagtailAPIRouter("wagtailapi")
api_router.register_endpoint("pages", PagesAPIViewSet)
api_router.register_endpoint("images", ImagesAPIViewSet)
api_router.register_endpoint("documents", DocumentsAPIViewSet)

urlpatterns = [
    path("api/v2/", api_router.urls),
    path("", include("mcp_tools.urls")),
    path("", include(wagtail_urls)),
]
