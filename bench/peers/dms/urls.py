from django.urls import include, path

from .views import Trivial

urlpatterns = [
    path("api/trivial/", Trivial.as_view()),
    path("", include("mcp_server.urls")),
]
