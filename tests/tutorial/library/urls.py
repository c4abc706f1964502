from django.urls import include, path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register(r"authors", views.AuthorViewSet, basename="author")
router.register(r"books", views.BookViewSet, basename="book")

urlpatterns = [
    path("stats/", views.StatsView.as_view(), name="stats"),
    path("quote/", views.quote, name="quote"),
    path("", include(router.urls)),
    path("", include("mcp_tools.urls")),
]
