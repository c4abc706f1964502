from django.urls import include, path

from mcp_tools.views import MCPView

from . import views

endpoint = MCPView.as_view(registry=views.registry)

urlpatterns = [
    path("k/export/", views.ExportView.as_view()),
    path("k/shout/", views.RequiredTaskView.as_view()),
    path("k/fail/", views.FailingView.as_view()),
    path("k/crash/", views.CrashingView.as_view()),
    path("k/ask/", views.AskingView.as_view()),
    path("k/plain/", views.PlainView.as_view()),
    # The endpoint of this registry, named as mcp_tools.urls names the default one.
    path("", include(([path("mcp", endpoint, name="endpoint")], "mcp_tools"))),
]
