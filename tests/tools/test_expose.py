"""Views the project does not own made tools: ``expose()``, and ``EXPOSE_PATHS`` with
``EXCLUDE_PATHS`` (docs/tools.md#exposing-a-whole-api). The real packages are driven in
tests/interop/test_thirdparty.py; here, views as a package would ship them."""

import types

import pytest
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.urls import include, path
from django.views import View
from rest_framework import generics, viewsets
from rest_framework.decorators import action, api_view, schema
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter
from rest_framework.views import APIView

from demo_project.todos.serializers import TodoSerializer
from mcp_tools.checks import check_tools
from mcp_tools.tools.decorators import expose, mcp_tool
from mcp_tools.tools.registry import AlreadyRegistered, ToolRegistry
from tests.helpers import purpose


def urlconf(*patterns):
    module = types.ModuleType("urlconf_for_test")
    module.urlpatterns = list(patterns)
    return module


# Views as a package ships them: no @mcp_tool on them, and none can be added.
class PackageViewSet(viewsets.ModelViewSet):
    """Things the package keeps."""

    serializer_class = TodoSerializer

    def get_queryset(self):
        raise AssertionError("introspection never queries")

    @action(["get", "patch"], detail=False)
    def mine(self, request):
        return Response({})


class PackageView(generics.GenericAPIView):
    serializer_class = TodoSerializer

    def get(self, request):
        return Response({})

    def post(self, request):
        return Response({})


@api_view(["GET"])
def package_function(request):
    return Response({})


def package_urls():
    router = DefaultRouter()
    router.register("things", PackageViewSet, basename="thing")
    return [
        path("", include(router.urls)),
        path("status/", PackageView.as_view(), name="status"),
        path("ping/", package_function, name="ping"),
    ]


def names(registry, conf):
    return [tool.name for tool in registry.tools(conf)]


# -- expose() ---------------------------------------------------------------------------------


def test_expose_declares_a_view_as_mcp_tool_would_and_returns_it():
    exposed, decorated = ToolRegistry(), ToolRegistry()
    assert expose(PackageViewSet, registry=exposed) is PackageViewSet
    copy = mcp_tool(registry=decorated)(type("PackageViewSet", (PackageViewSet,), {}))
    router = DefaultRouter()
    router.register("things", copy, basename="thing")
    conf = urlconf(path("api/", include(package_urls())))
    assert names(decorated, urlconf(path("api/", include(router.urls)))) == names(exposed, conf)
    assert names(exposed, conf) == [
        "thing_list",
        "thing_create",
        "thing_mine_get",
        "thing_mine_patch",
        "thing_retrieve",
        "thing_update",
        "thing_partial_update",
        "thing_destroy",
    ]
    assert purpose(exposed.get_tool("thing_list", conf).description) == (
        "List todos. Things the package keeps."
    )


def test_each_action_of_one_class_can_be_exposed_with_options_of_its_own():
    registry = ToolRegistry()
    expose(PackageViewSet, actions=["create"], tags=["signup"], registry=registry)
    expose(PackageViewSet, actions=["mine", "list"], registry=registry)
    tools = {tool.name: tool for tool in registry.tools(urlconf(*package_urls()))}
    assert sorted(tools) == ["thing_create", "thing_list", "thing_mine_get", "thing_mine_patch"]
    assert tools["thing_create"].options.tags == ("signup",)
    assert tools["thing_list"].options.tags == ()


def test_apiview_methods_an_api_view_function_and_an_as_view_callback():
    registry = ToolRegistry()
    expose(PackageView, methods=["POST"], name="status_set", registry=registry)
    expose(PackageView, methods=["GET"], name="status_read", registry=registry)
    expose(package_function, registry=registry)
    callback = PackageViewSet.as_view({"get": "list"})  # stands for its class
    assert expose(callback, actions=["retrieve"], registry=registry) is callback
    assert sorted(names(registry, urlconf(*package_urls()))) == [
        "ping",
        "status_read",
        "status_set",
        "thing_retrieve",
    ]


def test_exposing_again_with_the_same_options_does_nothing():
    registry = ToolRegistry()
    for _ in range(2):  # a URLconf imported twice, a ready() run twice
        expose(PackageViewSet, actions=["list"], name="things", registry=registry)
        expose(PackageView, registry=registry)
    assert names(registry, urlconf(*package_urls())) == ["things", "status_get", "status_post"]


def test_exposing_again_with_other_options_is_refused():
    registry = ToolRegistry()
    expose(PackageView, title="Status", registry=registry)
    with pytest.raises(AlreadyRegistered) as refused:
        expose(PackageView, title="Other", registry=registry)
    assert str(refused.value) == (
        "PackageView is already declared as a tool with other options (by @mcp_tool or "
        "expose()); declare it once"
    )
    with pytest.raises(AlreadyRegistered, match="declared twice"):
        expose(PackageViewSet, name="one", actions=["list"], registry=registry)
        expose(PackageViewSet, name="one", actions=["retrieve"], registry=registry)


def plain_function(request):
    return HttpResponse()


class PlainView(View):
    pass


@pytest.mark.parametrize(
    ("view", "message"),
    [
        (
            plain_function,
            "expose() takes a Django REST framework view; tests.tools.test_expose.plain_function "
            "is a plain Django view: put @api_view([...]) on it to make it tools",
        ),
        (
            PlainView,
            "expose() takes a Django REST framework view; tests.tools.test_expose.PlainView is a "
            "plain Django view: write it as an APIView (or a ViewSet) to make it tools",
        ),
        (
            PlainView.as_view(),
            "expose() takes a Django REST framework view; tests.tools.test_expose.PlainView is a "
            "plain Django view: write it as an APIView (or a ViewSet) to make it tools",
        ),
        (
            PackageViewSet.mine,
            "expose() takes a view, not one of its methods: write expose(PackageViewSet, "
            'actions=["mine"]) for a ViewSet action, or expose(PackageViewSet, '
            'methods=["GET"]) for an APIView handler',
        ),
        (
            "djoser.views.UserViewSet",
            "expose() takes a Django REST framework view (an APIView or ViewSet class, or an "
            "@api_view function); got 'djoser.views.UserViewSet'",
        ),
        (
            TodoSerializer,
            "expose() takes a Django REST framework view (an APIView or ViewSet class, or an "
            "@api_view function); got <class 'demo_project.todos.serializers.TodoSerializer'>",
        ),
    ],
)
def test_anything_but_a_drf_view_is_refused_with_what_to_pass(view, message):
    registry = ToolRegistry()
    with pytest.raises(ImproperlyConfigured) as refused:
        expose(view, registry=registry)
    assert str(refused.value) == message
    assert names(registry, urlconf(*package_urls())) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": "has space"}, "@mcp_tool name 'has space' must be 1-64 characters"),
        ({"methods": ["FETCH"]}, "accepts GET, POST, PUT, PATCH, DELETE; got FETCH"),
        ({"confirm": 3}, "takes True, False or a message; got 3"),
        ({"headers": ["region"]}, "maps argument names to header names"),
        ({"name": 3}, r"expose\(name=...\) takes a string; got 3"),
    ],
)
def test_the_options_are_checked_as_the_decorator_checks_them(options, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        expose(PackageView, registry=ToolRegistry(), **options)


@pytest.mark.parametrize(
    ("view", "options", "message"),
    [
        (PackageViewSet, {"actions": ["mien"]}, "PackageViewSet has no action 'mien'"),
        (PackageView, {"methods": ["delete"]}, "PackageView has no method 'DELETE'"),
    ],
)
def test_an_action_or_method_the_view_lacks_is_refused(view, options, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        expose(view, registry=ToolRegistry(), **options)


def test_expose_is_public_api():
    import mcp_tools
    from mcp_tools.resources import decorators

    # The public expose() is the resources' (resource=...), which makes tools without it.
    assert "expose" in mcp_tools.__all__ and mcp_tools.expose is decorators.expose
    assert decorators.tools_expose is expose


# -- EXPOSE_PATHS and EXCLUDE_PATHS -------------------------------------------------------------


class InternalView(APIView):
    def get(self, request):
        return Response({})


class OwnViewSet(PackageViewSet):
    pass


@api_view(["GET"])
@schema(None)
def unlisted(request):
    return Response({})


def project_urls(*more):
    return urlconf(
        *more,
        path("api/", include(package_urls())),
        path("api/internal/", InternalView.as_view(), name="internal"),
        path("api/unlisted/", unlisted, name="unlisted"),
        path("api/page/", plain_function, name="page"),
        path("other/", InternalView.as_view(), name="other"),
    )


def test_every_drf_view_under_an_exposed_prefix_is_tools(settings):
    registry = ToolRegistry(expose_paths=["/api/"], exclude_paths=["api/internal/"])
    assert names(registry, project_urls()) == [
        # The router's index (api_root) is a page of links, not a tool.
        "thing_list",
        "thing_create",
        "thing_mine_get",
        "thing_mine_patch",
        "thing_retrieve",
        "thing_update",
        "thing_partial_update",
        "thing_destroy",
        "status_get",
        "status_post",
        "ping",
        # internal/ is excluded, unlisted/ is left out of the API schema (schema=None), page/
        # is a plain Django view, other/ is not under api/.
    ]
    assert path_problems(registry, project_urls(), settings) == []


def test_declarations_win_for_their_options():
    registry = ToolRegistry(expose_paths=["api/"], exclude_paths=["api/internal/"])
    # An exposed method or action has its options; the view's others are the path's...
    expose(PackageView, methods=["GET"], name="status", registry=registry)
    expose(PackageViewSet, actions=["mine"], tags=["mine"], registry=registry)
    # ...a class declaration says which of its methods are tools (the decorator's actions=)...
    mcp_tool(actions=["list"], registry=registry)(OwnViewSet)
    # ...and a declared view is a tool wherever it is routed, excluded or not.
    mcp_tool("internal_read", path="api/internal/", registry=registry)(InternalView)
    conf = project_urls(path("api/own/", OwnViewSet.as_view({"get": "list", "post": "create"})))
    tools = {tool.name: tool for tool in registry.tools(conf)}
    assert "status" in tools and "status_post" in tools and "status_get" not in tools
    assert tools["thing_mine_patch"].options.tags == ("mine",)
    assert tools["thing_list"].options.tags == ()
    # Routed by hand, without a basename: named after its model.
    assert "todo_list" in tools and "todo_create" not in tools
    assert tools["todo_list"].former_name == "own_view_set_list"
    assert "internal_read" in tools


def test_a_view_exposed_by_path_at_two_routes_is_a_tool_at_each():
    registry = ToolRegistry(expose_paths=["v1/", "v2/"])
    conf = urlconf(
        path("v1/status/", PackageView.as_view(), name="v1-status"),
        path("v2/status/", PackageView.as_view(), name="v2-status"),
    )
    assert names(registry, conf) == [
        "v1_status_get",
        "v1_status_post",
        "v2_status_get",
        "v2_status_post",
    ]


def test_the_default_registry_reads_the_settings(settings):
    registry = ToolRegistry(expose_paths=None)  # as the default registry is made
    assert names(registry, project_urls()) == []
    settings.MCP_TOOLS = {"EXPOSE_PATHS": ["other/"]}
    assert names(registry, project_urls()) == ["other"]
    settings.MCP_TOOLS = {"EXPOSE_PATHS": ["api/"], "EXCLUDE_PATHS": ["api/things/", "api/p"]}
    assert names(registry, project_urls()) == ["status_get", "status_post", "internal"]


def path_problems(registry, conf, settings):
    settings.ROOT_URLCONF = conf
    return [(m.id, m.msg, m.hint, m.obj) for m in check_tools(registry=registry)]


def test_a_prefix_under_which_no_drf_view_is_routed_is_a_warning(settings):
    registry = ToolRegistry(expose_paths=["api/", "apu/", "api/page/"], exclude_paths=["x/"])
    assert path_problems(registry, project_urls(), settings) == [
        (
            "mcp_tools.W090",
            "No Django REST framework view is routed under the exposed path prefix 'apu/', so "
            "it makes no tool.",
            "Write the prefix as the URL patterns read it, includes joined and without the "
            "leading slash: 'api/' for the views of path(\"api/\", include(router.urls)).",
            "apu/",
        ),
        (
            "mcp_tools.W090",
            "No Django REST framework view is routed under the exposed path prefix "
            "'api/page/', so it makes no tool.",
            "Write the prefix as the URL patterns read it, includes joined and without the "
            "leading slash: 'api/' for the views of path(\"api/\", include(router.urls)).",
            "api/page/",
        ),
        (
            "mcp_tools.W091",
            "No Django REST framework view under an exposed path prefix is routed under the "
            "excluded prefix 'x/', so it leaves nothing out.",
            "EXCLUDE_PATHS only narrows EXPOSE_PATHS: write a prefix that starts with one of "
            "EXPOSE_PATHS (e.g. 'api/internal/' under 'api/'), or remove it. A declared view "
            "(@mcp_tool, expose()) is a tool wherever it is routed.",
            "x/",
        ),
    ]


def test_an_exclude_prefix_that_covers_an_exposed_one_is_a_warning(settings):
    registry = ToolRegistry(expose_paths=["api/things/"], exclude_paths=["api/"])
    assert path_problems(registry, project_urls(), settings) == [
        (
            "mcp_tools.W092",
            "The exposed path prefix 'api/things/' is under the excluded prefix 'api/', so it "
            "exposes nothing.",
            "Remove one of them, or exclude a narrower prefix under 'api/things/'.",
            "api/things/",
        )
    ]
    assert names(registry, project_urls()) == []


@pytest.mark.parametrize(
    ("given", "key", "value"),
    [
        ({"EXPOSE_PATHS": "api/"}, "EXPOSE_PATHS", "api/"),
        ({"EXPOSE_PATHS": ["api/", 3]}, "EXPOSE_PATHS", ["api/", 3]),
        ({"EXPOSE_PATHS": ["api/"], "EXCLUDE_PATHS": None}, "EXCLUDE_PATHS", None),
    ],
)
def test_prefixes_that_are_not_a_list_of_strings_are_an_error(settings, given, key, value):
    registry = ToolRegistry(expose_paths=None)
    settings.MCP_TOOLS = given
    message = f"MCP_TOOLS[{key!r}] is {value!r}; it must be a list of URL path prefixes (strings)."
    assert path_problems(registry, project_urls(), settings)[0] == (
        "mcp_tools.E090",
        message,
        'List the prefixes as the URL patterns read them: ["api/"], not "api/" '
        "(docs/tools.md#exposing-a-whole-api).",
        key,
    )
    # The endpoint refuses to serve rather than serve what the setting did not mean.
    with pytest.raises(ImproperlyConfigured) as refused:
        registry.tools(project_urls())
    assert str(refused.value).startswith(message)


def test_registry_arguments_are_named_as_such(settings):
    registry = ToolRegistry(expose_paths=[3])
    ((id_, msg, _, _),) = path_problems(registry, project_urls(), settings)
    assert (id_, msg) == (
        "mcp_tools.E090",
        "expose_paths= is [3]; it must be a list of URL path prefixes (strings).",
    )


@pytest.mark.parametrize(
    ("given", "key"),
    [({"expose_paths": "api/"}, "expose_paths"), ({"exclude_paths": "x/"}, "exclude_paths")],
)
def test_a_registry_given_one_string_is_refused_not_read_as_its_characters(settings, given, key):
    # list("api/") would be the prefixes "a", "p", "i" and "" (every route).
    registry = ToolRegistry(**{"expose_paths": ["api/"], **given})
    ((id_, msg, _, _),) = path_problems(registry, project_urls(), settings)
    value = given[key]
    assert (id_, msg) == (
        "mcp_tools.E090",
        f"{key}= is {value!r}; it must be a list of URL path prefixes (strings).",
    )
    with pytest.raises(ImproperlyConfigured):
        registry.tools(project_urls())


def test_new_tools_enabled_must_be_a_boolean(settings):
    from mcp_tools.checks import check_settings

    settings.MCP_TOOLS = {"NEW_TOOLS_ENABLED": "no"}
    assert check_settings() == [
        checks.Error(
            "MCP_TOOLS['NEW_TOOLS_ENABLED'] is 'no'; it must be True or False.",
            hint="Set it to False to have staff enable each new tool in admin, or leave it "
            "out for the default, True.",
            obj="NEW_TOOLS_ENABLED",
            id="mcp_tools.E091",
        )
    ]
