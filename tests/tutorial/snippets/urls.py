from django.urls import include, path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register(r"snippets", views.SnippetViewSet, basename="snippet")
router.register(r"users", views.UserViewSet, basename="user")
router.register(r"my-snippets", views.MySnippetViewSet, basename="my-snippet")

urlpatterns = [
    path("preview/", views.PreviewView.as_view(), name="preview"),
    path("", include(router.urls)),
    path("", include("mcp_tools.urls")),
]
