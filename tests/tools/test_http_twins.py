"""A decorated view answers plain HTTP exactly as an undecorated twin of it does."""

import pytest

from demo_project.todos.models import Todo
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from tests.testapp.views import report_view_class

pytestmark = pytest.mark.django_db

IGNORED_HEADERS = {"Date"}


def same_response(first, second):
    assert first.status_code == second.status_code
    assert {k: v for k, v in first.items() if k not in IGNORED_HEADERS} == {
        k: v for k, v in second.items() if k not in IGNORED_HEADERS
    }
    assert first.content == second.content


@pytest.mark.parametrize(
    ("method", "suffix", "data"),
    [
        ("get", "", None),
        ("get", "{pk}/", None),
        ("get", "999999/", None),
        ("post", "", {"title": ""}),
        ("patch", "{pk}/", {"done": True}),
        ("put", "{pk}/", {"title": "Renamed", "done": False}),
        ("put", "{pk}/", {}),
        ("options", "", None),
    ],
)
def test_the_decorated_todo_viewset_answers_like_its_twin(http, alice, method, suffix, data):
    todo = Todo.objects.create(owner=alice, title="Twin")
    kwargs = {"content_type": "application/json", "data": data} if data is not None else {}
    path = suffix.format(pk=todo.pk)
    decorated = getattr(http, method)(f"/api/todos/{path}", **kwargs)
    twin = getattr(http, method)(f"/t/plain-todos/{path}", **kwargs)
    if method == "options":  # the view name differs by the twin's class name only
        assert decorated.status_code == twin.status_code == 200
        assert decorated.json()["name"] == "Todo List"
        return
    same_response(decorated, twin)


@pytest.mark.parametrize(
    ("method", "data"),
    [("get", None), ("post", {"title": "Q3"}), ("post", {"title": "x" * 30}), ("put", {})],
)
def test_the_decorated_report_view_answers_like_its_twin(http, method, data):
    kwargs = {"content_type": "application/json", "data": data} if data is not None else {}
    same_response(
        getattr(http, method)("/t/report/", **kwargs),
        getattr(http, method)("/t/plain-report/", **kwargs),
    )


def test_the_decorator_returns_the_view_unchanged():
    registry = ToolRegistry()
    view_class = report_view_class()
    before = dict(vars(view_class))
    assert mcp_tool(registry=registry)(view_class) is view_class
    assert dict(vars(view_class)) == before

    def handler(self, request):
        return None

    assert mcp_tool(registry=registry)(handler) is handler
    assert vars(handler) == {}
