from django.urls import include, path

from . import views

urlpatterns = [
    path("k/export/", views.ExportView.as_view()),
    path("k/shout/", views.RequiredTaskView.as_view()),
    path("k/fail/", views.FailingView.as_view()),
    path("k/crash/", views.CrashingView.as_view()),
    path("k/ask/", views.AskingView.as_view()),
    path("k/plain/", views.PlainView.as_view()),
    path("k/confirmed/", views.ConfirmedView.as_view()),
    path("k/where/", views.WhereView.as_view()),
    path("k/tokyo/", views.TokyoView.as_view()),
    path("", include("mcp_tools.urls")),
]
