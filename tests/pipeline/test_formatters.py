"""The result contract (docs/results.md), one row per case: HttpResponse → CallToolResult."""

import base64
import json
import logging
import types

import pytest
from django.http import (
    FileResponse,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    HttpResponseServerError,
    JsonResponse,
    StreamingHttpResponse,
)
from rest_framework import exceptions, serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory

from mcp_tools import ToolError
from mcp_tools.pipeline.chain import release
from mcp_tools.pipeline.formatters import ResponseFormatter
from mcp_tools.protocol.jsonrpc import RawJSON, encode
from mcp_tools.protocol.projection import project_result
from mcp_tools.tools.tool import ToolOptions

TOOL = types.SimpleNamespace(name="t", options=ToolOptions(), include_structured_content=True)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def drf(data=None, status=200, raise_exc=None):
    """Return a rendered DRF response, made by a real DRF view."""

    @api_view(["GET"])
    @authentication_classes([])
    @permission_classes([])
    def view(request):
        if raise_exc is not None:
            raise raise_exc
        return Response(data, status=status)

    response = view(APIRequestFactory().get("/", HTTP_ACCEPT="*/*"))
    return response.render()


class Name(serializers.Serializer):
    name = serializers.CharField()


def validation_error():
    serializer = Name(data={})
    try:
        serializer.is_valid(raise_exception=True)
    except exceptions.ValidationError as exc:
        return exc


def text(value):
    return {"content": [{"type": "text", "text": value}], "isError": False}


def error(value):
    return {"content": [{"type": "text", "text": value}], "isError": True}


def wire(result):
    return json.loads(encode(project_result(result, "2025-11-25")))


CASES = [
    (
        "drf object",
        lambda: drf({"a": 1, "b": "é"}),
        {**text('{"a":1,"b":"é"}'), "structuredContent": {"a": 1, "b": "é"}},
    ),
    ("drf array", lambda: drf([1, 2]), {**text("[1,2]"), "structuredContent": {"items": [1, 2]}}),
    (
        "drf string",
        lambda: drf('{"looks": "like json"}'),
        {
            **text('{"looks": "like json"}'),
            "structuredContent": {"result": '{"looks": "like json"}'},
        },
    ),
    ("drf number", lambda: drf(3.5), {**text("3.5"), "structuredContent": {"result": 3.5}}),
    ("drf boolean", lambda: drf(True), {**text("true"), "structuredContent": {"result": True}}),
    (
        "json object",
        lambda: JsonResponse({"x": [1]}),
        {**text('{"x": [1]}'), "structuredContent": {"x": [1]}},
    ),
    (
        "json array",
        lambda: JsonResponse([{"x": 1}], safe=False),
        {**text('[{"x": 1}]'), "structuredContent": {"items": [{"x": 1}]}},
    ),
    (
        "json null",
        lambda: HttpResponse(b"null", content_type="application/json"),
        {**text("null"), "structuredContent": {"result": None}},
    ),
    (
        "problem+json",
        lambda: HttpResponse(b'{"title": "x"}', content_type="application/problem+json"),
        {**text('{"title": "x"}'), "structuredContent": {"title": "x"}},
    ),
    (
        "text utf-8 default",
        lambda: HttpResponse("héllo".encode(), content_type="text/plain"),
        text("héllo"),
    ),
    (
        "text latin-1",
        lambda: HttpResponse("héllo".encode("latin-1"), content_type="text/plain; charset=latin-1"),
        text("héllo"),
    ),
    (
        "text invalid bytes",
        lambda: HttpResponse(b"ok\xff", content_type="text/plain; charset=utf-8"),
        text("ok\ufffd"),
    ),
    ("csv", lambda: HttpResponse(b"a,b\n1,2\n", content_type="text/csv"), text("a,b\n1,2\n")),
    ("xml", lambda: HttpResponse(b"<a/>", content_type="application/xml"), text("<a/>")),
    ("svg", lambda: HttpResponse(b"<svg/>", content_type="image/svg+xml"), text("<svg/>")),
    (
        "png",
        lambda: HttpResponse(PNG, content_type="image/png"),
        {
            "content": [
                {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
            ],
            "isError": False,
        },
    ),
    (
        "wav",
        lambda: HttpResponse(b"RIFF", content_type="audio/wav; codecs=1"),
        {
            "content": [{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}],
            "isError": False,
        },
    ),
    ("204", lambda: HttpResponse(status=204), text("Done (204 No Content).")),
    (
        "pdf",
        lambda: HttpResponse(b"%PDF", content_type="application/pdf; x=y"),
        error("Unsupported response content type application/pdf"),
    ),
    (
        "redirect",
        lambda: HttpResponseRedirect("/elsewhere/"),
        error("Redirect to /elsewhere/ was not followed"),
    ),
    (
        "drf validation 400",
        lambda: drf(raise_exc=validation_error()),
        error('{"name":["This field is required."]}'),
    ),
    ("drf 404", lambda: drf(raise_exc=exceptions.NotFound()), error('{"detail":"Not found."}')),
    (
        "tool error",
        lambda: drf(raise_exc=ToolError("Pick a date in the future.")),
        error("Pick a date in the future."),
    ),
    (
        "drf api exception 503",
        lambda: drf(raise_exc=exceptions.APIException("Upstream down")),
        error('{"detail":"Upstream down"}'),
    ),
    (
        "streaming text",
        lambda: StreamingHttpResponse(iter([b"a", b"b"]), content_type="text/plain"),
        text("ab"),
    ),
    ("drf null renders no body", lambda: drf(None), text("Done (200 OK, no content).")),
    (
        "json string scalar, not DRF",
        lambda: JsonResponse('{"a": 1}', safe=False),
        {**text('{"a": 1}'), "structuredContent": {"result": '{"a": 1}'}},
    ),
    (
        "json false",
        lambda: HttpResponse(b"false", content_type="application/json"),
        {**text("false"), "structuredContent": {"result": False}},
    ),
    (
        "vendor +json",
        lambda: HttpResponse(b'{"v": 1}', content_type="application/vnd.api+json; charset=utf-8"),
        {**text('{"v": 1}'), "structuredContent": {"v": 1}},
    ),
    (
        "json that is not JSON",
        lambda: HttpResponse(b"{oops", content_type="application/json"),
        text("{oops"),
    ),
    (
        "text/html utf-8",
        lambda: HttpResponse("<b>é</b>".encode(), content_type="text/html; charset=utf-8"),
        text("<b>é</b>"),
    ),
    (
        "unknown charset",
        lambda: HttpResponse(b"ok", content_type="text/plain; charset=nope"),
        text("ok"),
    ),
    (
        "atom +xml",
        lambda: HttpResponse(b"<feed/>", content_type="application/atom+xml"),
        text("<feed/>"),
    ),
    (
        "javascript",
        lambda: HttpResponse(b"f()", content_type="application/javascript"),
        text("f()"),
    ),
    ("yaml", lambda: HttpResponse(b"a: 1", content_type="application/yaml"), text("a: 1")),
    (
        "ndjson",
        lambda: HttpResponse(b'{"a":1}\n', content_type="application/x-ndjson"),
        text('{"a":1}\n'),
    ),
    (
        "jpeg, parameters dropped",
        lambda: HttpResponse(b"\xff\xd8", content_type="IMAGE/JPEG; q=1"),
        {
            "content": [{"type": "image", "data": "/9g=", "mimeType": "image/jpeg"}],
            "isError": False,
        },
    ),
    (
        "mpeg audio",
        lambda: HttpResponse(b"ID3", content_type="audio/mpeg"),
        {
            "content": [{"type": "audio", "data": "SUQz", "mimeType": "audio/mpeg"}],
            "isError": False,
        },
    ),
    (
        "octet-stream",
        lambda: HttpResponse(b"\x00", content_type="application/octet-stream"),
        error("Unsupported response content type application/octet-stream"),
    ),
    (
        "200 with empty json body",
        lambda: HttpResponse(b"", content_type="application/json"),
        text("Done (200 OK, no content)."),
    ),
    (
        "301",
        lambda: HttpResponse(status=301, headers={"Location": "https://example.com/x"}),
        error("Redirect to https://example.com/x was not followed"),
    ),
    (
        "drf 403 keeps its detail",
        lambda: drf(raise_exc=exceptions.PermissionDenied()),
        error('{"detail":"You do not have permission to perform this action."}'),
    ),
    (
        "plain 400 body",
        lambda: HttpResponse(b"bad input", status=400, content_type="text/plain"),
        error("bad input"),
    ),
]


@pytest.mark.parametrize(("case", "make", "expected"), CASES, ids=[c[0] for c in CASES])
def test_result_contract(case, make, expected):
    response = make()
    assert wire(ResponseFormatter().format_response(response, HttpRequest(), TOOL)) == expected


def test_drf_json_bytes_are_spliced_not_reencoded():
    response = drf({"b": 1, "a": 2})
    result = ResponseFormatter().format_response(response, HttpRequest(), TOOL)
    envelope = encode(project_result(result, "2025-11-25"))
    assert '"structuredContent":{"b":1,"a":2}' in envelope


def test_include_structured_content_false_drops_it():
    tool = types.SimpleNamespace(
        name="t",
        options=ToolOptions(include_structured_content=False),
        include_structured_content=False,
    )
    result = ResponseFormatter().format_response(drf({"a": 1}), HttpRequest(), tool)
    assert wire(result) == text('{"a":1}')


#: An indented body as a pretty-printing renderer writes it (Wagtail's API does).
INDENTED = (
    '{\n  "title": "A  post",\n  "tags": [\n    "x",\n    1.50\n  ],\n'
    '  "note": "\\u00e9 \\"q\\""\n}'
)


def indented():
    return HttpResponse(INDENTED, content_type="application/json")


def test_an_indented_bodys_text_drops_its_indentation_only():
    result = ResponseFormatter().format_response(indented(), HttpRequest(), TOOL)
    # Every token as written (spaces in strings, 1.50, escapes), no whitespace between them.
    assert (
        wire(result)["content"]
        == text('{"title":"A  post","tags":["x",1.50],"note":"\\u00e9 \\"q\\""}')["content"]
    )
    assert wire(result)["structuredContent"] == json.loads(INDENTED)


@pytest.mark.parametrize(
    "make",
    [
        lambda: indented(),  # JSON_TEXT = "body"
        lambda: HttpResponse('{"a": 1, "b": [1, 2]}', content_type="application/json"),
    ],
)
def test_a_one_line_body_or_json_text_body_keeps_the_body(settings, make):
    settings.MCP_TOOLS = {"JSON_TEXT": "body"}
    response = make()
    body = response.content.decode()
    settings.MCP_TOOLS = {"JSON_TEXT": "body" if "\n" in body else "compact"}
    result = ResponseFormatter().format_response(response, HttpRequest(), TOOL)
    assert result.content[0]["text"] == body


def test_without_structured_content_an_indented_body_keeps_its_indentation():
    tool = types.SimpleNamespace(
        name="t",
        options=ToolOptions(include_structured_content=False),
        include_structured_content=False,
    )
    result = ResponseFormatter().format_response(indented(), HttpRequest(), tool)
    assert result.content[0]["text"] == INDENTED  # the text is all the model gets


def test_any_other_5xx_body_is_masked(caplog, settings):
    settings.DEBUG = False
    caplog.set_level(logging.ERROR, "mcp_tools")
    result = wire(
        ResponseFormatter().format_response(
            HttpResponseServerError(b"Traceback: /srv/app/settings.py"), HttpRequest(), TOOL
        )
    )
    assert result["content"] == [{"type": "text", "text": "Internal server error"}]
    reference = result["_meta"]["django-mcp-tools/errorRef"]
    assert reference in caplog.text


@pytest.mark.parametrize(
    ("mask", "expected"), [(True, "Internal server error"), (False, "ValueError: secret /srv/x")]
)
def test_an_exception_is_masked_unless_masking_is_off(settings, caplog, mask, expected):
    settings.MCP_TOOLS = {"MASK_ERRORS": mask}
    caplog.set_level(logging.ERROR, "mcp_tools")
    try:
        raise ValueError("secret /srv/x")
    except ValueError as exc:
        result = wire(ResponseFormatter().format_exception(exc, HttpRequest(), TOOL))
    assert result["content"] == [{"type": "text", "text": expected}]
    assert result["isError"] is True
    reference = result["_meta"]["django-mcp-tools/errorRef"]
    record = next(r for r in caplog.records if reference in r.getMessage())
    assert record.exc_info[0] is ValueError  # the traceback is logged under the reference


def test_masking_defaults_to_not_debug(settings):
    settings.MCP_TOOLS = {}
    for debug, expected in [(False, "Internal server error"), (True, "RuntimeError: x")]:
        settings.DEBUG = debug
        result = wire(ResponseFormatter().format_exception(RuntimeError("x"), HttpRequest(), TOOL))
        assert result["content"][0]["text"] == expected


def test_a_body_past_max_response_bytes_is_refused_without_reading_it_all(settings):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 10}
    produced = []

    def chunks():
        for i in range(1000):
            produced.append(i)
            yield b"0123456"

    response = StreamingHttpResponse(chunks(), content_type="text/plain")
    result = wire(ResponseFormatter().format_response(response, HttpRequest(), TOOL))
    assert result == error("Response too large: more than 10 bytes")
    assert len(produced) == 2


def test_file_responses_are_read_as_streams(tmp_path):
    path = tmp_path / "note.txt"
    path.write_bytes(b"file body")
    response = FileResponse(path.open("rb"), content_type="text/plain")
    try:
        assert wire(ResponseFormatter().format_response(response, HttpRequest(), TOOL)) == text(
            "file body"
        )
    finally:
        release(response)
    assert response.file_to_stream is None or response.file_to_stream.closed


def test_drf_json_is_not_parsed_on_the_hot_path():
    result = ResponseFormatter().format_response(drf({"a": 1}), HttpRequest(), TOOL)
    assert result.structured._value is RawJSON._UNPARSED  # spliced as is, never decoded


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("error", error("Result is not valid JSON: NaN or infinity")),
        ("null", {**text('{"x": NaN}'), "structuredContent": {"x": None}}),
        ("string", {**text('{"x": NaN}'), "structuredContent": {"x": "NaN"}}),
    ],
)
def test_json_nan_applies_to_bodies_with_nan(settings, mode, expected):
    settings.MCP_TOOLS = {"JSON_NAN": mode}
    response = JsonResponse({"x": float("nan")})
    assert wire(ResponseFormatter().format_response(response, HttpRequest(), TOOL)) == expected


def test_binary_as_resource_embeds_the_body_with_the_views_url(settings):
    settings.MCP_TOOLS = {"BINARY_AS_RESOURCE": True}
    request = APIRequestFactory().get("/r/export.pdf?year=2026")
    response = HttpResponse(b"%PDF", content_type="application/pdf; x=1")
    assert wire(ResponseFormatter().format_response(response, request, TOOL)) == {
        "content": [
            {
                "type": "resource",
                "resource": {
                    "uri": "http://testserver/r/export.pdf?year=2026",
                    "mimeType": "application/pdf",
                    "blob": "JVBERg==",
                },
            }
        ],
        "isError": False,
    }


def test_a_tool_error_escaping_a_plain_view_keeps_its_message(settings):
    settings.MCP_TOOLS = {"MASK_ERRORS": True}
    result = ResponseFormatter().format_exception(ToolError("No such date."), HttpRequest(), TOOL)
    assert wire(result) == error("No such date.")


def test_a_tool_error_is_an_ordinary_400_over_plain_http():
    response = drf(raise_exc=ToolError("Pick a date in the future."))
    assert response.status_code == 400
    assert json.loads(response.content) == {"detail": "Pick a date in the future."}


def test_an_exception_is_sent_through_got_request_exception(settings):
    from django.core.signals import got_request_exception

    seen = []

    def receiver(sender, request, **kwargs):
        seen.append(request)

    request = HttpRequest()
    got_request_exception.connect(receiver)
    try:
        ResponseFormatter().format_exception(RuntimeError("x"), request, TOOL)
    finally:
        got_request_exception.disconnect(receiver)
    assert seen == [request]


@pytest.mark.django_db
def test_the_formatter_class_is_swappable(settings, mcp):
    settings.MCP_TOOLS = {"FORMATTER_CLASS": "tests.pipeline.test_formatters.ShoutingFormatter"}
    assert mcp.call_tool("r_text")["content"] == [{"type": "text", "text": "HÉLLO"}]


class ShoutingFormatter(ResponseFormatter):
    def success(self, response, body, request, tool):
        result = super().success(response, body, request, tool)
        for block in result.content:
            block["text"] = block["text"].upper()
        return result


def test_a_large_file_response_is_refused_by_its_declared_length_before_any_read(
    settings, tmp_path
):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 10}
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 100_000)
    handle = path.open("rb")
    response = FileResponse(handle, content_type="text/plain")
    assert response["Content-Length"] == "100000"
    try:
        result = wire(ResponseFormatter().format_response(response, HttpRequest(), TOOL))
        assert result == error("Response too large: more than 10 bytes")
        assert handle.tell() == 0
    finally:
        release(response)


def test_a_large_file_response_of_unknown_length_is_read_only_past_the_limit(settings, tmp_path):
    settings.MCP_TOOLS = {"MAX_RESPONSE_BYTES": 10}
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 100_000)
    handle = path.open("rb")
    response = FileResponse(handle, content_type="text/plain")
    del response["Content-Length"]
    try:
        result = wire(ResponseFormatter().format_response(response, HttpRequest(), TOOL))
        assert result == error("Response too large: more than 10 bytes")
        assert handle.tell() == response.block_size  # one block read, not the whole file
    finally:
        release(response)


# -- A request the view found malformed: the client's mistake, as Django answers it ---------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tool", "masked", "unmasked"),
    [
        (
            "r_bad_request",
            "Bad Request (BadRequest)",
            "Bad Request (BadRequest): the view refused /srv/app/x",
        ),
        (
            "r_suspicious",
            "Bad Request (SuspiciousFileOperation)",
            "Bad Request (SuspiciousFileOperation): The joined path (/srv/media/../etc) is "
            "outside /srv/media",
        ),
    ],
)
def test_a_bad_request_or_suspicious_operation_is_a_clear_client_error(
    mcp, http, settings, caplog, tool, masked, unmasked
):
    # Django's own handler answers 400 for these, never a 500.
    assert http.get(f"/r/{tool.removeprefix('r_')}/").status_code == 400
    result = mcp.call_tool(tool)
    assert result == {"content": [{"type": "text", "text": masked}], "isError": True}
    assert not [r for r in caplog.records if r.name == "mcp_tools" and r.levelno >= logging.ERROR]
    settings.MCP_TOOLS = {"MASK_ERRORS": False}
    assert mcp.call_tool(tool)["content"][0]["text"] == unmasked


@pytest.mark.django_db
def test_too_many_query_fields_for_django_are_a_client_error_logged_as_django_logs_it(
    mcp, settings, caplog
):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    result = mcp.call_tool("report_get", {"a": 1, "b": 2, "c": 3, "d": 4})
    assert result["content"] == [{"type": "text", "text": "Bad Request (TooManyFieldsSent)"}]
    assert "_meta" not in result  # no error reference: nothing failed on the server
    [record] = [r for r in caplog.records if r.name.startswith("django.security")]
    assert record.name == "django.security.TooManyFieldsSent"
    assert not [r for r in caplog.records if r.name == "mcp_tools" and r.levelno >= logging.ERROR]


def test_a_delete_answers_a_confirmation_the_model_can_quote():
    tool = types.SimpleNamespace(
        name="t", method="DELETE", options=ToolOptions(), include_structured_content=True
    )
    result = ResponseFormatter().format_response(HttpResponse(status=204), HttpRequest(), tool)
    assert wire(result) == text("Deleted (204 No Content).")


PAGED = types.SimpleNamespace(
    name="book_list",
    method="GET",
    options=ToolOptions(),
    include_structured_content=True,
    query_params=("genre", "page"),
    input_schema={
        "properties": {"genre": {"type": "string"}, "page": {"type": "integer"}},
    },
)


@pytest.mark.parametrize(
    "links, hint",
    [
        (
            {
                "next": "http://t/api/books/?genre=sci&page=3",
                "previous": "http://t/api/books/?genre=sci",
            },
            'Next page: {"genre": "sci", "page": 3}. Previous page: {"genre": "sci"}.',
        ),
        ({"next": "http://t/api/books/?page=2", "previous": None}, 'Next page: {"page": 2}.'),
        # An argument the tool does not take (a format, a tracking parameter) is left out.
        ({"next": "http://t/?page=2&utm=x", "previous": None}, 'Next page: {"page": 2}.'),
    ],
)
def test_a_page_names_its_neighbours_as_the_tools_own_arguments(links, hint):
    data = {"count": 30, **links, "results": [{"id": 1}]}
    result = ResponseFormatter().format_response(drf(data), HttpRequest(), PAGED)
    assert [block["text"] for block in result.content][1:] == [hint]
    assert result.content[0]["text"] == json.dumps(data, separators=(",", ":"))


@pytest.mark.parametrize(
    "data",
    [
        {"count": 1, "next": None, "previous": None, "results": []},  # one page: nothing to say
        {"next": 3},  # not a DRF page
        {"results": []},
    ],
)
def test_a_result_that_is_no_page_or_has_no_neighbours_gets_no_hint(data):
    result = ResponseFormatter().format_response(drf(data), HttpRequest(), PAGED)
    assert len(result.content) == 1


def test_a_page_hint_keeps_every_value_of_an_array_argument():
    # A filter of several values (django-filter's MultipleChoiceFilter: ?tag=a&tag=b): the
    # hint's arguments are the ones the tool takes, an array, not the last value alone.
    tool = types.SimpleNamespace(
        **{
            **vars(PAGED),
            "query_params": ("tag", "page"),
            "input_schema": {
                "properties": {
                    "tag": {"type": "array", "items": {"type": "string"}},
                    "page": {"type": "integer"},
                }
            },
        }
    )
    data = {"count": 30, "next": "http://t/?page=2&tag=a&tag=b", "previous": None, "results": []}
    result = ResponseFormatter().format_response(drf(data), HttpRequest(), tool)
    assert result.content[1]["text"] == 'Next page: {"page": 2, "tag": ["a", "b"]}.'
