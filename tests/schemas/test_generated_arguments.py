"""Arguments generated from each schema-app tool's own inputSchema are accepted by DRF too.

hypothesis-jsonschema draws arguments from the advertised schema. Each must pass the tool's
argument validation, reach the tool's own route through its URL converters, and be accepted
by the view's serializer, filter set, ordering filter and paginator. The only refusals
allowed are those no JSON Schema can know: rows that do not exist in the database.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any
from urllib.parse import urlencode

import pytest

# Hypothesis keeps a cache folder; keep it out of the work tree (examples are not stored).
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "mcp-tools-hypothesis")
)
from django.forms import ModelChoiceField
from django.test import RequestFactory
from django.urls import resolve
from django_filters.rest_framework import DjangoFilterBackend
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from rest_framework import filters, pagination
from rest_framework.fields import HiddenField
from rest_framework.request import Request

from mcp_tools.pipeline import arguments
from mcp_tools.pipeline.arguments import declared_types
from mcp_tools.schemas.input_schema import PARTIAL_ACTIONS
from mcp_tools.schemas.introspection import serializer_of
from mcp_tools.tools.registry import registry
from tests.helpers import unrolled

#: Refusals no schema can state: they depend on database rows (or on which URLs exist), or,
#: for "overflow", on TIME_ZONE (0001-01-01T00:00Z is out of range once made local).
DATABASE_CODES = {"does_not_exist", "no_match", "incorrect_match", "unique", "overflow"}

pytestmark = pytest.mark.django_db


def schema_app_tools() -> list[Any]:
    return sorted(
        (tool for tool in registry.tools("tests.urls") if tool.name.startswith("s_")),
        key=lambda tool: tool.name,
    )


def error_codes(detail: Any) -> set[str]:
    if isinstance(detail, dict):
        return {code for value in detail.values() for code in error_codes(value)}
    if isinstance(detail, list):
        return {code for value in detail for code in error_codes(value)}
    return {detail.code}


def form_error_codes(filterset: Any) -> set[str]:
    codes = set()
    for name, errors in filterset.form.errors.as_data().items():
        model_choice = isinstance(filterset.form.fields[name], ModelChoiceField)
        for error in errors:
            # A model choice that names no row: the database's answer, not the value's shape.
            codes.add(
                "does_not_exist" if model_choice and error.code == "invalid_choice" else error.code
            )
    return codes


def assert_drf_accepts(tool: Any, args: dict[str, Any]) -> None:
    split = arguments.split(tool, args)
    path, match = tool.route.resolve(split.path)  # the converters, the route's own regex
    # What the view receives is what Django's resolve() makes of the same path.
    resolved = resolve(path)
    assert resolved.func is tool.callback
    assert (match.args, match.kwargs, match.captured_kwargs, match.extra_kwargs) == (
        resolved.args,
        resolved.kwargs,
        resolved.captured_kwargs,
        resolved.extra_kwargs,
    )
    assert (match.url_name, match.app_names, match.namespaces, match.route) == (
        resolved.url_name,
        resolved.app_names,
        resolved.namespaces,
        resolved.route,
    )
    view = tool.operation.view
    if split.body is not None and tool.options.input_schema is None:
        serializer = serializer_of(view)
        partial = tool.method == "PATCH" or tool.action in PARTIAL_ACTIONS
        bound = type(serializer)(data=split.body, partial=partial, context=serializer.context)
        if not bound.is_valid():
            assert error_codes(bound.errors) <= DATABASE_CODES, (args, bound.errors)
    if tool.operation.is_list:
        query = [(k, v) for k, value in split.query.items() for v in arguments.query_value(value)]
        request = Request(RequestFactory().get(path, QUERY_STRING=urlencode(query)))
        view.request = request
        queryset = view.get_queryset()
        for backend_class in view.filter_backends:
            backend = backend_class()
            if isinstance(backend, DjangoFilterBackend):
                filterset = backend.get_filterset(request, queryset, view)
                if not filterset.is_valid():
                    assert form_error_codes(filterset) <= DATABASE_CODES, (args, filterset.errors)
            elif isinstance(backend, filters.OrderingFilter) and "ordering" in split.query:
                terms = split.query["ordering"].split(",")
                assert backend.remove_invalid_fields(queryset, terms, view, request) == terms
        paginator = view.paginator
        if isinstance(paginator, pagination.PageNumberPagination) and "page_size" in split.query:
            assert paginator.get_page_size(request) == split.query["page_size"]
        if isinstance(paginator, pagination.LimitOffsetPagination) and "limit" in split.query:
            assert paginator.get_limit(request) == split.query["limit"]


def _float_artifact(tool: Any, args: dict[str, Any]) -> bool:
    return any("multiple of" in error.message for error in tool.validator.iter_errors(args))


def stringified(tool: Any, args: dict[str, Any]) -> dict[str, Any]:
    """Send every declared non-string argument as its JSON text, as some clients do."""
    declared = tool.input_schema["properties"]
    return {
        k: json.dumps(v) if k in declared and "string" not in declared_types(declared[k]) else v
        for k, v in args.items()
    }


def test_the_schema_app_has_tools_of_every_kind():
    names = {tool.name for tool in schema_app_tools()}
    assert names == {
        "s_archive",
        "s_code",
        "s_events",
        "s_every",
        "s_gadget_create",
        "s_gadget_destroy",
        "s_gadget_list",
        "s_gadget_partial_update",
        "s_gadget_rename",
        "s_gadget_retrieve",
        "s_mirror",
        "s_node",
        "s_note",
        "s_tag_list",
    }


@pytest.mark.parametrize("tool", schema_app_tools(), ids=lambda tool: tool.name)
def test_generated_arguments_are_accepted_by_the_schema_and_by_drf(tool):
    strategy = from_schema(unrolled(tool.input_schema, tool.input_schema.get("$defs", {})))
    # hypothesis-jsonschema draws multipleOf 0.01 as binary floats, and 41 * 0.01 is
    # 0.41000000000000003: not a multiple, refused by the schema and by DRF alike. Discard those.
    strategy = strategy.filter(lambda args: not _float_artifact(tool, args))

    @settings(
        max_examples=int(os.environ.get("MCP_TOOLS_EXAMPLES", "25")),
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(args=strategy, stringify=st.booleans())
    def check(args, stringify):
        assert tool.validator.is_valid(args), list(tool.validator.iter_errors(args))
        if stringify:
            # Lenient input: the JSON text of each argument is converted back before validation.
            assert arguments.problems(tool, stringified(tool, args)) == []
            assert arguments.coerce(tool, stringified(tool, args)) == arguments.coerce(tool, args)
        assert_drf_accepts(tool, args)

    check()


#: Arbitrary JSON, with the strings DRF fields most often read. Floats are not integral and
#: stay below 1e15: JSON Schema counts 5.0 and 1e16 as integers, while DRF reads their text
#: ("5.0" has a decimal place, "1e+16" is no integer), a difference no schema can state.
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(-1e15, 1e15, allow_nan=False).filter(lambda f: not f.is_integer())
    | st.text(max_size=30)
    | st.sampled_from(
        ["", " ", "1", "1.5", "true", "2024-01-01", "10:30", "P1D", "red", "a@b.co", "s", "0.5"]
        + ["https://x.io", "12345678-1234-5678-1234-567812345678", "2024-01-01T10:00:00Z"]
    ),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["width", "height", "name", "a"]), children, max_size=3)
    ),
    max_leaves=8,
)


def every_field():
    from tests.schema_app.serializers import EverySerializer

    # Related fields refuse on rows (database state), not on shape; Django's email and URL
    # validators (IDN domains, address literals) are only approximated by a pattern.
    related = {"maker", "tag_slugs", "link", "email", "homepage"}
    fields = EverySerializer().fields.items()
    return [
        (name, f)
        for name, f in fields
        if not f.read_only and name not in related and not isinstance(f, HiddenField)
    ]


@pytest.mark.parametrize(("name", "field"), every_field(), ids=[n for n, _ in every_field()])
def test_values_drf_refuses_are_refused_by_the_schema(name, field):
    from rest_framework.exceptions import ValidationError

    from mcp_tools.schemas import fields as schemas
    from mcp_tools.schemas.validators import argument_validator

    context = schemas.SchemaContext(files_unsupported=True)
    validator = argument_validator(schemas.field_schema(field, context))

    @settings(
        max_examples=int(os.environ.get("MCP_TOOLS_EXAMPLES", "25")) * 2,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(value=JSON_VALUES)
    def check(value):
        try:
            field.run_validation(value)
        except ValidationError:
            assert not validator.is_valid(value), value

    check()
