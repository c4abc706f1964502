from django.urls import include, path

from .app import views

urlpatterns = [
    path("api/trivial/", views.trivial, name="trivial"),
    path("", include("mcp_tools.urls")),
]
