"""Default titles and descriptions (docs/tools.md): a sentence per standard action."""

import pytest
from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from demo_project.todos.models import Todo
from demo_project.todos.serializers import TodoSerializer
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.naming import takes_an
from mcp_tools.tools.registry import ToolRegistry
from tests.helpers import purpose
from tests.tools.test_registry import urlconf


@pytest.mark.parametrize(
    ("word", "an"),
    [
        ("order", True),
        ("item", True),
        ("todo", False),
        ("user", False),
        ("unit", False),
        ("URL", False),
        ("update", True),
        ("hour", True),
        ("house", False),
        ("European city", False),
        ("", False),
    ],
)
def test_the_article_follows_english_sound_not_spelling(word, an):
    assert takes_an(word) is an


def descriptions(registry, conf):
    return {tool.name: purpose(tool.description) for tool in registry.tools(conf)}


def test_generic_views_describe_the_action_their_own_handlers_perform():
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class TodoList(generics.ListCreateAPIView):
        queryset = Todo.objects.all()
        serializer_class = TodoSerializer

    @mcp_tool(registry=registry)
    class TodoDetail(generics.RetrieveUpdateDestroyAPIView):
        """The todos of everyone."""

        queryset = Todo.objects.all()
        serializer_class = TodoSerializer

        def delete(self, request, *args, **kwargs):
            return super().delete(request, *args, **kwargs)  # the project's own: no sentence

    conf = urlconf(
        path("todos/", TodoList.as_view(), name="todo-list"),
        path("todos/<int:pk>/", TodoDetail.as_view(), name="todo-detail"),
    )
    assert descriptions(registry, conf) == {
        "todo_list_get": "List todos.",
        "todo_list_post": "Create a todo.",
        "todo_detail_get": "Get one todo by id. The todos of everyone.",
        "todo_detail_put": "Replace a todo. The todos of everyone.",
        "todo_detail_patch": "Change some fields of a todo. The todos of everyone.",
        "todo_detail_delete": "The todos of everyone.",
    }


def test_a_handlers_own_docstring_wins_and_custom_actions_keep_the_class_docstring():
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class TodoViewSet(viewsets.ModelViewSet):
        """Everyone's todos."""

        queryset = Todo.objects.all()
        serializer_class = TodoSerializer

        def list(self, request, *args, **kwargs):
            """List todos, oldest first."""
            return super().list(request, *args, **kwargs)

        @action(detail=True, methods=["post"])
        def archive(self, request, pk=None):
            return Response()

    router = SimpleRouter()
    router.register("todos", TodoViewSet, basename="todo")
    found = descriptions(registry, urlconf(*router.urls))
    assert found["todo_list"] == "List todos, oldest first."
    assert found["todo_retrieve"] == "Get one todo by id. Everyone's todos."
    assert found["todo_archive"] == "Everyone's todos."
    assert len(set(found.values())) == len(found)


def test_without_a_model_a_viewset_keeps_its_class_docstring():
    registry = ToolRegistry()

    @mcp_tool(registry=registry, actions=["list"])
    class Numbers(viewsets.ViewSet):
        """Small numbers."""

        def list(self, request):
            return Response([1, 2])

    router = SimpleRouter()
    router.register("numbers", Numbers, basename="number")
    (tool,) = registry.tools(urlconf(*router.urls))
    assert (tool.title, purpose(tool.description)) == ("List numbers", "Small numbers.")


def needs_of(registry, conf):
    return {
        tool.name: str(tool.description).partition(" Needs ")[2].partition(".")[0]
        for tool in registry.tools(conf)
    }


def test_what_a_call_needs_is_what_its_action_checks():
    # As djoser's UserViewSet does: the sign-up action admits anyone, the others a user.
    from rest_framework.permissions import AllowAny, IsAdminUser, IsAuthenticated

    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class SignupViewSet(viewsets.ModelViewSet):
        queryset = Todo.objects.all()
        serializer_class = TodoSerializer
        permission_classes = [IsAuthenticated]

        def get_permissions(self):
            if self.action == "create":
                self.permission_classes = [AllowAny]
            elif self.action == "destroy":
                self.permission_classes = [IsAuthenticated & IsAdminUser]
            return super().get_permissions()

    router = SimpleRouter()
    router.register("todos", SignupViewSet)
    needs = needs_of(registry, urlconf(*router.urls))
    assert needs["todo_create"] == ""  # anyone may sign up
    assert needs["todo_list"] == "IsAuthenticated"
    assert needs["todo_destroy"] == "IsAuthenticated and IsAdminUser"


def test_composed_permissions_are_named_by_their_parts():
    from rest_framework.permissions import IsAdminUser, IsAuthenticated

    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class TodoList(generics.ListAPIView):
        queryset = Todo.objects.all()
        serializer_class = TodoSerializer
        permission_classes = [IsAdminUser | ~IsAuthenticated]

    needs = needs_of(registry, urlconf(path("todos/", TodoList.as_view(), name="todo-list")))
    assert needs == {"todo_list": "IsAdminUser or not IsAuthenticated"}


def test_a_get_permissions_that_needs_a_real_request_falls_back_to_the_classes():
    from rest_framework.permissions import IsAuthenticated

    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class TodoList(generics.ListAPIView):
        queryset = Todo.objects.all()
        serializer_class = TodoSerializer
        permission_classes = [IsAuthenticated]

        def get_permissions(self):
            if self.request.user.profile.is_partner:  # no such thing on the schema's request
                return []
            return super().get_permissions()

    needs = needs_of(registry, urlconf(path("todos/", TodoList.as_view(), name="todo-list")))
    assert needs == {"todo_list": "IsAuthenticated"}


@pytest.mark.parametrize(
    ("doc", "told"),
    [
        ("Get a list of todo objects.", False),  # NetBox's, on every action
        ("All todo objects, oldest first.", False),
        ("Lists the todos.", False),
        ("Everyone's todos.", True),
        ("Todos on a short list.", True),
    ],
)
def test_a_single_object_action_is_not_told_of_the_list(doc, told):
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    @extend_schema_view(destroy=extend_schema(description=doc))
    class TodoViewSet(viewsets.ModelViewSet):
        queryset = Todo.objects.all()
        serializer_class = TodoSerializer

    TodoViewSet.__doc__ = doc
    router = SimpleRouter()
    router.register("todos", TodoViewSet, basename="todo")
    found = descriptions(registry, urlconf(*router.urls))
    assert found["todo_list"] == f"List todos. {doc}"  # the list's own words
    single = {
        "todo_retrieve": "Get one todo by id.",
        "todo_update": "Replace a todo.",
        "todo_partial_update": "Change some fields of a todo.",
    }
    assert {name: found[name] for name in single} == {
        name: f"{sentence} {doc}" if told else sentence for name, sentence in single.items()
    }
    # drf-spectacular's description= is the whole purpose; told of the list, the sentence.
    assert found["todo_destroy"] == (doc if told else "Delete a todo.")
