"""System checks report misconfiguration at start-up, with ids and hints."""

import types

import pytest
from django.core import checks
from django.urls import path, re_path
from rest_framework import generics, serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.checks import check_tool_notes, check_tools
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry


def test_the_test_project_passes_every_check():
    # As manage.py check reports them: less SILENCED_SYSTEM_CHECKS (tests/settings.py).
    assert [m for m in checks.run_checks(tags=["mcp_tools"]) if not m.is_silenced()] == []


def test_a_name_clash_is_an_error_with_a_hint(settings):
    import types

    registry = ToolRegistry()
    a = mcp_tool(registry=registry)(type("A", (APIView,), {"get": lambda s, r: Response()}))
    b = mcp_tool(registry=registry)(type("B", (APIView,), {"get": lambda s, r: Response()}))
    module = types.ModuleType("clash_urls")
    module.urlpatterns = [
        path("a/", a.as_view(), name="same"),
        path("b/", b.as_view(), name="same"),
    ]
    settings.ROOT_URLCONF = module
    assert check_tools(registry=registry) == [
        checks.Error(
            "Tool name 'same' is used by several views (/a/, /b/); pass name= to @mcp_tool to "
            "tell them apart",
            hint="Give each tool a unique name of 1-64 characters of [A-Za-z0-9_.-] with "
            "@mcp_tool(name=...), or choose one route with path=.",
            obj=a,
            id="mcp_tools.E001",
        )
    ]


def test_an_unrouted_declaration_is_a_warning():
    registry = ToolRegistry()

    class Orphan(APIView):
        def get(self, request):
            return Response()

    mcp_tool(registry=registry)(Orphan)
    assert check_tools(registry=registry) == [
        checks.Warning(
            f"{Orphan.__qualname__} is decorated with @mcp_tool but no URL pattern routes to it, "
            "so it is not a tool.",
            hint=W001_HINT,
            obj=Orphan,
            id="mcp_tools.W001",
        )
    ]


W001_HINT = (
    "Include the view (or its router) in the URLconf, or remove the decorator. On a function, "
    "put @api_view and @mcp_tool right on each other (in either order): a decorator between "
    "them must keep the function reachable with functools.wraps."
)


def _hides(view):
    def hidden(*args, **kwargs):  # no functools.wraps: the function can't be found again
        return view(*args, **kwargs)

    return hidden


def test_a_function_hidden_from_api_view_is_unrouted_and_the_hint_says_why(settings):
    registry = ToolRegistry()

    def ping(request):
        return Response({})

    declared = mcp_tool(registry=registry)(ping)
    view = api_view(["GET"])(_hides(_hides(declared)))
    assert check_urlconf(settings, registry, path("ping/", view)) == [
        checks.Warning(
            "test_a_function_hidden_from_api_view_is_unrouted_and_the_hint_says_why.<locals>."
            "ping is decorated with @mcp_tool but no URL pattern routes to it, so it is not a "
            "tool.",
            hint=W001_HINT,
            obj=declared,
            id="mcp_tools.W001",
        )
    ]


def test_mcp_tool_on_a_plain_django_view_says_to_add_api_view(settings):
    from django.http import JsonResponse

    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    def snippet_list(request):
        return JsonResponse([], safe=False)

    assert check_urlconf(settings, registry, path("snippets/", snippet_list)) == [
        checks.Warning(
            "test_mcp_tool_on_a_plain_django_view_says_to_add_api_view.<locals>.snippet_list is "
            "decorated with @mcp_tool and routed at /snippets/, but it is a plain Django view, "
            "not a Django REST framework view, so it is not a tool.",
            hint="Put @api_view([...]) with its HTTP methods on "
            "test_mcp_tool_on_a_plain_django_view_says_to_add_api_view.<locals>.snippet_list "
            "(above or below @mcp_tool), or write it as an APIView.",
            obj=snippet_list,
            id="mcp_tools.W005",
        )
    ]


def test_mcp_tool_on_a_django_class_based_view_says_the_same(settings):
    from django.views import View

    registry = ToolRegistry()
    view = mcp_tool(registry=registry)(type("Page", (View,), {}))
    (found,) = check_urlconf(settings, registry, path("page/", view.as_view()))
    assert (found.id, found.obj) == ("mcp_tools.W005", view)


def check_urlconf(settings, registry, *patterns):
    module = types.ModuleType("checked_urls")
    module.urlpatterns = list(patterns)
    settings.ROOT_URLCONF = module
    return check_tools(registry=registry)


def get_view(name):
    return type(name, (APIView,), {"get": lambda self, request, **kwargs: Response()})


def test_a_derived_name_outside_the_pattern_is_an_error(settings):
    registry = ToolRegistry()
    view = mcp_tool(registry=registry)(get_view("V"))
    assert check_urlconf(settings, registry, path("v/", view.as_view(), name="bad name!")) == [
        checks.Error(
            "The tool name 'bad name!' derived for "
            f"{view.__qualname__} (GET) at /v/ is not 1-64 characters of [A-Za-z0-9_.-].",
            hint="Pass name= to @mcp_tool, or rename the URL pattern or the router basename.",
            obj=view,
            id="mcp_tools.E002",
        )
    ]


def test_a_view_mounted_twice_is_an_error(settings):
    registry = ToolRegistry()
    view = mcp_tool(registry=registry)(get_view("Twice"))
    callback = view.as_view()
    messages = check_urlconf(
        settings, registry, path("one/", callback, name="one"), re_path(r"^two/$", callback)
    )
    assert messages == [
        checks.Error(
            f"{view.__qualname__} GET is mounted at several URLs (/one/, /two/); pass path= to "
            "@mcp_tool to choose one",
            hint='Pass path= to @mcp_tool with the route to expose, e.g. path="/api/items/".',
            obj=view,
            id="mcp_tools.E003",
        )
    ]


def test_an_argument_clash_is_an_error(settings):
    registry = ToolRegistry()

    class Body(serializers.Serializer):
        item = serializers.CharField()

    @mcp_tool("clash", registry=registry)
    class Clash(APIView):
        def get_serializer_class(self):
            return Body

        def post(self, request, item):
            return Response()

    assert check_urlconf(settings, registry, path("i/<int:item>/", Clash.as_view())) == [
        checks.Error(
            f"Tool 'clash' ({Clash.__qualname__} (POST) at /i/<int:item>/): argument 'item' is "
            "used by both the URL path and the body, so the arguments can't be told apart.",
            hint="Rename the URL parameter, the filter or the serializer field, or declare the "
            "arguments yourself with @mcp_tool(input_schema=...).",
            obj=Clash,
            id="mcp_tools.E004",
        )
    ]


def test_an_invalid_declared_input_schema_is_an_error(settings):
    registry = ToolRegistry()
    view = mcp_tool("typed", registry=registry, input_schema={"type": "array"})(get_view("T"))
    assert check_urlconf(settings, registry, path("t/", view.as_view())) == [
        checks.Error(
            "The input_schema of tool 'typed' is not a valid JSON Schema: the root must be an "
            "object schema (type: object).",
            hint="Pass an object schema (type: object) that is valid JSON Schema 2020-12 and "
            "draft-07 to @mcp_tool(input_schema=...).",
            obj=view,
            id="mcp_tools.E005",
        )
    ]


def test_a_serializer_that_needs_a_real_request_is_a_warning(settings):
    registry = ToolRegistry()

    @mcp_tool("needs_user", registry=registry)
    class NeedsUser(generics.CreateAPIView):
        def get_serializer_class(self):
            return self.request.user.profile.serializer_class  # anonymous users have none

    messages = check_urlconf(settings, registry, path("n/", NeedsUser.as_view()))
    assert messages == [
        checks.Warning(
            f"Tool 'needs_user' ({NeedsUser.__qualname__} (POST) at /n/): the request serializer "
            "could not be read with a synthetic anonymous request (AttributeError: "
            "'AnonymousUser' object has no attribute 'profile'), so the input schema lists no "
            "body fields.",
            hint="Make get_serializer_class() work for an anonymous request (check "
            "request.user.is_authenticated before using the user), or declare the arguments "
            "with @mcp_tool(input_schema=...).",
            obj=NeedsUser,
            id="mcp_tools.W002",
        )
    ]
    # tools/list still works: the tool takes any object.
    (tool,) = registry.tools()
    assert tool.input_schema == {"type": "object", "properties": {}}


def test_query_parameters_that_cannot_be_read_are_a_warning(settings):
    from django_filters.rest_framework import DjangoFilterBackend

    registry = ToolRegistry()

    @mcp_tool("no_queryset", registry=registry)
    class NoQueryset(generics.ListAPIView):
        filter_backends = [DjangoFilterBackend]
        filterset_fields = ["name"]

        def get_queryset(self):
            raise RuntimeError("needs a tenant")

    messages = check_urlconf(settings, registry, path("q/", NoQueryset.as_view()))
    assert messages == [
        checks.Warning(
            f"Tool 'no_queryset' ({NoQueryset.__qualname__} (GET) at /q/): the query parameters "
            "of the filter backends and the paginator could not be read (RuntimeError: needs a "
            "tenant), so the input schema lists none.",
            hint="Set queryset on the view (filter sets need its model), or declare the "
            "arguments with @mcp_tool(input_schema=...).",
            obj=NoQueryset,
            id="mcp_tools.W003",
        )
    ]


@pytest.mark.django_db
def test_views_that_query_a_database_without_tables_are_one_warning(settings):
    # The first migrate of a project whose serializers and filter sets read its tables
    # (Nautobot's content types): one warning, not one per tool.
    from django.db import connection
    from django_filters.rest_framework import DjangoFilterBackend

    registry = ToolRegistry()

    def unmigrated(*args, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM not_migrated_yet")

    class Body(serializers.Serializer):
        name = serializers.CharField()

    @mcp_tool("tagged_create", registry=registry)
    class TaggedCreate(generics.CreateAPIView):
        def get_serializer_class(self):
            unmigrated()

    @mcp_tool("tagged_list", registry=registry)
    class TaggedList(generics.ListAPIView):
        serializer_class = Body
        filter_backends = [DjangoFilterBackend]
        filterset_fields = ["name"]

        def get_queryset(self):
            unmigrated()

    messages = check_urlconf(
        settings,
        registry,
        path("c/", TaggedCreate.as_view()),
        path("l/", TaggedList.as_view()),
    )
    (message,) = messages
    assert (message.id, message.obj) == ("mcp_tools.W010", None)
    assert message.msg.startswith(
        "2 tool(s) (tagged_create, tagged_list) could not be read whole: their views' code "
        "queried the database, which answered "
    )
    assert "not_migrated_yet" in message.msg
    assert message.hint.startswith("Run manage.py migrate, then check again")


def test_file_fields_are_a_warning(settings):
    registry = ToolRegistry()

    class Upload(serializers.Serializer):
        title = serializers.CharField()
        document = serializers.FileField()

    @mcp_tool("upload", registry=registry)
    class UploadView(generics.CreateAPIView):
        serializer_class = Upload

    assert check_urlconf(settings, registry, path("u/", UploadView.as_view())) == [
        checks.Warning(
            f"Tool 'upload' ({UploadView.__qualname__} (POST) at /u/): the field(s) document "
            "take uploaded files, which JSON arguments can't carry; they are left out of the "
            "input schema.",
            hint="Expose a variant of the view whose serializer takes a URL or base64 text "
            "instead, or leave this method out with methods=/actions=.",
            obj=UploadView,
            id="mcp_tools.W004",
        )
    ]


# -- registries other than the default one -------------------------------------------------


def served_beside_the_default(settings, registries, *patterns, project="tests.urls"):
    """Serve each registry at /other/mcp, /other1/mcp, ... beside ``project``'s URLs (the
    test project, whose /mcp serves the default registry)."""
    from django.urls import include

    from mcp_tools.views import MCPView

    module = types.ModuleType("other_registry_urls")
    module.urlpatterns = [
        *patterns,
        *(
            path(f"other{index or ''}/mcp", MCPView.as_view(registry=registry))
            for index, registry in enumerate(registries)
        ),
        path("", include(project)),
    ]
    settings.ROOT_URLCONF = module


def test_a_name_two_registries_give_to_different_views_is_a_warning(settings):
    from mcp_tools.checks import check_shared_names
    from mcp_tools.views import MCPView

    other = ToolRegistry()

    @mcp_tool("echo", registry=other)
    @api_view(["GET"])
    def other_echo(request):
        return Response()

    served_beside_the_default(
        settings,
        [other],
        path("other/echo/", other_echo),
        path("mcp", MCPView.as_view()),
        project="tests.testapp.urls",
    )
    assert check_shared_names() == [
        checks.Warning(
            "Tool name 'echo' is given to two views by two registries: EchoView (GET) at "
            "/echo/<slug:word>/ (served at /mcp) and other_echo (GET) at /other/echo/ (served "
            "at /other/mcp); one admin row (ExposedTool) holds the rules of both, and the "
            "admin shows the first.",
            hint="Give one of them another name with @mcp_tool(name=...). If they are one tool "
            "on purpose, silence mcp_tools.W007: the admin's switch, allowed groups and "
            "overrides then apply to both.",
            obj=other_echo,
            id="mcp_tools.W007",
        )
    ]


def test_one_view_that_two_registries_declare_is_one_tool(settings):
    from mcp_tools.checks import check_shared_names

    one, other = ToolRegistry(), ToolRegistry()
    view = mcp_tool("shared", registry=one)(mcp_tool("shared", registry=other)(get_view("S")))
    served_beside_the_default(settings, [one, other], path("shared/", view.as_view()))
    assert check_shared_names() == []


def test_the_tools_of_every_served_registry_are_checked(settings):
    other = ToolRegistry()
    view = mcp_tool("typed", registry=other, input_schema={"type": "array"})(get_view("T"))
    served_beside_the_default(settings, [other], path("typed/", view.as_view()))
    assert [message.id for message in check_tools()] == ["mcp_tools.E005"]


# -- the admin state's cache ----------------------------------------------------------------


def admin_cache_checks(settings, backend, debug=False, alias="mcp"):
    from mcp_tools.checks import check_admin_cache

    settings.CACHES = {**settings.CACHES, "mcp": {"BACKEND": backend}}
    settings.MCP_TOOLS = {"CACHE": alias}
    settings.DEBUG = debug
    return check_admin_cache()


def test_a_per_process_cache_is_a_warning_that_says_what_it_costs_outside_debug(settings):
    # Not an error: `migrate` must go through for a site that just added the app, and the
    # admin state is right anyway (read from the database, tests/catalog/test_admin_state.py).
    locmem = "django.core.cache.backends.locmem.LocMemCache"
    (message,) = admin_cache_checks(settings, locmem)
    assert message == checks.Warning(
        "MCP_TOOLS['CACHE'] is 'mcp', a LocMemCache: a cache each process keeps for itself. "
        "What every worker must see goes through the database instead: the admin state's "
        "version (one query per ADMIN_STATE_MAX_AGE, 1 s), and the spent confirmations and the "
        "answers to the handshake era's questions (the table mcp_tools_cache, one query per "
        "read).",
        hint="Point MCP_TOOLS['CACHE'] at a cache every worker shares (Redis, Memcached, the "
        "database cache) to spare those queries.",
        obj="mcp",
        id="mcp_tools.W032",
    )
    assert admin_cache_checks(settings, locmem, debug=True) == []


def test_a_file_cache_is_a_warning_outside_debug(settings):
    filebased = "django.core.cache.backends.filebased.FileBasedCache"
    (message,) = admin_cache_checks(settings, filebased)
    assert message.id == "mcp_tools.W033"
    assert "add() is not atomic across processes" in message.msg
    assert admin_cache_checks(settings, filebased, debug=True) == []


def test_a_dummy_cache_is_a_warning(settings):
    (message,) = admin_cache_checks(settings, "django.core.cache.backends.dummy.DummyCache")
    assert message.id == "mcp_tools.W031"
    assert "it keeps nothing. What every worker must see goes through the database" in message.msg


def test_an_unknown_cache_alias_is_an_error(settings):
    (message,) = admin_cache_checks(
        settings, "django.core.cache.backends.dummy.DummyCache", alias="nope"
    )
    assert message.id == "mcp_tools.E031"
    assert (
        message.msg
        == "MCP_TOOLS['CACHE'] names the cache alias 'nope', which CACHES does not define."
    )


def test_a_shared_cache_passes(settings):
    assert admin_cache_checks(settings, "django.core.cache.backends.db.DatabaseCache") == []


def test_an_invalid_output_schema_is_an_error(settings):
    registry = ToolRegistry()
    view = mcp_tool(
        "bad_output", registry=registry, output_schema={"type": "nope"}, include_output_schema=True
    )(get_view("BadOutput"))
    (message,) = check_urlconf(settings, registry, path("o/", view.as_view()))
    assert message.id == "mcp_tools.E021"
    assert message.msg.startswith(
        "The output schema of tool bad_output is not a valid JSON Schema:"
    )


# -- Authentication (docs/checks.md) ---------------------------------------------------------


def _auth_messages(settings, urlpatterns, **mcp_tools):
    from mcp_tools.checks import check_endpoint_authentication, check_well_known
    from mcp_tools.contrib.oauth.checks import check_oauth

    module = types.ModuleType("auth_check_urls")
    module.urlpatterns = urlpatterns
    settings.ROOT_URLCONF = module
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, **mcp_tools}
    found = check_endpoint_authentication() + check_well_known() + check_oauth()
    first: dict[str, checks.CheckMessage] = {}
    for message in found:
        first.setdefault(message.id, message)
    return first


def test_a_fresh_projects_drf_defaults_admit_anonymous_callers_w040(settings):
    from django.urls import include

    settings.REST_FRAMEWORK = {}  # DRF's own defaults: Session, Basic and AllowAny
    found = _auth_messages(settings, [path("", include("mcp_tools.urls"))])
    assert set(found) == {"mcp_tools.W040"}
    assert found["mcp_tools.W040"].msg == (
        "The MCP endpoint /mcp admits anonymous callers: its permission classes are DRF's "
        "DEFAULT_PERMISSION_CLASSES (AllowAny), which no setting of mcp_tools chose, so anyone "
        "who reaches it lists and calls every tool anonymous callers may use."
    )
    assert found["mcp_tools.W040"].level == checks.WARNING
    # Chosen on purpose: no W040 (and, in DEBUG, no W041 either).
    settings.DEBUG = True
    chosen = _auth_messages(
        settings,
        [path("", include("mcp_tools.urls"))],
        PERMISSION_CLASSES=["rest_framework.permissions.AllowAny"],
    )
    assert chosen == {}


def test_an_open_endpoint_with_tools_anonymous_callers_cant_use_w041(settings):
    from django.urls import include
    from rest_framework.permissions import AllowAny

    from mcp_tools.views import MCPView

    settings.DEBUG = False
    urlpatterns = [
        path("api/", include("demo_project.todos.urls")),
        path("open/mcp", MCPView.as_view(permission_classes=[AllowAny])),
    ]
    found = _auth_messages(settings, urlpatterns)
    assert set(found) == {"mcp_tools.W041"}
    assert found["mcp_tools.W041"].msg.startswith(
        "The MCP endpoint /open/mcp admits anonymous callers, but 8 of its tools (todo_stats, "
        "todo_export, todo_list, todo_create, todo_retrieve, ...) refuse them"
    )
    settings.DEBUG = True
    assert _auth_messages(settings, urlpatterns) == {}


def test_an_authentication_class_without_its_app_e040(settings):
    from django.urls import include

    settings.INSTALLED_APPS = [
        app for app in settings.INSTALLED_APPS if app != "rest_framework.authtoken"
    ]
    found = _auth_messages(settings, [path("", include("mcp_tools.urls"))])
    assert found["mcp_tools.E040"].msg == (
        "The MCP endpoint /mcp authenticates with TokenAuthentication, which needs "
        "'rest_framework.authtoken' in INSTALLED_APPS: without it every request that carries "
        "its credentials fails."
    )
    assert found["mcp_tools.E040"].level == checks.ERROR


def test_a_token_authentication_with_its_own_model_needs_no_authtoken(settings):
    # NetBox's and Nautobot's TokenAuthentication: DRF's subclassed with ``model`` set to
    # the project's own Token, so rest_framework.authtoken is not theirs to install.
    from django.contrib.auth.models import Group
    from rest_framework.authentication import TokenAuthentication

    from mcp_tools.views import MCPView

    class ProjectTokenAuthentication(TokenAuthentication):
        model = Group  # any installed model stands for the project's Token

    settings.INSTALLED_APPS = [
        app for app in settings.INSTALLED_APPS if app != "rest_framework.authtoken"
    ]
    endpoint = MCPView.as_view(authentication_classes=[ProjectTokenAuthentication])
    assert "mcp_tools.E040" not in _auth_messages(settings, [path("mcp", endpoint)])


def test_oauth_metadata_without_the_well_known_urls_w042(settings):
    from django.urls import include

    urlpatterns = [path("", include("mcp_tools.urls"))]
    found = _auth_messages(settings, urlpatterns, **OAUTH_SET_UP)
    assert set(found) == {"mcp_tools.W042"}
    urlpatterns.append(path("", include("mcp_tools.urls.well_known")))
    assert _auth_messages(settings, urlpatterns, **OAUTH_SET_UP) == {}


OAUTH_SET_UP = {
    "OAUTH_AUTHORIZATION_SERVERS": ["/"],
    "PUBLIC_URL": "https://example.com/mcp",
    "AUTHENTICATION_CLASSES": [
        "mcp_tools.contrib.oauth.authentication.OAuth2ResourceAuthentication"
    ],
}


@pytest.mark.parametrize("named", ["PUBLIC_URL", "OAUTH_RESOURCE"])
def test_oauth_metadata_needs_the_public_url_from_settings_e044(settings, named):
    from django.urls import include

    urlpatterns = [
        path("", include("mcp_tools.urls")),
        path("", include("mcp_tools.urls.well_known")),
    ]
    unnamed = {**OAUTH_SET_UP, "PUBLIC_URL": None}
    found = _auth_messages(settings, urlpatterns, **unnamed)
    assert set(found) == {"mcp_tools.E044"}
    assert found["mcp_tools.E044"].level == checks.ERROR
    assert "never taken from the Host or X-Forwarded-Host header" in found["mcp_tools.E044"].hint
    # A relative or schemeless value names no origin either.
    assert set(_auth_messages(settings, urlpatterns, **{**unnamed, named: "/mcp"})) == {
        "mcp_tools.E044"
    }
    assert (
        _auth_messages(settings, urlpatterns, **{**unnamed, named: "https://example.com/mcp"}) == {}
    )


def test_oauth_metadata_without_an_oauth_authentication_class_w044(settings):
    from django.urls import include

    urlpatterns = [
        path("", include("mcp_tools.urls")),
        path("", include("mcp_tools.urls.well_known")),
    ]
    token_only = {
        **OAUTH_SET_UP,
        "AUTHENTICATION_CLASSES": ["mcp_tools.authentication.BearerTokenAuthentication"],
    }
    found = _auth_messages(settings, urlpatterns, **token_only)
    assert set(found) == {"mcp_tools.W044"}
    assert found["mcp_tools.W044"].msg == (
        "OAuth metadata is configured (MCP_TOOLS['OAUTH_AUTHORIZATION_SERVERS']), but the MCP "
        "endpoint /mcp has no OAuth authentication class (BearerTokenAuthentication): clients "
        "are sent to an authorization server whose tokens it does not accept."
    )


def test_an_oauth_endpoint_without_an_authorization_server_w043(settings):
    from mcp_tools.contrib.oauth.authentication import OAuth2ResourceAuthentication
    from mcp_tools.views import MCPView

    view = MCPView.as_view(authentication_classes=[OAuth2ResourceAuthentication])
    found = _auth_messages(settings, [path("mcp", view)])
    assert set(found) == {"mcp_tools.W043"}
    assert found["mcp_tools.W043"].msg.startswith(
        "The MCP endpoint /mcp authenticates OAuth tokens"
    )
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "oauth2_provider"]
    assert "mcp_tools.E043" in _auth_messages(settings, [path("mcp", view)])


I001_TAIL = (
    " or @mcp_tool(input_schema=...). If it takes no body, say so with "
    '@mcp_tool(input_schema={"type": "object"}).'
)


def test_a_body_tool_whose_schema_names_no_field_says_where_to_declare_them(settings):
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class SnippetList(APIView):
        def post(self, request):
            return Response(request.data)  # what it reads, no schema can tell

    @mcp_tool(registry=registry)
    class SnippetDetail(APIView):
        def put(self, request, pk):
            return Response(request.data)  # a path argument is not a body field

    def snippet_create(request):
        return Response(request.data)

    declared = mcp_tool(registry=registry)(snippet_create)

    @mcp_tool(registry=registry, input_schema={"type": "object"})  # no body, and it says so
    @api_view(["POST"])
    def snippet_ping(request):
        return Response({})

    assert not check_urlconf(  # an info: check --deploy only
        settings,
        registry,
        path("snippets/", SnippetList.as_view(), name="snippet-list"),
        path("snippets/<int:pk>/", SnippetDetail.as_view(), name="snippet-detail"),
        path("create/", api_view(["POST"])(declared), name="snippet-create"),
        path("ping/", snippet_ping, name="snippet-ping"),
    )
    found = check_tool_notes(registry=registry)
    message = (
        "Tool {name!r} ({where}) takes a request body, but its input schema lists no body "
        "fields, so a model learns what to send only from the view's errors."
    )

    def hint(view):
        return (
            "Declare the fields where mcp_tools reads them: serializer_class = ... (or "
            f"get_serializer_class()) on {view}, @extend_schema(request=...) with "
            "drf-spectacular," + I001_TAIL
        )

    local = "test_a_body_tool_whose_schema_names_no_field_says_where_to_declare_them.<locals>."
    assert found == [
        checks.Info(
            message.format(name="snippet_list", where=f"{local}SnippetList (POST) at /snippets/"),
            hint=hint(f"{local}SnippetList"),
            obj=SnippetList,
            id="mcp_tools.I001",
        ),
        checks.Info(
            message.format(
                name="snippet_detail", where=f"{local}SnippetDetail (PUT) at /snippets/<int:pk>/"
            ),
            hint=hint(f"{local}SnippetDetail"),
            obj=SnippetDetail,
            id="mcp_tools.I001",
        ),
        checks.Info(
            message.format(name="snippet_create", where="snippet_create (POST) at /create/"),
            hint="Declare the fields where mcp_tools reads them: @extend_schema(request=...) "
            "with drf-spectacular, above @api_view on snippet_create," + I001_TAIL,
            obj=declared,
            id="mcp_tools.I001",
        ),
    ]


# -- MCP_TOOLS itself -----------------------------------------------------------------------


def settings_messages(settings, **values):
    from mcp_tools.checks import check_settings

    settings.MCP_TOOLS = {**settings.MCP_TOOLS, **values}
    return [(message.id, message.msg, message.hint) for message in check_settings()]


def test_a_misspelt_setting_is_reported_with_the_close_match(settings):
    ((id_, msg, hint),) = settings_messages(settings, MASK_ERROR=True)
    assert id_ == "mcp_tools.W050"
    assert msg == "MCP_TOOLS['MASK_ERROR'] is not a setting of mcp_tools, so it is ignored."
    assert hint == "Did you mean 'MASK_ERRORS'?"


def test_a_removed_setting_says_what_took_its_place(settings):
    ((id_, _, hint),) = settings_messages(settings, FORWARDED_HEADERS=["HTTP_X_TENANT_ID"])
    assert id_ == "mcp_tools.W050" and hint.startswith("Removed: the view's request carries")


def test_a_setting_far_from_any_is_pointed_at_the_settings_page(settings):
    ((_, _, hint),) = settings_messages(settings, ZZZ=1)
    assert hint == "See docs/settings.md."


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("DISPATCH", "fast"),
        ("CALL_LOG", "everything"),
        ("JSON_NAN", None),
        ("CONFIRM_UNASKABLE", "skip"),
        ("FILTER_LOOKUPS", "none"),
    ],
)
def test_an_enumerated_setting_outside_its_values_is_an_error(settings, key, value):
    ((id_, msg, _),) = settings_messages(settings, **{key: value})
    assert id_ == "mcp_tools.E051" and msg.startswith(f"MCP_TOOLS[{key!r}] is {value!r}")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("MAX_REQUEST_BYTES", 0),
        ("MAX_BATCH_SIZE", -1),
        ("CALL_TIMEOUT", 0),
        ("CALL_TIMEOUT", "60"),
        ("MAX_STREAMS", True),
        ("MAX_STREAMS", -1),
        ("MAX_STREAMS_PER_CALLER", 0),
        ("CACHE_TTL_MS", -5),
        ("PAGE_SIZE", 0),
        ("INPUT_TIMEOUT", 0),
        ("CALL_LOG_QUEUE_SIZE", -1),
        ("CALL_LOG_QUEUE_SIZE", "10000"),
        ("CALL_LOG_FLUSH_INTERVAL", 0),
        ("MAX_TASK_BYTES_PER_CALLER", 0),
        ("MAX_TASK_BYTES_PER_CALLER", "10MB"),
        ("MAX_REDIRECTS", -1),
        ("MAX_REDIRECTS", None),
    ],
)
def test_a_bound_that_is_not_positive_is_an_error(settings, key, value):
    ((id_, _, _),) = settings_messages(settings, **{key: value})
    assert id_ == "mcp_tools.E052"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("CACHE_TTL_MS", 0),
        ("PAGE_SIZE", None),
        ("MAX_STREAMS", 0),  # no streams: a sync worker is never held (docs/deployment.md)
        ("MAX_STREAMS_PER_CALLER", None),
        ("CALL_TIMEOUT", 0.5),
        ("CALL_LOG_QUEUE_SIZE", 0),
        ("CALL_LOG_FLUSH_INTERVAL", 0.2),
        ("MAX_TASK_BYTES_PER_CALLER", None),
        ("MAX_REDIRECTS", 0),  # no redirect is followed (docs/results.md#redirects)
    ],
)
def test_bounds_that_mean_something_are_accepted(settings, key, value):
    assert settings_messages(settings, **{key: value}) == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("mcp_tools.views.MCPView", "not a subclass of BaseFormatter"),
        ("mcp_tools.nowhere.Formatter", "it can't be imported"),
    ],
)
def test_a_formatter_class_that_is_not_a_formatter_is_an_error(settings, value, problem):
    ((id_, msg, _),) = settings_messages(settings, FORMATTER_CLASS=value)
    assert id_ == "mcp_tools.E053" and problem in msg


def test_the_default_settings_are_valid(settings):
    assert settings_messages(settings) == []


def test_the_dispatch_check_lists_what_runs_for_tool_calls(settings):
    from mcp_tools.checks import check_dispatch

    settings.MIDDLEWARE = [
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "tests.middleware_app.middleware.TenantMiddleware",
    ]
    (message,) = check_dispatch()
    assert message.id == "mcp_tools.I060"
    assert "run through 1 middleware of MIDDLEWARE: tests.middleware_app" in message.msg
    assert "Left out: django.contrib.sessions.middleware.SessionMiddleware, " in message.msg
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISPATCH": "direct"}
    (message,) = check_dispatch()
    assert message.id == "mcp_tools.I061"
    assert "1 middleware of MIDDLEWARE would run" in message.msg
    assert "(tests.middleware_app.middleware.TenantMiddleware)" in message.msg


def test_the_dispatch_check_is_silent_with_only_djangos_classes(settings):
    from mcp_tools.checks import check_dispatch

    settings.MIDDLEWARE = ["django.contrib.sessions.middleware.SessionMiddleware"]
    assert check_dispatch() == []
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISPATCH": "direct"}
    assert check_dispatch() == []


def run_check(*args):
    import io

    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    call_command("check", *args, stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_info_checks_run_only_with_deploy(settings):
    """migrate, runserver and check print no info line; check --deploy prints them."""
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.middleware_app.middleware.TenantMiddleware"]
    assert "(mcp_tools.I0" not in run_check()
    assert "(mcp_tools.I0" not in run_check("--tag", "mcp_tools")
    deployed = run_check("--deploy", "--tag", "mcp_tools")
    assert "?: (mcp_tools.I060) Tool calls run through 1 middleware" in deployed


@pytest.mark.parametrize("value", ["django.middleware.gzip.GZipMiddleware", [1], None])
def test_a_skip_list_that_is_no_list_of_dotted_paths_is_an_error(settings, value):
    ((id_, _, _),) = settings_messages(settings, DISPATCH_SKIP_MIDDLEWARE=value)
    assert id_ == "mcp_tools.E054"


def test_a_delete_tool_has_no_output_schema_to_miss(settings):
    """With INCLUDE_OUTPUT_SCHEMA on, a DELETE answers no body: nothing to warn about
    (docs/results.md); a GET with no known schema still gets W021."""
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "INCLUDE_OUTPUT_SCHEMA": True}
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class Thing(APIView):
        def get(self, request):
            return Response({"a": 1})

        def delete(self, request):
            return Response(status=204)

    settings.ROOT_URLCONF = types.ModuleType("thing_urls")
    settings.ROOT_URLCONF.urlpatterns = [path("thing/", Thing.as_view(), name="thing")]
    found = [(m.id, m.msg.split(":")[0]) for m in check_tools(registry=registry)]
    assert found == [("mcp_tools.W021", "Tool thing_get")]


def test_a_check_message_names_the_view_not_its_callback(settings):
    registry = ToolRegistry()

    def echo(request):
        return Response(request.data)

    view = mcp_tool(registry=registry)(api_view(["POST"])(echo))  # the callback declared
    settings.ROOT_URLCONF = types.ModuleType("echo_urls")
    settings.ROOT_URLCONF.urlpatterns = [path("echo/", view, name="echo")]
    (message,) = check_tool_notes(registry=registry)
    assert message.obj == view  # still the declared object for code that compares
    assert str(message).startswith(f"{__name__}.echo: (mcp_tools.I001)")
    assert "<function" not in str(message)


# -- Tasks (docs/checks.md) -------------------------------------------------------------------


@pytest.fixture
def task_tools(settings):
    """A registry with one task tool, served by the URLconf."""
    from mcp_tools.checks import check_tasks

    registry = ToolRegistry()
    view = mcp_tool("export_rows", registry=registry, task="optional")(
        type("Export", (APIView,), {"post": lambda self, request: Response()})
    )
    module = types.ModuleType("task_urls")
    module.urlpatterns = [path("export/", view.as_view())]
    settings.ROOT_URLCONF = module
    return lambda: [(m.id, m.msg, m.hint) for m in check_tasks(registry=registry)]


def test_a_task_tool_without_the_tasks_framework_is_an_error(task_tools, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "django.tasks", None)  # neither can be imported
    monkeypatch.setitem(sys.modules, "django_tasks", None)
    ((check_id, message, hint),) = task_tools()
    assert check_id == "mcp_tools.E070"
    assert message.startswith("The tools export_rows are declared with task=")
    assert "DjangoTasksExecutor" in message
    assert 'pip install "django-mcp-tools[tasks]"' in hint


def test_the_project_s_own_executor_needs_no_tasks_framework(task_tools, monkeypatch, settings):
    import sys

    monkeypatch.setitem(sys.modules, "django.tasks", None)
    monkeypatch.setitem(sys.modules, "django_tasks", None)
    settings.MCP_TOOLS = {"TASK_EXECUTOR": "tests.tasks.test_store.RecordingExecutor"}
    assert task_tools() == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("myproject.nowhere.Executor", "can't be imported (No module named 'myproject')"),
        ("mcp_tools.tasks.executors.tasks_framework", "has no enqueue(task_id) method"),
    ],
)
def test_a_task_executor_that_cant_be_imported_is_an_error(task_tools, settings, value, problem):
    settings.MCP_TOOLS = {"TASK_EXECUTOR": value}
    ((check_id, message, hint),) = task_tools()
    assert (check_id, message) == (
        "mcp_tools.E071",
        f"MCP_TOOLS['TASK_EXECUTOR'] is {value!r}, which {problem}.",
    )
    assert 'pip install "django-mcp-tools[tasks]"' in hint


def test_the_immediate_backend_in_production_is_a_warning(task_tools, settings):
    settings.DEBUG = False
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    ((check_id, message, hint),) = task_tools()
    assert check_id == "mcp_tools.W070"
    assert "every task call of export_rows runs inline, in the web worker" in message
    assert "'BACKEND': 'django_tasks_db.DatabaseBackend'" in hint and "db_worker" in hint
    settings.DEBUG = True  # runserver: inline is what a developer wants
    assert task_tools() == []


def test_a_task_backend_tasks_does_not_define_is_an_error(task_tools, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    settings.MCP_TOOLS = {"TASK_BACKEND": "mcp"}
    ((check_id, message, hint),) = task_tools()
    assert (check_id, message) == (
        "mcp_tools.E072",
        "MCP_TOOLS['TASK_BACKEND'] is 'mcp', which TASKS does not define ('default'): the "
        "task calls of export_rows fail.",
    )
    assert "db_worker --backend mcp" in hint
    settings.TASKS = {**settings.TASKS, "mcp": {"BACKEND": settings.TASKS["default"]["BACKEND"]}}
    assert task_tools() == []


def test_a_worker_backend_is_no_warning(task_tools, settings):
    settings.DEBUG = False
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    assert task_tools() == []


def test_no_task_tool_no_task_checks(settings, monkeypatch):
    import sys

    from mcp_tools.checks import check_tasks

    monkeypatch.setitem(sys.modules, "django_tasks", None)
    monkeypatch.setitem(sys.modules, "django.tasks", None)
    assert check_tasks(registry=ToolRegistry()) == []
