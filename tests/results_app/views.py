"""One tool per row of the result contract (docs/results.md), mounted at /r/, names ``r_``."""

from __future__ import annotations

import io
import json

from django.core.exceptions import BadRequest, SuspiciousFileOperation
from django.http import (
    FileResponse,
    HttpResponse,
    HttpResponseRedirect,
    HttpResponseServerError,
    JsonResponse,
    StreamingHttpResponse,
)
from rest_framework import exceptions, generics, serializers
from rest_framework.decorators import api_view, renderer_classes
from rest_framework.pagination import PageNumberPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import ToolError, get_tool_call, is_mcp_request, mcp_output, mcp_tool

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\r\xefF\xb8\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00"
WAV += b"\x02\x00\x10\x00data\x00\x00\x00\x00"


def _get(name: str, make, **options):
    """Return a GET ``@api_view`` tool named ``name`` answering ``make(request)``."""

    def view(request):
        return make(request)

    view.__name__ = name
    view.__doc__ = f"Result contract case {name}."
    return mcp_tool(name, **options)(api_view(["GET"])(view))


# -- 2xx by content type ----------------------------------------------------------------------

BODIES = {
    "r_object": lambda r: Response({"a": 1, "b": "é"}),
    "r_array": lambda r: Response([1, 2]),
    "r_string": lambda r: Response('{"looks": "like json"}'),
    "r_number": lambda r: Response(3.5),
    "r_boolean": lambda r: Response(False),
    "r_null": lambda r: HttpResponse(b"null", content_type="application/json"),
    "r_json_array_plain": lambda r: JsonResponse([{"x": 1}], safe=False),
    "r_problem": lambda r: HttpResponse(
        b'{"title": "Out of stock", "status": 409}', content_type="application/problem+json"
    ),
    "r_vendor_json": lambda r: HttpResponse(
        b'{"data": []}', content_type="application/vnd.api+json"
    ),
    "r_text": lambda r: HttpResponse("héllo".encode(), content_type="text/plain"),
    "r_latin1": lambda r: HttpResponse(
        "héllo".encode("latin-1"), content_type="text/plain; charset=latin-1"
    ),
    "r_invalid_utf8": lambda r: HttpResponse(b"ok\xff", content_type="text/plain; charset=utf-8"),
    "r_html": lambda r: HttpResponse(b"<p>hi</p>", content_type="text/html; charset=utf-8"),
    "r_csv": lambda r: HttpResponse(b"a,b\r\n1,2\r\n", content_type="text/csv"),
    "r_xml": lambda r: HttpResponse(b"<a>1</a>", content_type="application/xml"),
    "r_atom": lambda r: HttpResponse(b"<feed/>", content_type="application/atom+xml"),
    "r_svg": lambda r: HttpResponse(b"<svg/>", content_type="image/svg+xml"),
    "r_yaml": lambda r: HttpResponse(b"a: 1\n", content_type="application/yaml"),
    "r_png": lambda r: HttpResponse(PNG, content_type="image/png"),
    "r_wav": lambda r: HttpResponse(WAV, content_type="audio/wav; codecs=1"),
    "r_empty": lambda r: HttpResponse(status=204),
    "r_pdf": lambda r: HttpResponse(b"%PDF-1.4", content_type="application/pdf; version=1.4"),
    "r_streaming": lambda r: StreamingHttpResponse(iter([b"a", b"b"]), content_type="text/plain"),
    "r_file": lambda r: FileResponse(io.BytesIO(b"file body"), content_type="text/plain"),
    "r_big": lambda r: StreamingHttpResponse(
        (b"0123456789" for _ in range(1000)), content_type="text/plain"
    ),
    "r_nan": lambda r: JsonResponse({"x": float("nan"), "y": 1}),
    # -- other statuses
    "r_redirect": lambda r: HttpResponseRedirect("/elsewhere/"),
    "r_not_found": lambda r: Response({"detail": "Not found."}, status=404),
    "r_plain_5xx": lambda r: HttpResponseServerError(b"Traceback: /srv/app/settings.py"),
}
for _name, _make in BODIES.items():
    globals()[_name] = _get(_name, _make)


class Name(serializers.Serializer):
    name = serializers.CharField()


def _validation(request):
    Name(data={}).is_valid(raise_exception=True)


class Unavailable(exceptions.APIException):
    status_code = 503
    default_detail = "Upstream down"


def _raise(exc):
    def make(request):
        raise exc

    return make


r_validation = _get("r_validation", _validation)
r_tool_error = _get("r_tool_error", _raise(ToolError("Pick a date in the future.")))
r_api_503 = _get("r_api_503", _raise(Unavailable()))
r_crash = _get("r_crash", _raise(ValueError("secret path /srv/app")))


# -- a renderer other than DRF's plain JSONRenderer: structuredContent from the bytes ----------


class EnvelopeRenderer(JSONRenderer):
    """Wrap the data in an envelope, as some APIs do: the bytes differ from response.data."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return super().render({"data": data}, accepted_media_type, renderer_context)


@mcp_tool("r_enveloped")
@api_view(["GET"])
@renderer_classes([EnvelopeRenderer])
def r_enveloped(request):
    """Answer through a custom JSON renderer."""
    return Response({"a": 1})


# -- overrides (docs/results.md) --------------------------------------------------------------

OVERRIDES = {
    "r_override_content": {"content": [{"type": "text", "text": "Short summary."}]},
    "r_override_all": {
        "content": [{"type": "text", "text": "Two items."}],
        "structured_content": {"count": 2},
        "meta": {"source": "tests", "django-mcp-tools/errorRef": "spoofed"},
        "annotations": {"audience": ["user"], "priority": 0.8},
    },
    "r_override_structured": {"structured_content": {"b": [1, 2]}},
    "r_override_array": {"structured_content": [1, 2]},
    "r_override_string": {"structured_content": '{"not": "parsed"}'},
    "r_override_remove": {"structured_content": None},
    "r_override_meta": {"meta": {"trace": "abc"}},
    "r_override_annotations": {"annotations": {"audience": ["assistant"], "priority": 0}},
    "r_override_nan": {"structured_content": {"x": float("inf")}},
}


def _overriding(kwargs, make):
    def view(request):
        mcp_output(request, **kwargs)
        return make(request)

    return view


for _name, _kwargs in OVERRIDES.items():
    globals()[_name] = _get(_name, _overriding(_kwargs, lambda r: Response({"a": 1})))


def _twice(request):
    mcp_output(request, content=[{"type": "text", "text": "first"}], meta={"first": True})
    mcp_output(request, structured_content={"second": True})
    return Response({"a": 1})


r_override_twice = _get("r_override_twice", _twice)
r_override_on_error = _get(
    "r_override_on_error",
    _overriding(
        {
            "content": [{"type": "text", "text": "Try a later date."}],
            "structured_content": {"never": True},
            "meta": {"hint": "date"},
            "annotations": {"priority": 1},
        },
        _raise(ToolError("Pick a date in the future.")),
    ),
)
r_override_masked = _get(
    "r_override_masked",
    _overriding(
        {"content": [{"type": "text", "text": "leak"}], "meta": {"leak": True}},
        _raise(RuntimeError("db password is hunter2")),
    ),
)
r_override_image = _get(
    "r_override_image",
    _overriding({"annotations": {"audience": ["user"]}}, lambda r: HttpResponse(PNG, "image/png")),
)


@mcp_tool("r_override_bad")
@api_view(["GET"])
def r_override_bad(request):
    """Store an invalid override: the view fails with ValueError."""
    mcp_output(request, content=[{"type": request.query_params.get("kind", "bogus")}])
    return Response({"a": 1})


@mcp_tool("r_echo_call")
@api_view(["GET"])
def r_echo_call(request):
    """Echo get_tool_call() and is_mcp_request() (harmless over plain HTTP too)."""
    call = get_tool_call(request)
    return Response(
        {"call": call, "is_mcp": is_mcp_request(request), "again": get_tool_call(request)}
    )


@mcp_tool("r_echo_typed", input_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
@api_view(["GET"])
def r_echo_typed(request):
    """Echo the tool call next to the query the view received (after lenient coercion)."""
    return Response({"call": get_tool_call(request), "query": request.query_params.dict()})


# -- output schemas (docs/results.md) ---------------------------------------------------------

COUNT_SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer", "minimum": 0}},
    "required": ["count"],
}


class Thing(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(max_length=20)
    secret = serializers.CharField(write_only=True)


THINGS = [{"id": 1, "name": "one"}, {"id": 2, "name": "two"}]

r_schema_dict = _get(
    "r_schema_dict",
    lambda r: Response({"count": int(r.query_params.get("count", 3))}),
    output_schema=COUNT_SCHEMA,
    include_output_schema=True,
)
r_schema_serializer = _get(
    "r_schema_serializer",
    lambda r: Response(THINGS[0]),
    output_schema=Thing,
    include_output_schema=True,
)
r_schema_mismatch = _get(
    "r_schema_mismatch",
    lambda r: Response({"count": -1, "extra": "x"}),
    output_schema={**COUNT_SCHEMA, "additionalProperties": False},
    include_output_schema=True,
)
r_schema_text = _get(
    "r_schema_text",
    lambda r: HttpResponse(b"just text", content_type="text/plain"),
    output_schema=COUNT_SCHEMA,
    include_output_schema=True,
)
r_schema_error = _get(
    "r_schema_error",
    _raise(ToolError("No count today.")),
    output_schema=COUNT_SCHEMA,
    include_output_schema=True,
)
r_schema_scalar = _get(
    "r_schema_scalar",
    lambda r: Response(42),
    output_schema={"type": "integer"},
    include_output_schema=True,
)
r_schema_override = _get(
    "r_schema_override",
    _overriding(
        {"content": [{"type": "text", "text": "Three."}], "structured_content": {"count": 3}},
        lambda r: HttpResponse(b"three", content_type="text/plain"),
    ),
    output_schema=COUNT_SCHEMA,
    include_output_schema=True,
)
r_schema_hidden = _get(
    "r_schema_hidden", lambda r: Response({"count": 1}), output_schema=COUNT_SCHEMA
)


@mcp_tool("r_thing", include_output_schema=True)
class ThingView(generics.RetrieveAPIView):
    """Get a thing: the view's own serializer is the output schema."""

    serializer_class = Thing

    def get_object(self):
        return THINGS[0]


@mcp_tool("r_things", include_output_schema=True)
class ThingListView(generics.ListAPIView):
    """List things as an array: the schema is an array, wrapped as items on the wire."""

    serializer_class = Thing

    def get_queryset(self):
        return THINGS


class SmallPages(PageNumberPagination):
    page_size = 1


@mcp_tool("r_things_paged", include_output_schema=True)
class ThingPageView(ThingListView):
    """List things one page at a time: the schema is the page."""

    pagination_class = SmallPages


# -- what Django's handler answers with 400: a request the view found malformed -------------

r_bad_request = _get("r_bad_request", _raise(BadRequest("the view refused /srv/app/x")))
r_suspicious = _get(
    "r_suspicious",
    _raise(SuspiciousFileOperation("The joined path (/srv/media/../etc) is outside /srv/media")),
)


# -- JSON whose bytes are not compact: never spliced into an SSE data line -------------------


@mcp_tool("r_indented")
class IndentedView(APIView):
    """DRF's plain JSONRenderer, asked for an indent (as renderer_context allows)."""

    renderer_classes = [JSONRenderer]

    def get(self, request):
        return Response({"a": [1, {"b": "x\ny"}], "c": "é"})

    def get_renderer_context(self):
        return {**super().get_renderer_context(), "indent": 2}


class IndentedRenderer(JSONRenderer):
    """Another renderer class, indenting."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data, indent=4).encode()


PRETTY = {"a": [1, {"b": "x\ny"}], "c": "é"}
r_pretty_json = _get(
    "r_pretty_json",
    lambda r: HttpResponse(json.dumps(PRETTY, indent=2), content_type="application/json"),
)
r_pretty_crlf = _get(
    "r_pretty_crlf",
    lambda r: HttpResponse(
        json.dumps(PRETTY, indent=1).replace("\n", "\r\n"), content_type="application/json"
    ),
)


@mcp_tool("r_pretty_renderer")
@api_view(["GET"])
@renderer_classes([IndentedRenderer])
def r_pretty_renderer(request):
    """Answer through a custom JSON renderer that indents."""
    return Response(PRETTY)


# -- a JSON body of a chosen size: the answer carries it twice (text and structured) --------

r_sized = _get(
    "r_sized",
    lambda r: Response({"blob": "x" * int(r.query_params.get("size", "10"))}),
    input_schema={"type": "object", "properties": {"size": {"type": "integer", "minimum": 0}}},
)


# -- failures that carry what must never leave a production server (tests/core/test_masking.py) --

#: A file path, SQL, a setting's value and a secret, as an exception message may hold them.
LEAK = (
    'File "/srv/app/private/settings.py", line 12: SELECT password FROM auth_user '
    "WHERE api_key = 'sk-live-51Hd0ntL34k' ({secret})"
)


def _leak(request):
    from django.conf import settings

    raise RuntimeError(LEAK.format(secret=settings.SECRET_KEY))


def _sql(request):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT password FROM hidden_credentials_table WHERE api_key = %s", ["k"])


def _leak_body(status):
    def make(request):
        from django.conf import settings

        return HttpResponse(LEAK.format(secret=settings.SECRET_KEY), status=status)

    return make


def _leak_data(request):
    from django.conf import settings

    return Response({"detail": LEAK.format(secret=settings.SECRET_KEY)}, status=500)


def _leak_streamed(request):
    from mcp_tools import log_message, report_progress

    report_progress(request, 1, 2, "halfway")
    log_message(request, "info", "about to fail")
    _leak(request)


r_leak_exception = _get("r_leak_exception", _leak)
r_leak_sql = _get("r_leak_sql", _sql)
r_leak_5xx = _get("r_leak_5xx", _leak_body(500))
r_leak_503 = _get("r_leak_503", _leak_body(503))
r_leak_data = _get("r_leak_data", _leak_data)
r_leak_streamed = _get("r_leak_streamed", _leak_streamed, stream=True)
