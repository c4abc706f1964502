from django.contrib import admin
from django.urls import include, path

from demo_project.home.views import landing

urlpatterns = [
    path("", landing, name="landing"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("demo_project.todos.urls")),
    path("showcase/", include("demo_project.showcase.urls")),
    path("", include("mcp_tools.urls")),
]
