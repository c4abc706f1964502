"""A tool's body is sent as the JSON media type its view's parsers accept.

``application/json`` where a parser takes it; else the first ``+json`` type the view
declares, as a JSON:API view's ``application/vnd.api+json`` (before, such a view answered
415 to every call).
"""

import pytest
from django.urls import path
from rest_framework import serializers
from rest_framework.parsers import FormParser, JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.test import MCPClient
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

registry = ToolRegistry()


class VendorJSONParser(JSONParser):
    media_type = "application/vnd.example+json"


class NoteSerializer(serializers.Serializer):
    text = serializers.CharField()


class Echo(APIView):
    """Say what the body was sent as, and what it held."""

    serializer_class = NoteSerializer

    def post(self, request):
        return Response({"content_type": request.content_type, "data": request.data})


@mcp_tool("vendor_echo", registry=registry)
class VendorEcho(Echo):
    parser_classes = [FormParser, VendorJSONParser]


@mcp_tool("plain_echo", registry=registry)
class PlainEcho(Echo):
    parser_classes = [VendorJSONParser, JSONParser]


@mcp_tool("form_echo", registry=registry)
class FormEcho(Echo):
    parser_classes = [FormParser]


urlpatterns = [
    path("vendor/", VendorEcho.as_view()),
    path("plain/", PlainEcho.as_view()),
    path("form/", FormEcho.as_view()),
    path("mt/mcp", MCPView.as_view(registry=registry)),
]


@pytest.fixture
def client(alice):
    return MCPClient(headers={"Authorization": f"Token {alice.token}"}, mcp_path="/mt/mcp")


def test_a_view_that_parses_only_a_json_type_of_its_own_gets_its_body_in_it(client):
    result = client.call_tool("vendor_echo", {"text": "hi"})
    assert result["structuredContent"] == {
        "content_type": "application/vnd.example+json",
        "data": {"text": "hi"},
    }


def test_plain_json_wins_where_the_view_takes_it(client):
    result = client.call_tool("plain_echo", {"text": "hi"})
    assert result["structuredContent"]["content_type"] == "application/json"


def test_a_view_that_parses_no_json_gets_json_and_says_so(client):
    result = client.call_tool("form_echo", {"text": "hi"})
    assert result["isError"] is True
    assert "Unsupported media type" in result["content"][0]["text"]
