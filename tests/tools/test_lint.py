"""``mcp_lint``: six components scored per tool, each smell named with a hint, and an exit
status for CI."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers
from rest_framework.filters import BaseFilterBackend
from rest_framework.generics import ListAPIView
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.viewsets import GenericViewSet, ReadOnlyModelViewSet

from mcp_tools.tools import lint as lint_module
from mcp_tools.tools.decorators import expose, mcp_tool
from mcp_tools.tools.lint import (
    COMPONENTS,
    MAX_DEFINITION_CHARS,
    definition_chars,
    definition_tokens,
    lint_tool,
)
from mcp_tools.tools.registry import ToolRegistry
from tests.testapp.models import Entry
from tests.tools.test_registry import urlconf


class Body(serializers.Serializer):
    code = serializers.CharField(help_text="The code to run.")
    level = serializers.IntegerField(required=False)


def one_tool(description=None, **attributes):
    registry = ToolRegistry()
    view = type("Runner", (APIView,), {"post": lambda self, request: Response(), **attributes})
    mcp_tool(registry=registry, description=description)(view)
    (tool,) = registry.tools(urlconf(path("run/", view.as_view(), name="run")))
    return tool


def smells(tool, definition=None):
    return {smell.code: smell for smell in lint_tool(tool, definition).smells}


def test_a_bare_definition_smells_on_every_component():
    tool = one_tool(description="Run", permission_classes=[permissions.IsAdminUser])
    definition = {
        **tool.definition(),
        "inputSchema": {
            "type": "object",
            "properties": {"code": {"type": "string"}},
            "required": ["code"],
        },
    }
    report = lint_tool(tool, definition)
    assert {smell.code: smell.component for smell in report.smells} == {
        "unclear-purpose": "purpose",
        "undescribed-parameter": "parameters",
        "no-usage": "usage",
        "unstated-limitations": "limitations",
        "too-short": "length",
        "no-return": "length",
        "no-examples": "examples",
    }
    assert all(smell.hint for smell in report.smells)
    assert report.scores == {
        "purpose": 0,
        "usage": 0,
        "limitations": 0,
        "parameters": 0,
        "length": 0,
        "examples": 1,
    }
    assert set(report.scores) == set(COMPONENTS)


def test_a_generated_definition_has_no_smell_above_info():
    tool = one_tool(
        serializer_class=Body,
        __doc__="Run a piece of code in the sandbox: returns what it printed.",
        permission_classes=[permissions.IsAdminUser],
    )
    found = smells(tool)
    assert [(code, smell.level) for code, smell in found.items()] == [("no-examples", "info")]
    assert lint_tool(tool).score == 11


def test_an_example_in_the_description_counts():
    tool = one_tool(
        serializer_class=Body,
        __doc__='Run a piece of code: returns its output. For example {"code": "print(1)"}.',
    )
    assert smells(tool) == {}


def test_definition_tokens_are_characters_over_four():
    assert definition_tokens({"name": "abcdefgh"}) == round(len('{"name":"abcdefgh"}') / 4)


def test_a_definition_over_its_budget_is_too_long():
    tool = one_tool(serializer_class=Body, __doc__="Run a piece of code: returns its output.")
    definition = tool.definition()
    room = MAX_DEFINITION_CHARS - definition_chars(definition)
    at_budget = {**definition, "description": definition["description"] + "x" * room}
    assert definition_chars(at_budget) == MAX_DEFINITION_CHARS
    assert "too-long" not in smells(tool, at_budget)
    over = {**at_budget, "description": at_budget["description"] + "x"}
    smell = smells(tool, over)["too-long"]
    assert (smell.level, smell.message) == (
        "warning",
        "the definition is 8,001 characters (about 2,000 tokens), over the budget of 8,000",
    )
    assert "FILTER_LOOKUPS" in smell.hint


@pytest.fixture
def smelly(settings):
    registry = ToolRegistry()

    @mcp_tool(registry=registry, description="Run it")
    class Runner(APIView):
        def get(self, request):
            return Response()

    settings.ROOT_URLCONF = urlconf(path("run/", Runner.as_view(), name="run"))
    return registry


def run_lint(monkeypatch, registry, *args):
    monkeypatch.setattr(
        "mcp_tools.management.commands.mcp_lint.served_registries", lambda: [registry]
    )
    out = io.StringIO()
    call_command("mcp_lint", *args, stdout=out)
    return out.getvalue()


def test_the_command_prints_scores_smells_hints_and_sizes(monkeypatch, smelly):
    text = run_lint(monkeypatch, smelly)
    lines = text.splitlines()
    assert lines[0].startswith("run: ")
    assert "  error unclear-purpose: the description does not say what the tool does" in lines
    assert any(line.startswith("    Hint: ") for line in lines)
    # unclear-purpose, then unstated-limitations (IsAuthenticated), too-short and no-return.
    assert lines[-1].startswith("1 tools, 4 smells at warning or above; definitions average ")
    assert "counted as characters / 4" in lines[-1]


def test_the_command_fails_at_its_fail_level(monkeypatch, smelly):
    run_lint(monkeypatch, smelly)  # no --fail-level: smells are reported, the exit is 0
    with pytest.raises(CommandError, match="^1 smells at error or above.$"):
        run_lint(monkeypatch, smelly, "--fail-level", "error")


def test_a_clean_project_passes_its_fail_level(monkeypatch, settings):
    registry = ToolRegistry()

    @mcp_tool(registry=registry)
    class Runner(APIView):
        """Run a piece of code in the sandbox: returns what it printed."""

        def get(self, request):
            return Response()

    settings.ROOT_URLCONF = urlconf(path("run/", Runner.as_view(), name="run"))
    assert "0 smells at warning" in run_lint(monkeypatch, registry, "--fail-level", "warning")


def test_the_level_hides_the_smells_below_it(monkeypatch, smelly):
    assert "warning" not in run_lint(monkeypatch, smelly, "--level", "error").replace(
        "smells at error", ""
    )


# What a model can't know (#38, item 5) ----------------------------------------------------
# Views written the DRF way, and a Wagtail-shaped API v2 (wagtail/api/v2/views.py): a
# GenericViewSet routed by hand, filter backends and a paginator with no schema methods, and
# the query parameters it accepts declared in ``known_query_parameters``.


class EntrySerializer(serializers.ModelSerializer):
    class Meta:
        model = Entry
        fields = ["id", "label"]


class LabelFilter(BaseFilterBackend):
    def filter_queryset(self, request, queryset, view):
        if "label" in request.GET:
            queryset = queryset.filter(label=request.GET["label"])
        return queryset


class ChildOfFilter(BaseFilterBackend):
    def filter_queryset(self, request, queryset, view):
        parent = request.GET.get("child_of")
        return queryset if parent is None else queryset.filter(pk__gt=int(parent))


class OffsetPagination(BasePagination):
    def paginate_queryset(self, queryset, request, view=None):
        offset = int(request.GET.get("offset", 0))
        limit = int(request.GET.get("limit", 20))
        return list(queryset[offset : offset + limit])

    def get_paginated_response(self, data):
        return Response({"meta": {}, "items": data})


class EntriesAPIViewSet(GenericViewSet):
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = EntrySerializer
    filter_backends = [LabelFilter, ChildOfFilter]
    pagination_class = OffsetPagination
    known_query_parameters = frozenset(
        ["limit", "offset", "fields", "order", "search", "child_of", "label", "_", "format"]
    )
    find_query_parameters = frozenset(["id"])

    def get_queryset(self):
        return Entry.objects.order_by("id")

    def check_query_parameters(self, queryset):
        unknown = set(self.request.GET) - self.known_query_parameters
        if unknown:
            raise ValueError(unknown)

    def listing_view(self, request):
        queryset = self.get_queryset()
        self.check_query_parameters(queryset)
        queryset = self.paginate_queryset(self.filter_queryset(queryset))
        return self.get_paginated_response(self.get_serializer(queryset, many=True).data)

    def detail_view(self, request, pk):
        return Response(self.get_serializer(self.get_object()).data)

    def find_view(self, request):
        return Response({"id": self.find_object(self.get_queryset(), request).pk})

    def find_object(self, queryset, request):
        if "id" in request.GET:
            return queryset.get(id=request.GET["id"])


PAGE_LIST_SCHEMA = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer", "description": "How many entries, at most 20."},
        "offset": {"type": "integer", "description": "How many entries to skip."},
        "fields": {"type": "string", "description": "Comma-separated fields to return."},
        "order": {"type": "string", "description": "A field to sort by; -field descends."},
        "search": {"type": "string", "description": "Words the entries contain."},
        "child_of": {"type": "integer", "description": "The id of the parent entry."},
        "label": {"type": "string", "description": "Only entries with this exact label."},
        "type": {"type": "string", "description": "The entry type, app_label.Model."},
    },
}


class PageList(APIView):
    """List the site's entries, newest first, filtered by label or parent and searched:
    pass limit and offset to page through. Returns each entry's id and label."""

    permission_classes = [permissions.IsAuthenticated]

    def get(self, request):
        return Response([])


class SnippetViewSet(ReadOnlyModelViewSet):
    """The DRF tutorial's way: get_queryset() and no queryset."""

    serializer_class = EntrySerializer
    filter_backends = [LabelFilter]

    def get_queryset(self):
        return Entry.objects.all()


class Highlight(APIView):
    """Return one entry's label, highlighted: pass its pk in the URL."""

    serializer_class = EntrySerializer

    def get(self, request, pk):
        style = request.query_params.get("style", "plain")
        return Response({"pk": pk, "style": style})


class Plain(APIView):
    serializer_class = EntrySerializer

    def get(self, request, pk):
        return Response({"pk": pk})


@pytest.fixture
def api_tools():
    registry = ToolRegistry()
    expose(EntriesAPIViewSet, registry=registry)
    mcp_tool(registry=registry, name="page_list", input_schema=PAGE_LIST_SCHEMA)(PageList)
    mcp_tool(registry=registry)(SnippetViewSet)
    mcp_tool(registry=registry)(Highlight)
    mcp_tool(registry=registry)(Plain)
    listing = EntriesAPIViewSet.as_view({"get": "listing_view"})
    detail = EntriesAPIViewSet.as_view({"get": "detail_view"})
    find = EntriesAPIViewSet.as_view({"get": "find_view"})
    tools = registry.tools(
        urlconf(
            path("api/v2/entries/", listing, name="listing"),
            path("api/v2/entries/<int:pk>/", detail, name="detail"),
            path("api/v2/entries/find/", find, name="find"),
            path("entries/", PageList.as_view(), name="page-list"),
            path(
                "snippets/",
                SnippetViewSet.as_view({"get": "list"}, basename="snippet"),
                name="snippet-list",
            ),
            path("highlight/<int:pk>/", Highlight.as_view(), name="highlight"),
            path("plain/<int:pk>/", Plain.as_view(), name="plain"),
        )
    )
    return {tool.name: tool for tool in tools}


def test_an_empty_listing_tool_smells_of_what_its_view_reads(api_tools):
    tool = api_tools["entry_list"]
    # Named by what its route says it does: a list, not "Entry: listing view".
    assert tool.definition()["description"].startswith("List entrys.")
    found = smells(tool)
    assert "repeats-name" not in found
    assert found["unlisted-query-parameters"].message == (
        "the tool lists a collection through LabelFilter, ChildOfFilter, OffsetPagination, "
        "and its input schema names none of the query parameters they read: child_of, label, "
        "limit, offset"
    )
    assert found["unnamed-query-parameters"].message == (
        "the view reads query parameters its input schema does not name: child_of, fields, "
        "label, limit, offset, order, search"
    )
    assert lint_tool(tool).scores["parameters"] == 0


def test_an_empty_find_tool_smells_of_the_parameter_its_view_reads(api_tools):
    found = smells(api_tools["entry_find"])
    assert found["unnamed-query-parameters"].message.endswith("does not name: id")
    assert "unlisted-query-parameters" not in found  # it lists nothing
    assert "no-usage" in found


def test_a_described_tool_with_real_arguments_outranks_the_empty_ones(api_tools):
    scores = {name: lint_tool(tool).score for name, tool in api_tools.items()}
    listing = scores["entry_list"]
    find = scores["entry_find"]
    assert scores["page_list"] > max(listing, find)
    assert (scores["page_list"], listing, find) == (11, 10, 8)
    assert smells(api_tools["page_list"]).keys() == {"no-examples"}


def test_a_detail_tool_is_not_asked_for_the_listings_parameters(api_tools):
    found = smells(api_tools["entry_retrieve"])
    assert "unnamed-query-parameters" not in found
    assert "unlisted-query-parameters" not in found


def test_a_drf_tutorial_list_names_the_parameters_of_its_backend(api_tools):
    tool = api_tools["snippet_list"]
    assert smells(tool)["unlisted-query-parameters"].message.endswith("read: label")
    named = {**tool.definition()["inputSchema"], "properties": {"label": {"type": "string"}}}
    assert "unlisted-query-parameters" not in smells(
        tool, {**tool.definition(), "inputSchema": named}
    )


def test_a_handler_that_reads_the_query_names_what_it_reads(api_tools):
    found = smells(api_tools["highlight"])
    assert found["unnamed-query-parameters"].message.endswith("does not name: style")
    assert "undescribed-path-parameter" not in found  # its docstring names pk


def test_an_undescribed_url_argument_gets_a_hint_that_applies(api_tools):
    found = smells(api_tools["plain"])
    smell = found["undescribed-path-parameter"]
    assert smell.message == "URL argument 'pk' has no description"
    assert "help_text" not in smell.hint
    assert "docstring" in smell.hint and "input_schema=" in smell.hint
    assert "lookup_field" in smell.hint
    assert "undescribed-parameter" not in found


@pytest.mark.parametrize(
    "description",
    [
        "EntriesAPIViewSet. Returns an entry.",
        "entries_api_view_set: returns an entry.",
        "Entries API view set. Returns an entry.",
        "Entries. Returns an entry.",
        "Entry: detail view. Needs IsAuthenticated.",
    ],
)
def test_a_description_that_repeats_the_class_name_has_no_purpose(api_tools, description):
    tool = api_tools["entry_retrieve"]
    found = smells(tool, {**tool.definition(), "description": description})
    assert found["repeats-name"].component == "purpose"


def test_a_description_that_says_what_the_tool_does_repeats_nothing(api_tools):
    tool = api_tools["entry_retrieve"]
    definition = {**tool.definition(), "description": "Get one entry by id: its label."}
    assert "repeats-name" not in smells(tool, definition)


def test_source_that_cant_be_read_is_skipped():
    made = eval("lambda self, request: request.GET['x']")  # no source file to read
    assert lint_module._source_reads(made) == set()
    assert lint_module._source_reads(len) == set()


def test_an_argument_without_a_type_smells(api_tools):
    tool = api_tools["page_list"]
    definition = tool.definition()
    schema = definition["inputSchema"]
    untyped = {**schema["properties"], "status": {"description": "The status."}}
    found = smells(tool, {**definition, "inputSchema": {**schema, "properties": untyped}})
    assert found["untyped-parameter"].message == "argument 'status' has no type"
    assert "untyped-parameter" not in smells(tool)  # typed by type, enum, anyOf, ...


def test_a_single_object_tool_described_as_a_list_smells(api_tools):
    tool = api_tools["entry_retrieve"]
    listed = {**tool.definition(), "description": "Get a list of entry objects."}
    assert smells(tool, listed)["list-for-one"].component == "purpose"
    assert "list-for-one" not in smells(tool)  # "Get one entry by id."
    assert "list-for-one" not in smells(api_tools["entry_list"])


class RequiredSiteFilter(BaseFilterBackend):
    """A backend that refuses a list without ``site`` and says so in its schema."""

    def filter_queryset(self, request, queryset, view):
        return queryset.filter(label=request.GET["site"])

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": "site",
                "in": "query",
                "required": True,
                "description": "The site's label.",
                "schema": {"type": "string"},
            }
        ]


class SiteEntries(ListAPIView):
    """List the entries of one site: pass its label as site. Returns their ids and labels."""

    queryset = Entry.objects.all()
    serializer_class = EntrySerializer
    filter_backends = [RequiredSiteFilter]


class ConnectedEntry(APIView):
    """Find the entry connected to a peer: pass the peer's name and port. Returns its id."""

    @extend_schema(
        parameters=[
            OpenApiParameter("peer_device", str, required=True, description="The peer's name."),
            OpenApiParameter("peer_interface", str, required=True, description="Its port."),
        ]
    )
    def get(self, request):
        return Response({"id": 1})


HAND_WRITTEN = {
    "type": "object",
    "properties": {"site": {"type": "string", "description": "The site's label."}},
}


class SiteEntriesByHand(SiteEntries):
    pass


class ConnectedByHand(ConnectedEntry):
    pass


def test_required_parameters_the_view_declares_and_the_schema_lacks_are_an_error():
    registry = ToolRegistry()
    for view in (SiteEntries, ConnectedEntry):
        mcp_tool(registry=registry)(view)
    for view in (SiteEntriesByHand, ConnectedByHand):
        mcp_tool(registry=registry, input_schema=HAND_WRITTEN)(view)
    routes = [
        path(f"{view.__name__}/", view.as_view())
        for view in (SiteEntries, ConnectedEntry, SiteEntriesByHand, ConnectedByHand)
    ]
    tools = {tool.name: tool for tool in registry.tools(urlconf(*routes))}
    # Built from the view: its required parameters are required.
    assert "lacks-required-parameters" not in smells(tools["site_entries"])
    assert "lacks-required-parameters" not in smells(tools["connected_entry"])
    lacking = smells(tools["site_entries_by_hand"])["lacks-required-parameters"]
    assert (lacking.component, lacking.level) == ("parameters", "error")
    assert lacking.message == (
        "the view declares required query parameters its input schema does not require: site"
    )
    assert smells(tools["connected_by_hand"])["lacks-required-parameters"].message.endswith(
        ": peer_device, peer_interface"
    )
