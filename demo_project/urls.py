from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("demo_project.todos.urls")),
    path("showcase/", include("demo_project.showcase.urls")),
    path("", include("mcp_tools.urls")),
]
