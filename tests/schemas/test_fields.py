"""The field → JSON Schema mapper, held to real DRF validation, and valid in both drafts."""

from __future__ import annotations

import types
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import path, re_path
from rest_framework import fields, serializers
from rest_framework.exceptions import ValidationError

from mcp_tools.schemas import fields as schemas
from mcp_tools.schemas.validators import argument_validator
from mcp_tools.tools.registry import registry
from tests.schema_app.models import Tag
from tests.schema_app.serializers import NodeSerializer

NUL = "\u0000"

# (field, values DRF accepts, values DRF refuses). Each row is checked against DRF first, so
# a wrong row fails loudly instead of testing nothing.
CASES = [
    (
        lambda: fields.CharField(max_length=5, min_length=2),
        ["ab", "abcde", " ab ", "a b"],
        ["", "a", "   ", " a  ", "abcdef", f"ab{NUL}", None, ["ab"]],
    ),
    (lambda: fields.CharField(allow_blank=True), ["", "  ", "x"], [NUL, None]),
    (lambda: fields.CharField(allow_null=True, required=False), [None, "x"], ["", " "]),
    (lambda: fields.CharField(trim_whitespace=False), [" ", "x"], ["", NUL]),
    (lambda: fields.RegexField(r"^[A-Z]{2}\d$"), ["AB1"], ["ab1", "AB12", ""]),
    (
        lambda: fields.EmailField(),
        ["a@example.com", "a" * 300 + "@example.com"],
        ["", None, "a" * 310 + "@example.com"],
    ),
    (
        lambda: fields.URLField(),
        ["https://example.com/x", "https://example.com/" + "x" * 2000],
        ["", None, "https://example.com/" + "x" * 2048],
    ),
    (lambda: fields.SlugField(), ["a-b_c1"], ["a b", "", "ü"]),
    (lambda: fields.SlugField(allow_unicode=True), ["a-ü"], ["a b", ""]),
    (
        lambda: fields.UUIDField(),
        ["12345678-1234-5678-1234-567812345678", "12345678123456781234567812345678"],
        ["1234", "", "12345678-1234-5678-1234-56781234567g"],
    ),
    (
        lambda: fields.IntegerField(min_value=1, max_value=10),
        [1, 10, 5.0],
        [0, 11, 2.5, True, None],
    ),
    (lambda: fields.FloatField(min_value=-1.5, max_value=1.5), [-1.5, 0, 1.25], [-2, 1.6, "x"]),
    (
        lambda: fields.DecimalField(max_digits=5, decimal_places=2),
        [
            "123.45",
            "0.5",
            ".5",
            "-999.99",
            "5.",
            "007.5",
            123.45,
            0.29,
            999,
            -0.01,
        ],
        [
            "1234",
            "1.234",
            "12.345",
            "",
            ".",
            "-",
            1000,
            0.001,
            1234.5,
            "abc",
            None,
            # DRF refuses a decimal string past 1,000 characters, leading zeros or not.
            "0" * 1000 + "1",
        ],
    ),
    (
        lambda: fields.DecimalField(max_digits=2, decimal_places=2, min_value=Decimal(0)),
        ["0.5", "0.50", ".99", 0.5],
        ["0", "1.0", "-0.5", "0.501", -0.5, 1],
    ),
    (
        lambda: fields.DecimalField(max_digits=3, decimal_places=0),
        ["999", "-5", 7],
        ["1.5", "1000", 1.5],
    ),
    (lambda: fields.BooleanField(), [True, False], [None, [], {}]),
    (lambda: fields.DateField(), ["2024-02-29"], ["2024-02-30x", None, 5]),
    (lambda: fields.DateTimeField(), ["2024-02-29T10:00:00Z"], [None, 5]),
    (lambda: fields.TimeField(), ["10:30:00"], [None, 5]),
    (lambda: fields.DurationField(), ["P1DT2H3M4S", "PT0.5S", "-P1D"], ["P1Y", "P1M", None]),
    (lambda: fields.ChoiceField(choices=["a", "b"]), ["a", "b"], ["c", "", None]),
    (lambda: fields.ChoiceField(choices=["a"], allow_blank=True), ["", "a"], ["b"]),
    (lambda: fields.ChoiceField(choices=[(1, "One"), (2, "Two")]), [1, 2], [3, None]),
    (lambda: fields.ChoiceField(choices=["a"], allow_null=True), [None, "a"], ["b"]),
    (
        lambda: fields.MultipleChoiceField(choices=["a", "b"], allow_empty=False),
        [["a"], ["a", "b"]],
        [[], ["c"], "a"],
    ),
    (
        lambda: fields.ListField(
            child=fields.IntegerField(min_value=0), min_length=1, max_length=2
        ),
        [[0], [1, 2]],
        [[], [1, 2, 3], [-1], "1", None],
    ),
    (lambda: fields.ListField(child=fields.CharField(), allow_empty=False), [["x"]], [[], [""]]),
    (lambda: fields.DictField(child=fields.IntegerField()), [{}, {"a": 1}], [{"a": "x"}, [], None]),
    (lambda: fields.DictField(allow_empty=False), [{"a": 1}], [{}]),
    (lambda: fields.HStoreField(), [{"a": "x", "b": None}], [{"a": [1]}, {"a": {}}]),
    (lambda: fields.JSONField(), [{"a": [1]}, [1], "x", 1.5, True], [None]),
    (lambda: fields.JSONField(allow_null=True), [None, {}], []),
    (
        lambda: serializers.ListSerializer(child=fields.IntegerField(), allow_empty=False),
        [[1]],
        [[], ["x"], {}],
    ),
]


def drf_accepts(field: fields.Field, value: object) -> bool:
    try:
        field.run_validation(value)
    except ValidationError:
        return False
    return True


def schema_of(field: fields.Field) -> dict:
    return schemas.field_schema(field, schemas.SchemaContext(files_unsupported=True))


@pytest.mark.parametrize(("make", "accepted", "refused"), CASES)
def test_the_schema_accepts_what_drf_accepts_and_refuses_what_drf_refuses(make, accepted, refused):
    field = make()
    validator = argument_validator(schema_of(field))
    for value in accepted:
        assert drf_accepts(field, value), f"bad case: DRF refuses {value!r}"
        assert validator.is_valid(value), (value, list(validator.iter_errors(value)))
    for value in refused:
        assert not drf_accepts(field, value), f"bad case: DRF accepts {value!r}"
        assert not validator.is_valid(value), value


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (
            # An auto-increment key: from 1, without the database's signed 64-bit bounds.
            serializers.PrimaryKeyRelatedField(queryset=Tag.objects.all()),
            {"type": "integer", "minimum": 1},
        ),
        (
            serializers.PrimaryKeyRelatedField(queryset=Tag.objects.all(), many=True),
            {"type": "array", "items": {"type": "integer", "minimum": 1}},
        ),
        (
            serializers.SlugRelatedField(slug_field="slug", queryset=Tag.objects.all()),
            {"type": "string", "minLength": 1, "pattern": schemas.NO_NUL},
        ),
        (
            serializers.HyperlinkedRelatedField(
                view_name="s_tag-detail", queryset=Tag.objects.all()
            ),
            {"type": "string", "format": "uri"},
        ),
        (
            serializers.CharField(help_text="Shown to the model.", default="x"),
            {
                "type": "string",
                "minLength": 1,
                "pattern": schemas._trimmed_length_pattern(1),
                "description": "Shown to the model.",
                "default": "x",
            },
        ),
        (serializers.ListField(default=list), {"type": "array", "items": {}}),
        (serializers.IPAddressField(protocol="IPv4"), {"type": "string", "format": "ipv4"}),
    ],
)
def test_related_fields_descriptions_and_defaults(field, expected):
    assert schema_of(field) == expected


@pytest.mark.django_db
def test_related_fields_accept_existing_rows_only():
    tag = Tag.objects.create(slug="red")
    field = serializers.PrimaryKeyRelatedField(queryset=Tag.objects.all())
    validator = argument_validator(schema_of(field))
    assert drf_accepts(field, tag.pk) and validator.is_valid(tag.pk)
    assert not drf_accepts(field, "red") and not validator.is_valid("red")


def test_read_only_hidden_and_file_fields_are_left_out_and_partial_requires_nothing():
    class Upload(serializers.Serializer):
        id = serializers.IntegerField(read_only=True)
        owner = serializers.HiddenField(default=None)
        secret = serializers.CharField(write_only=True)
        document = serializers.FileField()
        picture = serializers.ImageField(required=False)

    context = schemas.SchemaContext(files_unsupported=True)
    assert schemas.serializer_schema(Upload(), context=context) == {
        "type": "object",
        "properties": {
            "secret": {
                "type": "string",
                "minLength": 1,
                "pattern": schemas._trimmed_length_pattern(1),
            }
        },
        "required": ["secret"],
        "additionalProperties": False,
    }
    assert context.unsupported == ["document", "picture"]
    partial = schemas.serializer_schema(Upload(), partial=True)
    assert "required" not in partial


def test_a_recursive_serializer_becomes_a_ref_to_its_defs():
    schema = schemas.serializer_schema(NodeSerializer())
    children = {"type": "array", "items": {"allOf": [{"$ref": "#/$defs/NodeSerializer"}]}}
    assert schema["properties"]["children"] == children
    assert schema["$defs"]["NodeSerializer"]["properties"]["children"] == children
    validator = argument_validator(schema)
    tree = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    assert validator.is_valid(tree)
    assert not validator.is_valid({"name": "a", "children": [{"children": []}]})
    assert NodeSerializer(data=tree).is_valid()


def test_nested_and_many_serializers_and_nullable_nested():
    class Point(serializers.Serializer):
        x = serializers.IntegerField()

    class Shape(serializers.Serializer):
        origin = Point(allow_null=True)
        points = Point(many=True, allow_empty=False)

    schema = schemas.serializer_schema(Shape())
    point = {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"],
        "additionalProperties": False,
    }
    assert schema["properties"] == {
        "origin": {**point, "type": ["object", "null"]},
        "points": {"type": "array", "items": point, "minItems": 1},
    }


@pytest.mark.parametrize(
    ("route", "param", "schema", "good", "bad"),
    [
        (path("i/<int:v>/", lambda r: None), "v", {"type": "integer", "minimum": 0}, 3, -1),
        (
            path("s/<str:v>/", lambda r: None),
            "v",
            {"type": "string", "pattern": "^[^/]+$"},
            "a.b",
            "a/b",
        ),
        (path("p/<path:v>", lambda r: None), "v", {"type": "string", "pattern": "^.+$"}, "a/b", ""),
        (
            path("u/<uuid:v>/", lambda r: None),
            "v",
            {
                "type": "string",
                "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
            },
            "12345678-1234-5678-1234-567812345678",
            "12345678123456781234567812345678",
        ),
        (
            re_path(r"^r/(?P<v>[a-z]{2})/$", lambda r: None),
            "v",
            {"type": "string", "pattern": "^(?:[a-z]{2})$"},
            "ab",
            "abc",
        ),
    ],
)
def test_path_parameters_are_typed_by_their_converters(route, param, schema, good, bad):
    from django.urls import get_resolver

    from mcp_tools.core.routes import iter_routes

    module = types.ModuleType("converter_urls")
    module.urlpatterns = [route]
    (found,) = iter_routes(get_resolver(module))
    made = schemas.converter_schema(found.converters.get(param), found.group_patterns.get(param))
    assert made == schema
    validator = argument_validator(made)
    assert validator.is_valid(good) and not validator.is_valid(bad)
    assert found.resolve({param: good})[0]


HOSTILE_LENGTH = 200_000
HOSTILE_STRINGS = [
    "a" * HOSTILE_LENGTH + "\u0000",
    " " * HOSTILE_LENGTH + "\u0000",
    "a " * (HOSTILE_LENGTH // 2) + "\u0000",
    "a" * HOSTILE_LENGTH + " ",
    "a@" + "b" * HOSTILE_LENGTH + " ",
    "a@" + "b." * (HOSTILE_LENGTH // 2) + "@",
    "http://" + "a" * HOSTILE_LENGTH + " ",
    # Runs of digits, zeros and spaces, and repeated separators, each spoiled at the end.
    *(run * (HOSTILE_LENGTH // len(run)) + end for run in ("0", "1", "9", " ") for end in "x. "),
    *(run * (HOSTILE_LENGTH // len(run)) + "x" for run in ("0.", "1.", "-", ".", "-0", "::")),
    *(run * (HOSTILE_LENGTH // len(run)) + "x" for run in ("1:", "12:", "1-", "T1", "P1", "1D")),
    *(run * (HOSTILE_LENGTH // len(run)) + "x" for run in ("a-", "0-", "a.", "a@", "/", "//")),
    "-" + "0" * HOSTILE_LENGTH + ".",
    "." + "0" * HOSTILE_LENGTH + "x",
    "P" + "1" * HOSTILE_LENGTH + "Dx",
    "PT" + "1" * HOSTILE_LENGTH + ".1Sx",
]

#: A field for every branch of the mapper that writes a pattern (tests/schema_app has more).
PATTERN_FIELDS = [
    fields.CharField(),
    fields.CharField(min_length=3),
    fields.CharField(trim_whitespace=False),
    fields.CharField(allow_blank=True),
    fields.RegexField(r"^[a-z]+\d*$"),
    fields.SlugField(),
    fields.SlugField(allow_unicode=True),
    fields.EmailField(),
    fields.URLField(),
    fields.UUIDField(),
    fields.DateTimeField(),
    fields.TimeField(),
    fields.DurationField(),
    fields.DurationField(min_value=timedelta(0)),
    *(
        fields.DecimalField(max_digits=digits, decimal_places=places, min_value=low)
        for digits, places in ((None, None), (5, 2), (3, 0), (2, 2), (20, 10), (1000, 3))
        for low in (None, Decimal(0))
    ),
]


def generated_patterns():
    """Return every pattern the tools' input schemas, the fields above and the URL
    converters carry."""
    patterns = set()

    def collect(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                patterns.add(node["pattern"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    for tool in registry.tools():
        collect(tool.input_schema)
    for field in PATTERN_FIELDS:
        collect(schema_of(field))
    module = types.ModuleType("converter_urls")
    module.urlpatterns = [
        path(f"{name}/<{name}:value>/", lambda request, value: None)
        for name in ("int", "str", "slug", "uuid", "path")
    ]
    from django.urls import get_resolver

    from mcp_tools.core.routes import iter_routes

    for found in iter_routes(get_resolver(module)):
        collect(schemas.converter_schema(found.converters["value"]))
    return patterns


def test_every_generated_pattern_runs_in_linear_time():
    """A quadratic pattern takes minutes on these strings; a linear one, milliseconds.

    The bound is generous (a shared, noisy machine): it catches backtracking blow-ups, it
    does not measure speed.
    """
    import re
    import time

    patterns = generated_patterns()
    assert len(patterns) > 20
    slow = []
    for pattern in sorted(patterns):
        compiled = re.compile(pattern)
        started = time.perf_counter()
        for text in HOSTILE_STRINGS:
            compiled.search(text)
        if time.perf_counter() - started > 2.0:
            slow.append(pattern)
    assert slow == []


def test_every_decimal_string_is_bounded_as_drf_bounds_it():
    for field in PATTERN_FIELDS:
        if isinstance(field, fields.DecimalField):
            assert schema_of(field)["maxLength"] == fields.DecimalField.MAX_STRING_LENGTH


@pytest.mark.parametrize(("digits", "places"), [(None, None), (5, 2), (3, 0), (2, 2), (4, 4)])
def test_decimal_patterns_accept_exactly_what_drf_accepts(digits, places):
    """Every string of digits, zeros, a point and a sign up to six characters long."""
    import itertools
    import re

    field = fields.DecimalField(max_digits=digits, decimal_places=places)
    pattern = re.compile(schemas.decimal_pattern(field))
    for length in range(1, 7):
        for chars in itertools.product("019.-", repeat=length):
            text = "".join(chars)
            assert bool(pattern.search(text)) is drf_accepts(field, text), text


def test_openapi_nullable_becomes_a_type_list_at_every_depth():
    from mcp_tools.schemas.fields import openapi_to_json_schema

    assert openapi_to_json_schema(
        {
            "type": "object",
            "nullable": True,
            "example": {},
            "properties": {"n": {"type": "integer", "nullable": True, "example": 3}},
        }
    ) == {"type": ["object", "null"], "properties": {"n": {"type": ["integer", "null"]}}}
