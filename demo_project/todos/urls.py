from django.urls import path
from rest_framework.routers import DefaultRouter

from .views import TodoExportView, TodoStatsView, TodoViewSet

router = DefaultRouter()
router.register("todos", TodoViewSet, basename="todo")

urlpatterns = [
    path("stats/", TodoStatsView.as_view(), name="todo-stats"),
    path("export/", TodoExportView.as_view(), name="todo-export"),
    *router.urls,
]
