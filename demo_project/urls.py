from django.contrib import admin
from django.urls import include, path

from demo_project.home.views import landing
from demo_project.todos.resources import TodoCardView

urlpatterns = [
    path("", landing, name="landing"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("demo_project.todos.urls")),
    # Routed here, not in the todos' URLconf that the test suite includes too: the demo's one
    # resource, a todo as a Markdown card (docs/resources.md).
    path("api/todos/<int:pk>/card/", TodoCardView.as_view(), name="todo-card"),
    path("showcase/", include("demo_project.showcase.urls")),
    path("", include("mcp_tools.urls")),
]
