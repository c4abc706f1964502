from django.apps import apps
from django.urls import include, path

urlpatterns = [
    path("api/", include("demo_project.todos.urls")),
    path("t/", include("tests.testapp.urls")),
    path("r/", include("tests.results_app.urls")),
    path("c/", include("tests.conformance_app.urls")),
    path("s/", include("tests.schema_app.urls")),
    path("d/", include("tests.dayone_app.urls")),
    path("m/", include("tests.middleware_app.urls")),
    path("", include("mcp_tools.urls")),
]
if apps.is_installed("tests.spectacular_app"):  # not in tests/settings_plain.py
    urlpatterns.insert(-1, path("x/", include("tests.spectacular_app.urls")))
