"""The default executor enqueues on the backend ``TASK_BACKEND`` names (docs/tasks.md#executors):
a site's other task users (Wagtail's search index) keep their backend and their worker."""

import pytest

from mcp_tools.models import ToolTask
from mcp_tools.tasks import store as tasks
from mcp_tools.tasks.executors import DjangoTasksExecutor, tasks_framework
from tests.tasks.test_store import client_for

pytestmark = pytest.mark.django_db

#: django.tasks on Django 6, the django_tasks backport on 5.2: the executor's framework.
FRAMEWORK = tasks_framework()
IMMEDIATE = f"{FRAMEWORK.__name__}.backends.immediate.ImmediateBackend"
DUMMY = f"{FRAMEWORK.__name__}.backends.dummy.DummyBackend"


@pytest.fixture(autouse=True)
def two_backends(settings):
    """The site's own jobs run inline ("default"); MCP's wait for a worker ("mcp")."""
    task_backends = FRAMEWORK.task_backends
    settings.ROOT_URLCONF = "tests.tasks_app.urls"
    settings.TASKS = {"default": {"BACKEND": IMMEDIATE}, "mcp": {"BACKEND": DUMMY}}
    settings.MCP_TOOLS = {"TASK_BACKEND": "mcp", "TASK_IMMEDIATE_SECONDS": 0}
    tasks._executors.clear()
    yield task_backends["mcp"]
    task_backends["mcp"].clear()
    tasks._executors.clear()


def test_a_task_is_enqueued_on_the_backend_named(two_backends, alice):
    answer = client_for(alice).call_tool("export_rows", {"rows": 1})
    assert answer["resultType"] == "task"  # not run inline by the default ImmediateBackend
    (job,) = two_backends.results
    assert job.task.name == "run_tool_task" and job.args == [answer["taskId"]]
    assert ToolTask.objects.get(pk=answer["taskId"]).status == ToolTask.WORKING


def test_the_default_alias_is_default(settings):
    settings.MCP_TOOLS = {}
    executor = DjangoTasksExecutor()
    assert executor.job.backend == "default" and executor.immediate
