"""@mcp_tool declarations resolved against a URLconf: forms, names, texts, misuse."""

import functools
import types

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt
from rest_framework import serializers, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter
from rest_framework.views import APIView

from demo_project.todos.models import Todo
from demo_project.todos.serializers import TodoSerializer
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import AlreadyRegistered, ToolRegistry
from tests.helpers import purpose

TRIMMED_NOT_BLANK = r"^\s*[^\s\u0000][^\u0000]*$"


def urlconf(*patterns):
    """Return a URLconf module holding ``patterns`` (get_resolver accepts a module)."""
    module = types.ModuleType("urlconf_for_test")
    module.urlpatterns = list(patterns)
    return module


@pytest.fixture
def registry():
    return ToolRegistry()


def names(registry, conf):
    return [tool.name for tool in registry.tools(conf)]


class TodoViewSet(viewsets.ModelViewSet):
    serializer_class = TodoSerializer

    def get_queryset(self):
        raise AssertionError("introspection never queries")


def test_a_viewset_class_gives_one_tool_per_routed_action(registry):
    viewset = mcp_tool(registry=registry)(type("V", (TodoViewSet,), {}))
    router = DefaultRouter()
    router.register("todos", viewset, basename="todo")
    assert names(registry, urlconf(*router.urls)) == [
        "todo_list",
        "todo_create",
        "todo_retrieve",
        "todo_update",
        "todo_partial_update",
        "todo_destroy",
    ]


def test_actions_restrict_a_viewset_and_format_suffix_routes_are_skipped(registry):
    viewset = mcp_tool(registry=registry, actions=["list", "retrieve"])(
        type("V", (TodoViewSet,), {})
    )
    router = DefaultRouter()  # adds .json format-suffix twins of every route
    router.register("todos", viewset, basename="todo")
    assert names(registry, urlconf(*router.urls)) == ["todo_list", "todo_retrieve"]


def test_an_apiview_class_gives_one_tool_per_implemented_method(registry):
    @mcp_tool(registry=registry)
    class Things(APIView):
        def get(self, request):
            return Response()

        def post(self, request):
            return Response()

        def delete(self, request):
            return Response()

    @mcp_tool(registry=registry, methods=["get"])
    class Only(APIView):
        def get(self, request):
            return Response()

        def post(self, request):
            return Response()

    conf = urlconf(
        path("things/", Things.as_view(), name="thing-list"), path("only/", Only.as_view())
    )
    assert names(registry, conf) == [
        "thing_list_get",
        "thing_list_post",
        "thing_list_delete",
        "only",
    ]


def test_a_decorated_handler_is_that_one_tool_and_inherited_once_per_route(registry):
    class Base(APIView):
        @mcp_tool(registry=registry)
        def get(self, request):
            """Read it."""
            return Response()

        def post(self, request):
            return Response()

    class Child(Base):
        pass

    conf = urlconf(
        path("base/", Base.as_view(), name="base"), path("child/", Child.as_view(), name="child")
    )
    tools = list(registry.tools(conf))
    assert [(t.name, t.method, t.view_class) for t in tools] == [
        ("base", "GET", Base),
        ("child", "GET", Child),
    ]
    assert purpose(tools[1].description) == "Read it."


def test_viewset_action_methods_and_extra_actions(registry):
    class Notes(viewsets.ViewSet):
        @mcp_tool(registry=registry)
        def list(self, request):
            return Response([])

        def retrieve(self, request, pk=None):
            return Response()

        @mcp_tool(registry=registry, title="Archive notes")
        @action(detail=True, methods=["post"])
        def archive(self, request, pk=None):
            """Archive one note."""
            return Response()

    router = DefaultRouter()
    router.register("notes", Notes, basename="note")
    tools = {tool.name: tool for tool in registry.tools(urlconf(*router.urls))}
    assert list(tools) == ["note_list", "note_archive"]
    archive = tools["note_archive"]
    assert archive.title == "Archive notes"
    assert purpose(archive.description) == "Archive one note."
    assert archive.input_schema["required"] == ["pk"]


def test_api_view_functions(registry):
    @mcp_tool(registry=registry)
    @api_view(["GET", "POST"])
    def weather(request):
        """Tell the weather."""
        return Response()

    tools = list(registry.tools(urlconf(path("weather/", weather))))
    assert [(t.name, t.method, purpose(t.description)) for t in tools] == [
        ("weather_get", "GET", "Tell the weather."),
        ("weather_post", "POST", "Tell the weather."),
    ]


def _logged(view):
    @functools.wraps(view)
    def logged(*args, **kwargs):
        return view(*args, **kwargs)

    return logged


@pytest.mark.parametrize(
    "decorate",
    [
        pytest.param(lambda f, r: mcp_tool(registry=r)(api_view(["GET", "POST"])(f)), id="above"),
        pytest.param(lambda f, r: api_view(["GET", "POST"])(mcp_tool(registry=r)(f)), id="below"),
        pytest.param(
            lambda f, r: api_view(["GET", "POST"])(_logged(mcp_tool(registry=r)(f))),
            id="below, under a functools.wraps decorator",
        ),
        pytest.param(
            lambda f, r: csrf_exempt(api_view(["GET", "POST"])(mcp_tool(registry=r)(f))),
            id="below, under csrf_exempt",
        ),
    ],
)
def test_api_view_and_mcp_tool_work_in_either_order(registry, decorate):
    def weather(request):
        """Tell the weather."""
        return Response()

    view = decorate(weather, registry)
    conf = urlconf(path("weather/", view))
    tools = list(registry.tools(conf))
    assert [(t.name, t.method, purpose(t.description)) for t in tools] == [
        ("weather_get", "GET", "Tell the weather."),
        ("weather_post", "POST", "Tell the weather."),
    ]
    assert registry.unrouted(conf) == []


def test_description_precedence(registry):
    @mcp_tool(registry=registry, description="From the decorator.")
    class A(APIView):
        """From the class."""

        def get(self, request):
            """From the handler."""

    @mcp_tool(registry=registry)
    class B(APIView):
        """From the class."""

        def get(self, request):
            """From the handler."""

    @mcp_tool(registry=registry)
    class C(APIView):
        """From the class."""

        def get(self, request):
            pass

    @mcp_tool(registry=registry)
    class D(APIView):
        def get(self, request):
            pass

    conf = urlconf(
        path("a/", A.as_view()),
        path("b/", B.as_view()),
        path("c/", C.as_view()),
        path("d/", D.as_view()),
    )
    assert [purpose(t.description) for t in registry.tools(conf)] == [
        "From the decorator.",
        "From the handler.",
        "From the class.",
        "D.",
    ]


@pytest.mark.parametrize(
    ("method", "hints"),
    [
        ("get", {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True}),
        ("post", {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False}),
        ("put", {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True}),
        ("patch", {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False}),
        ("delete", {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True}),
    ],
)
def test_annotations_follow_the_http_method(registry, method, hints):
    view = mcp_tool(registry=registry, title="Thing")(
        type("V", (APIView,), {method: lambda self, request: Response()})
    )
    (tool,) = registry.tools(urlconf(path("v/", view.as_view(), name="v")))
    assert tool.annotations == {"title": "Thing", "openWorldHint": False, **hints}


def test_declared_annotations_override_derived_ones(registry):
    view = mcp_tool(registry=registry, annotations={"openWorldHint": True})(
        type("V", (APIView,), {"get": lambda self, request: Response()})
    )
    (tool,) = registry.tools(urlconf(path("v/", view.as_view())))
    assert tool.annotations["openWorldHint"] is True
    assert tool.annotations["readOnlyHint"] is True


def test_input_schema_joins_path_parameters_and_writable_body_fields(registry):
    class Body(serializers.Serializer):
        id = serializers.IntegerField(read_only=True)
        name = serializers.CharField(max_length=5)
        secret = serializers.CharField(write_only=True, required=False, allow_null=True)

    @mcp_tool(registry=registry)
    class V(APIView):
        serializer_class = Body

        def get_serializer_class(self):
            return Body

        def put(self, request, org, item):
            return Response()

        def patch(self, request, org, item):
            return Response()

    conf = urlconf(path("orgs/<slug:org>/items/<int:item>/", V.as_view(), name="item"))
    put, patch = registry.tools(conf)
    assert put.input_schema == {
        "type": "object",
        "properties": {
            "org": {"type": "string", "pattern": "^(?:[-a-zA-Z0-9_]+)$"},
            "item": {"type": "integer", "minimum": 0},
            "name": {
                "type": "string",
                "maxLength": 5,
                "minLength": 1,
                "pattern": TRIMMED_NOT_BLANK,
                "description": "Name.",  # a field with no label nor help text: its name
            },
            "secret": {
                "type": ["string", "null"],
                "minLength": 1,
                "pattern": TRIMMED_NOT_BLANK,
                "description": "Secret.",
            },
        },
        "required": ["org", "item", "name"],
        "additionalProperties": False,
    }
    assert patch.input_schema["required"] == ["org", "item"]


def test_a_regex_route_lookup_takes_the_model_fields_type(registry):
    from demo_project.todos.models import Todo

    viewset = mcp_tool(registry=registry, actions=["retrieve"])(
        type(
            "V",
            (viewsets.ModelViewSet,),
            {"queryset": Todo.objects.all(), "serializer_class": TodoSerializer},
        )
    )
    router = DefaultRouter()
    router.register("todos", viewset, basename="todo")
    (tool,) = registry.tools(urlconf(*router.urls))
    assert tool.input_schema["properties"]["pk"] == {
        "type": "integer",
        "minimum": 1,  # an auto-increment key: no database bounds
        "description": "The todo's id.",
    }


def _own_todos(self):
    return Todo.objects.filter(owner=self.request.user)  # fails for an anonymous user


def _guarded_todos(self):
    if getattr(self, "swagger_fake_view", False):  # drf-spectacular's and drf-yasg's flag
        return Todo.objects.none()
    return Todo.objects.filter(owner=self.request.user)


class NoModelSerializer(serializers.Serializer):
    title = serializers.CharField()


INTEGER_PK = {"type": "integer", "minimum": 1}  # an auto-increment key
LOOKUP_REGEX = {"type": "string", "pattern": "^(?:[^/.]+)$"}


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        # get_queryset() without queryset: the serializer's Meta.model tells.
        (
            {"serializer_class": TodoSerializer, "get_queryset": _own_todos},
            {**INTEGER_PK, "description": "The todo's id."},
        ),
        # No model serializer: get_queryset() on the synthetic request, guarded as
        # drf-spectacular's documentation writes it.
        (
            {"serializer_class": NoModelSerializer, "get_queryset": _guarded_todos},
            {**INTEGER_PK, "description": "The todo's id."},
        ),
        # get_queryset() that fails for an anonymous user, and nothing else: the route's regex.
        ({"serializer_class": NoModelSerializer, "get_queryset": _own_todos}, LOOKUP_REGEX),
        # A lookup through a relation types the field it ends on.
        (
            {
                "queryset": Todo.objects.all(),
                "serializer_class": TodoSerializer,
                "lookup_field": "owner__id",
                "lookup_url_kwarg": "pk",
            },
            {**INTEGER_PK, "description": "The user's id."},
        ),
        (
            {
                "queryset": Todo.objects.all(),
                "serializer_class": TodoSerializer,
                "lookup_field": "title__lower",
                "lookup_url_kwarg": "pk",
            },
            LOOKUP_REGEX,
        ),
    ],
)
def test_a_router_lookup_is_typed_from_the_model_wherever_the_view_names_it(
    registry, attributes, expected
):
    viewset = mcp_tool(registry=registry, actions=["retrieve"])(
        type("V", (viewsets.ModelViewSet,), attributes)
    )
    router = DefaultRouter()
    router.register("todos", viewset, basename="todo")
    (tool,) = registry.tools(urlconf(*router.urls))
    assert tool.input_schema["properties"]["pk"] == expected


def test_a_name_clash_between_path_and_body_is_a_start_up_error(registry):
    class Body(serializers.Serializer):
        item = serializers.CharField()

    @mcp_tool(registry=registry)
    class V(APIView):
        def get_serializer_class(self):
            return Body

        def post(self, request, item):
            return Response()

    with pytest.raises(
        ImproperlyConfigured, match="argument 'item' is used by both the URL path and the body"
    ):
        registry.tools(urlconf(path("items/<int:item>/", V.as_view())))


def test_the_decorator_needs_parentheses(registry):
    with pytest.raises(ImproperlyConfigured, match=r"@mcp_tool must be called with parentheses"):
        mcp_tool(type("V", (APIView,), {}))


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "ünïcode", "a/b"])
def test_bad_names_are_refused_at_once(registry, name):
    with pytest.raises(ImproperlyConfigured, match="must be 1-64 characters"):
        mcp_tool(name, registry=registry)(type("V", (APIView,), {}))


def test_a_duplicate_explicit_name_is_refused_at_once(registry):
    mcp_tool("same", registry=registry)(type("A", (APIView,), {}))
    with pytest.raises(AlreadyRegistered, match="Tool name 'same' is declared twice"):
        mcp_tool("same", registry=registry)(type("B", (APIView,), {}))


def test_a_name_is_checked_without_reading_every_other_declaration(registry):
    # The URLconf of a large catalog declares its tools one by one: a scan of the others per
    # declaration made importing it quadratic (500 tools: 125,000 comparisons).
    class Unscanned(dict):
        def items(self):
            raise AssertionError("every declaration read to check one name")

        def values(self):
            raise AssertionError("every declaration read to check one name")

    views = [type(f"V{index}", (APIView,), {}) for index in range(3)]
    mcp_tool("first", registry=registry)(views[0])
    registry._declarations = Unscanned(registry._declarations)
    mcp_tool("second", registry=registry)(views[1])
    with pytest.raises(AlreadyRegistered, match="Tool name 'first' is declared twice"):
        mcp_tool("first", registry=registry)(views[2])


def test_decorating_twice_is_refused(registry):
    view = type("A", (APIView,), {})
    mcp_tool(registry=registry)(view)
    with pytest.raises(AlreadyRegistered, match="already decorated"):
        mcp_tool(registry=registry)(view)


def test_a_duplicate_derived_name_is_a_clear_error(registry):
    a = mcp_tool(registry=registry)(type("A", (APIView,), {"get": lambda s, r: Response()}))
    b = mcp_tool(registry=registry)(type("B", (APIView,), {"get": lambda s, r: Response()}))
    conf = urlconf(path("a/", a.as_view(), name="same"), path("b/", b.as_view(), name="same"))
    with pytest.raises(
        AlreadyRegistered, match=r"Tool name 'same' is used by several views \(/a/, /b/\)"
    ):
        registry.tools(conf)


def test_a_view_mounted_twice_needs_path(registry):
    view = type("A", (APIView,), {"get": lambda s, r: Response()})
    mcp_tool(registry=registry)(view)
    callback = view.as_view()
    conf = urlconf(path("one/", callback, name="one"), re_path(r"^two/$", callback, name="two"))
    with pytest.raises(
        ImproperlyConfigured, match=r"mounted at several URLs \(/one/, /two/\); pass path="
    ):
        registry.tools(conf)


def test_path_chooses_one_mount(registry):
    view = type("A", (APIView,), {"get": lambda s, r: Response()})
    mcp_tool(registry=registry, path="/two/")(view)
    callback = view.as_view()
    conf = urlconf(path("one/", callback, name="one"), re_path(r"^two/$", callback, name="two"))
    assert names(registry, conf) == ["two"]


def test_the_default_registry_holds_the_test_apps_tools():
    from mcp_tools.tools.registry import registry as default

    assert {"todo_list", "echo", "greet_get", "note_archive", "file_get"} <= {
        tool.name for tool in default.tools()
    }


def test_annotations_precedence_is_decorator_then_setting_then_method(registry, settings):
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "DEFAULT_ANNOTATIONS": {"openWorldHint": True, "destructiveHint": True},
    }
    plain = mcp_tool(registry=registry)(type("P", (APIView,), {"get": lambda s, r: Response()}))
    declared = mcp_tool(registry=registry, annotations={"destructiveHint": False})(
        type("D", (APIView,), {"get": lambda s, r: Response()})
    )
    conf = urlconf(path("p/", plain.as_view(), name="p"), path("d/", declared.as_view(), name="d"))
    p, d = registry.tools(conf)
    assert (p.annotations["openWorldHint"], p.annotations["destructiveHint"]) == (True, True)
    assert (d.annotations["openWorldHint"], d.annotations["destructiveHint"]) == (True, False)
    assert p.annotations["readOnlyHint"] is True and p.annotations["title"] == "P"


def test_tags_accept_one_string_or_several(registry):
    one = mcp_tool(registry=registry, tags="alpha")(
        type("A", (APIView,), {"get": lambda s, r: Response()})
    )
    many = mcp_tool(registry=registry, tags=["alpha", "beta"])(
        type("B", (APIView,), {"get": lambda s, r: Response()})
    )
    conf = urlconf(path("a/", one.as_view(), name="a"), path("b/", many.as_view(), name="b"))
    assert [tool.options.tags for tool in registry.tools(conf)] == [("alpha",), ("alpha", "beta")]


def test_query_parameters_of_a_list_view_go_to_the_query_string():
    from mcp_tools.pipeline import arguments
    from mcp_tools.tools.registry import registry as default

    tool = default.get_tool("s_gadget_list", "tests.urls")
    assert tool.query_params[:3] == ("code", "name", "kind")
    split = arguments.split(tool, {"name": "x", "page_size": "7", "kinds": ["toy", "tool"]})
    assert (split.path, split.query, split.body) == (
        {},
        {"name": "x", "page_size": 7, "kinds": ["toy", "tool"]},
        None,
    )


def test_an_action_with_its_own_serializer_and_a_request_reading_serializer():
    from mcp_tools.tools.registry import registry as default

    rename = default.get_tool("s_gadget_rename", "tests.urls")
    assert list(rename.input_schema["properties"]) == ["pk", "new_name"]
    note = default.get_tool("s_note", "tests.urls")
    # The synthetic request is anonymous: the non-staff serializer.
    assert list(note.input_schema["properties"]) == ["text"]
    assert note.problems == ()


def test_the_page_size_argument_is_capped(settings):
    from mcp_tools.tools.registry import registry as default

    schema = default.get_tool("s_gadget_list", "tests.urls").input_schema
    assert schema["properties"]["page_size"]["maximum"] == 100  # the view allows 500
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "MAX_PAGE_SIZE": 20}
    schema = default.get_tool("s_gadget_list", "tests.urls").input_schema
    assert schema["properties"]["page_size"]["maximum"] == 20
    assert (
        default.get_tool("s_tag_list", "tests.urls").input_schema["properties"]["limit"]["maximum"]
        == 20
    )
