"""Arguments at call time (docs/tools.md): lenient conversion, then validation, one line each.

Strings that encode the declared JSON type are converted before validation; what still
breaks the tool's inputSchema is a tool error, through the endpoint too.
"""

import json

import pytest

from mcp_tools.core.routes import NoPath
from mcp_tools.pipeline.arguments import coerce_value, problems
from mcp_tools.tools.registry import registry
from tests.helpers import result_of

DECIMAL = {"type": ["number", "string"], "pattern": r"^\d+$"}


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        ("3", {"type": "integer"}, 3),
        ("3.5", {"type": "integer"}, "3.5"),  # not an integer: left for validation to report
        ("3.5", {"type": "number"}, 3.5),
        ("true", {"type": "boolean"}, True),
        ("yes", {"type": "boolean"}, "yes"),
        ("[1, 2]", {"type": "array", "items": {"type": "integer"}}, [1, 2]),
        (["1", "2"], {"type": "array", "items": {"type": "integer"}}, [1, 2]),
        ('{"a": "1"}', {"type": "object", "properties": {"a": {"type": "integer"}}}, {"a": 1}),
        ("null", {"type": ["integer", "null"]}, None),
        ("12", {"type": "string"}, "12"),
        ("12", DECIMAL, "12"),  # a string is already a declared type
        ("2", {"enum": [1, 2]}, 2),
        ("2", {"enum": ["1", "2"]}, "2"),
        ("[1]", {}, "[1]"),  # nothing declared: nothing converted
        (5, {"type": "string"}, "5"),  # a number where a string is wanted: its JSON text
        (1.5, {"type": "string"}, "1.5"),
        (5, {"enum": ["4", "5"]}, "5"),
        (5, {"type": ["string", "integer"]}, 5),  # a number is already a declared type
        (5, DECIMAL, 5),
        (True, {"type": "string"}, True),  # booleans are never turned into strings
        (5, {}, 5),
    ],
)
def test_strings_that_encode_the_declared_type_are_converted(value, schema, expected):
    assert coerce_value(value, schema) == expected


DEEP = "[" * 200_000 + "]" * 200_000


@pytest.mark.parametrize(
    ("value", "schema"),
    [
        (DEEP, {"type": "array"}),
        (DEEP, {"type": "integer"}),
        ("[" * 65 + "]" * 65, {"type": "array"}),  # one past MAX_JSON_DEPTH
        ('{"a": ' * 65 + "1" + "}" * 65, {"type": "object"}),
        ("NaN", {"type": "number"}),
        ("-Infinity", {"type": "number"}),
        ('{"a": 1, "a": 2}', {"type": "object"}),
        ('["\\ud800"]', {"type": "array"}),  # a lone surrogate, once decoded
        ("1" * 5000, {"type": "integer"}),  # past Python's integer string limit
    ],
)
def test_a_string_the_lenient_conversion_would_read_past_the_bodys_rules_stays_a_string(
    value, schema
):
    assert coerce_value(value, schema) == value


def test_json_in_a_string_is_read_up_to_max_json_depth(settings):
    settings.MCP_TOOLS = {"MAX_JSON_DEPTH": 3}
    assert coerce_value("[[[1]]]", {"type": "array"}) == [[[1]]]
    assert coerce_value("[[[[1]]]]", {"type": "array"}) == "[[[[1]]]]"


@pytest.mark.django_db
def test_a_deep_json_string_argument_is_an_invalid_argument_never_a_500(mcp):
    params = {"name": "todo_retrieve", "arguments": {"pk": DEEP}}
    response = mcp.send(mcp.message("tools/call", params))
    assert response.status_code == 200
    result = result_of(response)
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Invalid arguments: $.pk: ")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("arguments", "lines"),
    [
        ({"title": "Hello"}, []),
        ({"title": "Hello", "count": "7", "flag": "false"}, []),
        (
            {"title": "  x  ", "count": 101},
            [
                "Invalid arguments: $.count: 101 is greater than the maximum of 100",
                'Invalid arguments: $.title: "  x  " is too short once surrounding spaces are '
                "trimmed",
            ],
        ),
        (
            {"title": "Hel\u0000lo"},
            ['Invalid arguments: $.title: "Hel\\u0000lo" contains a NUL character'],
        ),
        ({}, ['Invalid arguments: $: "title" is a required property']),
        (
            {"title": "Hello", "nope": 1},
            ['Invalid arguments: $: Additional properties are not allowed ("nope" was unexpected)'],
        ),
        (
            {"title": "Hello", "price": 0.291},
            [
                "Invalid arguments: $.price: 0.291 is not a decimal number with at most 3 digits "
                "before the point and 2 after"
            ],
        ),
        (
            {"title": "Hello", "day": "2024-02-30"},
            ["Invalid arguments: $.day: \"2024-02-30\" is not a 'date'"],
        ),
        (
            {"title": "Hello", "size": {"width": "0"}},
            ["Invalid arguments: $.size.width: 0 is less than the minimum of 1"],
        ),
    ],
)
def test_problems_name_the_argument(arguments, lines):
    assert problems(registry.get_tool("s_every", "tests.urls"), arguments) == lines


# Through the endpoint ------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        ({"title": True}, "Invalid arguments: $.title: true is not of type 'string'"),
        ({}, 'Invalid arguments: $: "title" is a required property'),
        (
            {"title": "ok", "colour": "red"},
            'Invalid arguments: $: Additional properties are not allowed ("colour" was unexpected)',
        ),
        (
            {"title": "x" * 201, "done": "yes"},
            "Invalid arguments: $.done: \"yes\" is not of type 'boolean'\n"
            f'Invalid arguments: $.title: "{"x" * 201}" is too long',
        ),
    ],
)
def test_wrong_arguments_are_a_tool_error_with_one_line_per_problem(mcp, arguments, text):
    params = {"name": "todo_create", "arguments": arguments}
    result = result_of(mcp.send(mcp.message("tools/call", params)))
    assert result == {"content": [{"type": "text", "text": text}], "isError": True}


@pytest.mark.django_db
def test_a_path_argument_that_leaves_its_pattern_never_reaches_another_view(mcp):
    params = {"name": "file_get", "arguments": {"name": "../../api/todos"}}
    result = result_of(mcp.send(mcp.message("tools/call", params)))
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Invalid arguments: $.name:")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("arguments", "line"),
    [
        ({"pk": 5.0}, "Invalid arguments: $.pk: 5.0 is not a value this tool's URL can take"),
        ({"pk": 7.5}, "Invalid arguments: $.pk: 7.5 is not of type 'integer'"),
    ],
)
def test_a_path_argument_the_route_refuses_is_named_without_routing_internals(mcp, arguments, line):
    result = mcp.call_tool("todo_retrieve", arguments)
    assert result == {"content": [{"type": "text", "text": line}], "isError": True}


@pytest.mark.django_db
def test_a_path_argument_the_route_refuses_is_written_as_json():
    # As every refusal writes values: as the client sent them, not as Python's repr.
    route = registry.get_tool("file_get").route
    with pytest.raises(NoPath, match=r'^"a/b" is not a value'):
        route.resolve({"name": "a/b"})


# -- Bounds on the number and size of arguments ------------------------------------------------


@pytest.mark.django_db
def test_too_many_arguments_are_refused_before_anything_reads_them(mcp, caplog):
    arguments = {str(index): 0 for index in range(70_000)}  # 0.7 MB, under MAX_REQUEST_BYTES
    result = mcp.call_tool("report_get", arguments)
    assert result == {
        "content": [
            {
                "type": "text",
                "text": "Invalid arguments: $: 70000 arguments; at most 1000 are accepted",
            }
        ],
        "isError": True,
    }
    assert [record for record in caplog.records if record.levelname == "ERROR"] == []


@pytest.mark.django_db
def test_max_arguments_is_a_setting_and_counts_the_query_fields_a_list_makes(mcp, settings):
    settings.MCP_TOOLS = {"MAX_ARGUMENTS": 5}
    assert mcp.call_tool("report_get", {f"a{i}": i for i in range(5)})["isError"] is False
    refused = mcp.call_tool("report_get", {"ids": [1, 2, 3, 4, 5, 6]})
    assert refused["content"][0]["text"] == (
        "Invalid arguments: $: the arguments make 6 query-string fields; at most 5 are accepted"
    )


@pytest.mark.django_db
def test_a_url_argument_is_bounded_as_an_http_server_bounds_a_request_line(mcp, settings):
    ok = mcp.call_tool("report_get", {"q": "x" * 4096})
    assert ok["isError"] is False
    assert ok["structuredContent"]["query"] == {"q": ["x" * 4096]}
    refused = mcp.call_tool("report_get", {"q": "x" * 4097})
    assert refused["content"][0]["text"] == (
        "Invalid arguments: $.q: 4097 characters; a URL argument takes at most 4096"
    )
    path = mcp.call_tool("file_get", {"name": "é" * 5000})
    assert path["content"][0]["text"].startswith("Invalid arguments: $.name: 5000 characters")
    settings.MCP_TOOLS = {"MAX_URL_ARGUMENT_LENGTH": 10}
    assert mcp.call_tool("report_get", {"q": "x" * 11})["isError"] is True


@pytest.mark.django_db
def test_an_undeclared_argument_cannot_choose_the_views_renderer(mcp, http):
    # Over HTTP, ?format=api makes DRF render its browsable API (URL_FORMAT_OVERRIDE).
    assert http.get("/t/report/", {"format": "api"})["Content-Type"].startswith("text/html")
    result = mcp.call_tool("report_get", {"format": "api"})
    assert result["content"][0]["text"] == (
        "Invalid arguments: $.format: DRF reads it to choose the view's renderer; "
        "it is not an argument of this tool"
    )


@pytest.mark.django_db
def test_other_undeclared_arguments_of_a_get_tool_reach_its_query_string(mcp):
    # docs/tools.md: views read request.query_params themselves, as over plain HTTP.
    result = mcp.call_tool("report_get", {"status": "open", "tags": ["a", "b"]})
    assert result["structuredContent"]["query"] == {"status": ["open"], "tags": ["a", "b"]}


# -- What a refusal echoes is bounded --------------------------------------------------------


@pytest.mark.django_db
def test_a_huge_argument_is_echoed_in_a_few_hundred_characters(mcp, settings):
    settings.MCP_TOOLS = {"MAX_REQUEST_BYTES": 7_000_000}  # each é is sent as \u00e9
    response = mcp.send(
        mcp.message("tools/call", {"name": "todo_create", "arguments": {"title": "é" * 1_000_000}})
    )
    assert len(response.content) < 2000
    [line] = result_of(response)["content"][0]["text"].splitlines()
    assert line.startswith('Invalid arguments: $.title: "éééé')
    assert line.endswith('éééé" is too long')


@pytest.mark.django_db
def test_many_problems_are_reported_in_a_bounded_number_of_lines(mcp):
    arguments = {"title": "abc", "sizes": ["x"] * 200_000}
    response = mcp.send(mcp.message("tools/call", {"name": "s_every", "arguments": arguments}))
    lines = result_of(response)["content"][0]["text"].splitlines()
    assert lines[0] == 'Invalid arguments: $.sizes[0]: "x" is not one of ["s", "m", "l"]'
    assert len(lines) == 51
    assert lines[-1] == "Invalid arguments: $: more problems than these 50 (not shown)"
    assert len(response.content) < 10_000


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "start"),
    [
        ({"name": "x" * 100_000}, "Unknown tool: xxxx"),
        ({"name": "é" * 100_000}, "Unknown tool: éééé"),
    ],
)
def test_an_unknown_name_is_echoed_clipped(mcp, params, start):
    response = mcp.send(mcp.message("tools/call", params))
    assert len(response.content) < 1000
    assert json.loads(response.content)["error"]["message"].startswith(start)


@pytest.mark.django_db
def test_an_unknown_method_is_echoed_clipped(mcp):
    response = mcp.send(mcp.message("x" * 100_000))
    assert len(response.content) < 1000
    assert json.loads(response.content)["error"]["message"].startswith("Method not found: xxx")
