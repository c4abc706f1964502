from django.urls import path
from rest_framework.routers import SimpleRouter

from demo_project.todos.views import TodoViewSet

from . import views


class PlainTodoViewSet(TodoViewSet):
    """The demo's todo viewset without @mcp_tool: the HTTP twin of the decorated one."""


router = SimpleRouter()
router.register("notes", views.NoteViewSet, basename="note")
router.register("plain-todos", PlainTodoViewSet, basename="plain-todo")

urlpatterns = [
    path("report/", views.ReportView.as_view(), name="report"),
    path("plain-report/", views.PlainReportView.as_view(), name="plain-report"),
    path("echo/<slug:word>/", views.EchoView.as_view(), name="echo"),
    path("greet/", views.greet, name="greet"),
    path("entries/", views.entry_write, name="entry-write"),
    path("entries/non-atomic/", views.entry_write_non_atomic, name="entry-write-non-atomic"),
    path("boom/", views.boom, name="boom"),
    path("limited/", views.LimitedView.as_view(), name="limited"),
    path("basic-only/", views.BasicOnlyView.as_view(), name="basic-only"),
    path("staff-only/", views.StaffOnlyView.as_view(), name="staff-only"),
    path("files/<str:name>/", views.FileView.as_view(), name="file"),
    path("session-counter/", views.session_counter, name="session-counter"),
    path("session-only/", views.SessionOnlyView.as_view(), name="session-only"),
    path("own-authenticators/", views.OwnAuthenticatorsView.as_view(), name="own-authenticators"),
    path("ask/<slug:word>/", views.ask_word, name="ask-word"),
    path("ask-on-stream/<slug:word>/", views.ask_on_stream, name="ask-on-stream"),
    path("ask-everything/", views.ask_everything, name="ask-everything"),
    path("entries/<int:pk>/", views.EntryDetailView.as_view(), name="entry-detail"),
    path("entries/purge/", views.entry_purge, name="entry-purge"),
    path("entries/trim/", views.entry_trim, name="entry-trim"),
    path("entries/count/", views.entry_count, name="entry-count"),
    path("ask-confirmed/", views.ask_confirmed, name="ask-confirmed"),
    path("ask-then-act/", views.ask_then_act, name="ask-then-act"),
    path("traced/", views.traced_work, name="traced-work"),
    *router.urls,
]
