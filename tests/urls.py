from django.urls import include, path

urlpatterns = [
    path("api/", include("demo_project.todos.urls")),
    path("t/", include("tests.testapp.urls")),
    path("", include("mcp_tools.urls")),
]
