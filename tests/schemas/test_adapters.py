"""The schema adapters' registry, and actions routed by hand named by what they do.

The views are written as a Wagtail-like API writes them: a ``GenericViewSet`` routed by hand
(``as_view({"get": "listing_view"})``), whose filter backend and paginator read
``request.GET`` themselves and declare nothing DRF's schema interface can read.
"""

from __future__ import annotations

import pytest
from django.urls import path
from rest_framework import filters, pagination, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from demo_project.todos.models import Todo
from demo_project.todos.serializers import TodoSerializer
from mcp_tools.catalog.sync import sync_tools
from mcp_tools.models import ExposedTool
from mcp_tools.schemas import adapters
from mcp_tools.schemas.introspection import routed_action
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from tests.tools.test_registry import urlconf


class DoneFilter(filters.BaseFilterBackend):
    """Reads ``?done=`` itself."""

    def filter_queryset(self, request, queryset, view):
        if "done" in request.GET:
            queryset = queryset.filter(done=request.GET["done"] == "true")
        return queryset


class WindowPagination(pagination.BasePagination):
    """Reads ``?start=`` itself."""

    def paginate_queryset(self, queryset, request, view=None):
        start = int(request.GET.get("start", 0))
        return list(queryset[start : start + 10])

    def get_paginated_response(self, data):
        return Response({"items": data})


class TodoAPIViewSet(viewsets.GenericViewSet):
    serializer_class = TodoSerializer
    filter_backends = [DoneFilter]
    pagination_class = WindowPagination

    def get_queryset(self):
        return Todo.objects.order_by("pk")

    def listing_view(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def detail_view(self, request, pk):
        return Response(self.get_serializer(self.get_object()).data)

    def find_view(self, request):
        return Response(self.get_serializer(self.get_queryset().first()).data)

    @action(detail=False)
    def recent(self, request):
        return Response([])


def routes(viewset=TodoAPIViewSet):
    return urlconf(
        path("api/todos/", viewset.as_view({"get": "listing_view"})),
        path("api/todos/<int:pk>/", viewset.as_view({"get": "detail_view"})),
        path("api/todos/find/", viewset.as_view({"get": "find_view"})),
        path("api/todos/recent/", viewset.as_view({"get": "recent"})),
    )


@pytest.fixture
def registry():
    registry = ToolRegistry()
    mcp_tool(registry=registry)(TodoAPIViewSet)
    return registry


@pytest.fixture
def taught():
    """Teach the backend, the paginator and the view; forget them after the test."""

    @adapters.register(DoneFilter)
    def done(backend, view):
        return [{"name": "done", "in": "query", "schema": {"type": "boolean"}}]

    @adapters.register(WindowPagination)
    def window(paginator, view):
        return [
            {"name": "start", "in": "query", "schema": {"type": "integer", "minimum": 0}},
            {"name": "X-Page", "in": "header", "schema": {"type": "string"}},
        ]

    @adapters.register(TodoAPIViewSet)
    def view_parameters(view, _view):
        if view.action == "find_view":
            return [{"name": "title", "in": "query", "required": True, "description": "Exact."}]
        return []

    yield
    for target in (DoneFilter, WindowPagination, TodoAPIViewSet):
        adapters.unregister(target)


def test_actions_routed_by_hand_are_named_by_their_route_not_their_python_name(registry):
    tools = {tool.name: tool for tool in registry.tools(routes())}
    assert sorted(tools) == ["todo_find", "todo_list", "todo_recent", "todo_retrieve"]
    assert [str(tools[name].title) for name in ("todo_list", "todo_retrieve", "todo_find")] == [
        "List todos",
        "Get todo",
        "Find todo",
    ]
    # What the names were before: the admin's rows are carried from them.
    assert tools["todo_list"].former_name == "todo_apiview_set_listing_view"
    assert tools["todo_recent"].former_name == "todo_apiview_set_recent"
    assert tools["todo_list"].operation.is_list and not tools["todo_find"].operation.is_list


def test_the_route_says_what_an_action_does():
    siblings = ("api/todos/", "api/todos/<pk>/", "api/todos/find/")
    assert routed_action("GET", "api/todos/", siblings) == "list"
    assert routed_action("POST", "api/todos/", siblings) == "create"
    assert routed_action("GET", "api/todos/<pk>/", siblings) == "retrieve"
    assert routed_action("DELETE", "api/todos/<pk>/", siblings) == "destroy"
    assert routed_action("GET", "api/todos/find/", siblings) == "find"
    # Alone, a route says nothing: the action keeps its own name.
    assert routed_action("GET", "api/todos/", ()) is None


def test_a_backend_the_package_cant_read_gives_nothing_until_it_is_taught(registry):
    before = registry.tools(routes()).get("todo_list").input_schema["properties"]
    assert before == {}


def test_what_the_adapters_teach_becomes_arguments(registry, taught):
    tools = registry.tools(routes())
    listing = tools.get("todo_list")
    assert listing.input_schema["properties"] == {
        "done": {"type": "boolean"},
        "start": {"type": "integer", "minimum": 0},  # the header parameter is no argument
    }
    assert listing.query_params == ("done", "start")
    find = tools.get("todo_find")
    assert find.input_schema["properties"] == {"title": {"type": "string", "description": "Exact."}}
    assert find.input_schema["required"] == ["title"]
    # A detail view lists nothing: its backends and paginator don't apply.
    assert list(tools.get("todo_retrieve").input_schema["properties"]) == ["pk"]


def test_an_adapter_of_a_base_class_serves_its_subclasses_and_a_change_rebuilds(registry):
    class ChildFilter(DoneFilter):
        pass

    child = type("ChildViewSet", (TodoAPIViewSet,), {"filter_backends": [ChildFilter]})
    registry = ToolRegistry()
    mcp_tool(registry=registry)(child)
    conf = routes(child)
    assert registry.tools(conf).get("todo_list").input_schema["properties"] == {}

    @adapters.register(DoneFilter)
    def done(backend, view):
        return [{"name": "done", "in": "query", "schema": {"type": "boolean"}}]

    try:
        assert list(registry.tools(conf).get("todo_list").input_schema["properties"]) == ["done"]
    finally:
        adapters.unregister(DoneFilter)
    assert registry.tools(conf).get("todo_list").input_schema["properties"] == {}


def test_a_view_adapter_names_the_actions_that_list():
    class Browse(viewsets.GenericViewSet):
        serializer_class = TodoSerializer
        filter_backends = [DoneFilter]
        queryset = Todo.objects.all()

        def browse(self, request):
            return Response([])

    registry = ToolRegistry()
    mcp_tool(registry=registry)(Browse)
    conf = urlconf(path("browse/", Browse.as_view({"get": "browse"})))
    adapters.register(DoneFilter)(lambda backend, view: [{"name": "done", "in": "query"}])
    try:
        assert registry.tools(conf).get("todo_browse").input_schema["properties"] == {}
        adapters.register(Browse, lists=["browse"])(lambda view, _view: [])
        tool = registry.tools(conf).get("todo_browse")
        assert tool.input_schema["properties"] == {"done": {"type": "string"}}
    finally:
        adapters.unregister(DoneFilter)
        adapters.unregister(Browse)


@pytest.mark.django_db
def test_a_renamed_tool_keeps_its_admin_row(registry):
    from django.contrib.auth.models import Group

    ExposedTool.objects.all().delete()  # the rows migrate made for the project's tools
    editors = Group.objects.create(name="editors")
    row = ExposedTool.objects.create(
        name="todo_apiview_set_listing_view", enabled=False, title="All the todos"
    )
    row.allowed_groups.add(editors)
    ExposedTool.objects.create(name="todo_find", enabled=True)  # the new name has its own row
    ExposedTool.objects.create(name="todo_apiview_set_find_view", enabled=False)
    result = sync_tools(registry, urlconf=routes())
    assert result.renamed == ["todo_list"]
    carried = ExposedTool.objects.get(name="todo_list")
    assert (carried.pk, carried.enabled, carried.title) == (row.pk, False, "All the todos")
    assert list(carried.allowed_groups.all()) == [editors]
    # The new name had a row already: it stays, and the old one is left, unregistered.
    assert ExposedTool.objects.get(name="todo_find").enabled is True
    assert ExposedTool.objects.get(name="todo_apiview_set_find_view").registered is False


def test_a_view_adapter_says_what_its_actions_answer():
    class Listing(TodoAPIViewSet):
        pass

    registry = ToolRegistry()
    mcp_tool(registry=registry)(Listing)
    page = {
        "type": "object",
        "properties": {
            "meta": {"type": "object", "properties": {"total_count": {"type": "integer"}}},
            "items": {"type": "array", "items": {"type": "object", "properties": {"id": {}}}},
        },
    }

    def answers(view):
        return page if view.action == "listing_view" else None

    adapters.register(Listing, output=answers)(lambda view, _view: [])
    try:
        tool = registry.tools(routes(Listing)).get("todo_list")
    finally:
        adapters.unregister(Listing)
    assert tool.output_schema is None  # described, not advertised: INCLUDE_OUTPUT_SCHEMA
    assert tool.description.endswith("Returns a page of todos (meta, items) with id.")
