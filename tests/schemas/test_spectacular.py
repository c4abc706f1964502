"""drf-spectacular's annotations feed the tools (tests/spectacular_app), through the SDK.

``@extend_schema(request=, responses=, summary=, description=, parameters=, tags=,
exclude=)``, ``@extend_schema_view`` per action and ``@extend_schema_field`` on custom fields,
as a project that documents its API for drf-spectacular writes them.
"""

import asyncio
import types

import pytest
from django.core import checks
from django.test import override_settings
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import filters, generics
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.checks import check_tools
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from tests.helpers import purpose
from tests.sdk import Wire, all_tools, connect
from tests.spectacular_app.models import Book
from tests.wire import validate_exchange

BOOKS = [("A Wizard of Earthsea", "Ursula K. Le Guin"), ("Kindred", "Octavia E. Butler")]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def unwrapped(value):
    return value if isinstance(value, list) else value["items"]


def session(url, token, calls, mode):
    wire = Wire()

    async def scenario():
        async with connect(url, token=token, mode=mode, wire=wire) as client:
            tools = await all_tools(client)  # every page (PAGE_SIZE)
            return tools, [await client.call_tool(name, args) for name, args in calls]

    tools, results = run(scenario())
    version = "2025-11-25" if mode == "legacy" else "2026-07-28"
    for message, status, _, body in wire.posts():
        validate_exchange(version, message, status, body)
    return tools, results


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_annotated_views_become_the_tools_their_annotations_describe(
    live_server, alice, mode, version
):
    earthsea, kindred = (Book.objects.create(title=t, author=a) for t, a in BOOKS)
    tools, results = session(
        f"{live_server.url}/mcp",
        alice.token,
        [
            ("book_list", {"author": "Octavia E. Butler"}),
            ("book_search", {"q": "earth", "limit": "5"}),
            ("book_review", {"book": earthsea.pk, "stars": 5}),
            ("book_review", {"book": earthsea.pk, "stars": "many"}),
            ("book_import", {"isbn": "9780553383041"}),
            ("book_feature", {"pk": kindred.pk}),
        ],
        mode,
    )
    listed, searched, reviewed, refused, imported, featured = results

    # summary= is the title, description= the description, parameters= the arguments.
    book_list = tools["book_list"]
    assert (book_list.title, purpose(book_list.description)) == (
        "Browse the catalogue",
        "List the catalogue's books, oldest first, optionally by one author.",
    )
    assert book_list.input_schema["properties"] == {
        "author": {"type": "string", "description": "Only books by this author."}
    }
    assert [book["title"] for book in unwrapped(listed.structured_content)] == ["Kindred"]

    # exclude=True, on an action (extend_schema_view) or on a view: not a tool.
    assert "book_destroy" not in tools and "book_internal" not in tools
    assert {"book_retrieve", "book_update", "book_partial_update"} <= set(tools)

    # responses= is the output schema; the SDK checks each result against it.
    search = tools["book_search"]
    assert search.input_schema == {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "Words of the title."},
            "limit": {"type": "integer", "default": 10},
        },
        "required": ["q"],
    }
    # 2026-07-28 carries the array schema itself; earlier versions wrap it (docs/protocol.md).
    array = search.output_schema
    array = array if version == "2026-07-28" else array["properties"]["items"]
    assert array["type"] == "array"
    book = array["items"]
    # @extend_schema_field: a custom field and a SerializerMethodField's method.
    assert book["properties"]["stars"] == {"type": "integer"}
    assert book["properties"]["label"] == {"type": "string"}
    labels = [book["label"] for book in unwrapped(searched.structured_content)]
    assert labels == ["A Wizard of Earthsea by Ursula K. Le Guin"]

    # request= on an @api_view (@mcp_tool below @api_view), responses={201: ...}.
    review = tools["book_review"]
    assert review.input_schema["required"] == ["book", "stars"]
    # Every argument is explained: a field without help text by its label (docs/tools.md).
    assert review.input_schema["properties"]["stars"] == {
        "type": "integer",
        "description": "Stars.",
    }
    assert review.output_schema["required"] == ["book", "average"]
    assert reviewed.is_error is False
    assert reviewed.structured_content == {"book": earthsea.pk, "average": 5.0}
    assert (
        refused.content[0].text == "Invalid arguments: $.stars: \"many\" is not of type 'integer'"
    )

    # request= as a raw schema by media type.
    assert tools["book_import"].input_schema == {
        "type": "object",
        "properties": {"isbn": {"type": "string", "pattern": "^[0-9]{13}$"}},
        "required": ["isbn"],
    }
    assert imported.structured_content == {"imported": "9780553383041"}

    # request=None: no body arguments, and it says so (no mcp_tools.I001).
    assert tools["book_feature"].input_schema["properties"].keys() == {"pk"}
    assert featured.structured_content["title"] == "Kindred"


@pytest.mark.django_db(transaction=True)
def test_tags_select_the_tools_of_a_tagged_endpoint(live_server, alice):
    tools, _ = session(f"{live_server.url}/x/mcp-catalogue", alice.token, [], "legacy")
    assert list(tools) == ["book_retrieve"]


def test_the_annotated_app_passes_every_check():
    messages = [m for m in checks.run_checks(tags=["mcp_tools"]) if "spectacular" in repr(m)]
    assert messages == []


# Unit cases ------------------------------------------------------------------------------


def urlconf(*patterns):
    module = types.ModuleType("spectacular_urls")
    module.urlpatterns = list(patterns)
    return module


def built(view, route="things/", **options):
    registry = ToolRegistry()
    mcp_tool("t", registry=registry, **options)(view)
    return registry.tools(urlconf(path(route, view.as_view()))).get("t")


def listing(parameters):
    """A list view with a search and an ordering filter, annotated with ``parameters``."""

    class Books(generics.ListAPIView):
        queryset = Book.objects.all()
        filter_backends = [filters.SearchFilter, filters.OrderingFilter]
        search_fields = ["title"]
        ordering_fields = ["title"]

        @extend_schema(parameters=parameters)
        def get(self, request, *args, **kwargs):
            return Response([])

    return Books


SEARCH = {"type": "string", "description": "A search term."}


@pytest.mark.parametrize(
    ("parameters", "expected"),
    [
        # An auto-discovered parameter removed, another retyped.
        (
            [
                OpenApiParameter("search", exclude=True),
                OpenApiParameter("ordering", enum=["title"]),
            ],
            {"ordering": {"type": "string", "enum": ["title"]}},
        ),
        # A new one, many=True; required.
        (
            [OpenApiParameter("ids", int, many=True, required=True, description="Book ids.")],
            {
                "search": SEARCH,
                "ordering": ...,
                "ids": {"type": "array", "items": {"type": "integer"}, "description": "Book ids."},
            },
        ),
        # Header and cookie parameters: a tool call carries neither.
        (
            [OpenApiParameter("X-Trace", str, OpenApiParameter.HEADER)],
            {"search": SEARCH, "ordering": ...},
        ),
        # A basic type; OpenAPI-only formats (int64) are left out.
        (
            [
                OpenApiParameter("day", OpenApiTypes.DATE),
                OpenApiParameter("count", OpenApiTypes.INT64, default=2),
            ],
            {
                "search": SEARCH,
                "ordering": ...,
                "day": {"type": "string", "format": "date"},
                "count": {"type": "integer", "default": 2},
            },
        ),
    ],
)
def test_parameters_add_remove_and_retype_query_arguments(parameters, expected):
    properties = built(listing(parameters)).input_schema["properties"]
    assert list(properties) == list(expected)
    for name, schema in expected.items():
        if schema is not ...:  # ... : as the filter backend describes it
            assert properties[name] == schema, name


def test_a_required_parameter_is_a_required_argument():
    tool = built(listing([OpenApiParameter("ids", int, many=True, required=True)]))
    assert tool.input_schema["required"] == ["ids"]


def test_a_path_parameter_takes_the_declared_type():
    class V(APIView):
        @extend_schema(
            parameters=[OpenApiParameter("code", str, OpenApiParameter.PATH, pattern="^[A-Z]{3}$")]
        )
        def get(self, request, code):
            return Response({})

    tool = built(V, route="codes/<str:code>/")
    assert tool.input_schema["properties"]["code"] == {"type": "string", "pattern": "^[A-Z]{3}$"}
    assert tool.input_schema["required"] == ["code"]


def test_mcp_tool_arguments_win_over_the_annotations():
    class V(APIView):
        @extend_schema(summary="Spectacular's title", description="Spectacular's words.")
        def get(self, request):
            return Response({})

    tool = built(V, title="Ours", description="Our words.")
    assert (tool.title, tool.description) == ("Ours", "Our words.")


def test_naming_the_operation_in_mcp_tool_wins_over_exclude():
    @extend_schema(exclude=True)
    class V(APIView):
        def get(self, request):
            return Response({})

    assert built(V) is None
    assert built(type("W", (V,), {}), methods=["GET"]) is not None


def test_annotations_built_on_drfs_own_schema_class_are_reported(settings):
    rest = {key: value for key, value in settings.REST_FRAMEWORK.items()}
    del rest["DEFAULT_SCHEMA_CLASS"]  # a project that installed spectacular, not configured it
    with override_settings(REST_FRAMEWORK=rest):

        class V(APIView):
            @extend_schema(description="Unread.")
            def get(self, request):
                return Response({})

        registry = ToolRegistry()
        mcp_tool("unread", registry=registry)(V)
        with override_settings(ROOT_URLCONF=urlconf(path("v/", V.as_view()))):
            found = check_tools(registry=registry)
    assert [(m.id, m.msg) for m in found] == [
        (
            "mcp_tools.W006",
            "Tool 'unread': drf-spectacular's annotations of its view could not be read (its "
            "schema class builds on rest_framework.schemas.openapi.AutoSchema, not on "
            "drf-spectacular's AutoSchema), so the tool is built without them.",
        )
    ]
    assert found[0].hint == (
        "Set REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] = 'drf_spectacular.openapi.AutoSchema', as "
        "drf-spectacular's installation asks, and make the annotations readable for a "
        "synthetic anonymous request."
    )


# Without drf-spectacular -----------------------------------------------------------------

TOOLS_OF_THE_PROJECT = """
import json, sys
if sys.argv[1] == "blocked":
    sys.modules["drf_spectacular"] = None  # any import of it raises ImportError
import django
django.setup()
from django.core import checks
from mcp_tools.tools.registry import registry
from mcp_tools.schemas import spectacular
print(json.dumps({
    "installed": spectacular.installed(),
    "imported": sys.modules.get("drf_spectacular") is not None,
    "tools": {tool.name: tool.definition() for tool in registry.tools()},
    # Django keeps its checks in a set: the order they run in is not the same each run.
    "checks": sorted([m.id, m.msg] for m in checks.run_checks(tags=["mcp_tools"])),
}))
"""


def tools_of_the_project(settings_module, spectacular):
    import json
    import os
    import subprocess
    import sys

    from tests.conformance_app.server import REPO

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings_module}
    done = subprocess.run(
        [sys.executable, "-c", TOOLS_OF_THE_PROJECT, spectacular],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_without_drf_spectacular_nothing_changes():
    without = tools_of_the_project("tests.settings_plain", "blocked")
    assert (without["installed"], without["imported"]) == (False, False)
    beside = tools_of_the_project("tests.settings_plain", "importable")
    assert beside["installed"] is True
    assert without["tools"] == beside["tools"] and without["checks"] == beside["checks"]
    # With spectacular's AutoSchema as the project's schema class, every tool it does not
    # annotate is the same too.
    configured = tools_of_the_project("tests.settings", "importable")
    annotated = {name for name, tool in configured["tools"].items() if name.startswith("book_")}
    unannotated = {k: v for k, v in configured["tools"].items() if k not in annotated}
    assert unannotated == without["tools"]
    assert len(without["tools"]) > 50
