"""The tasks extension's fixture tools, mounted at /c/tasks/ by the conformance server only.

The test project (tests/urls.py) serves no task tool outside tests/tasks_app, so that its
capabilities stay those of a server without tasks.
"""

from django.urls import path

from . import task_views as views

urlpatterns = [
    path("greet/", views.greet, name="greet"),
    path("slow-compute/", views.slow_compute, name="slow-compute"),
    path("failing-job/", views.failing_job, name="failing-job"),
    path("protocol-error-job/", views.protocol_error_job, name="protocol-error-job"),
    path("confirm-delete/", views.confirm_delete, name="confirm-delete"),
    path("multi-input/", views.multi_input, name="multi-input"),
    path("with-task/", views.tool_with_task, name="tool-with-task"),
]
