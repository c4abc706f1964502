"""The conformance suite's fixture resources, as ordinary DRF views a user would write:
a text body, an image body and a JSON body of a URL parameter, each read as a resource."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.decorators import api_view
from rest_framework.response import Response

from mcp_tools import mcp_resource

from .views import PNG


@mcp_resource(uri="test://static-text", mime_type="text/plain")
@api_view(["GET"])
def static_text(request):
    """A static text resource."""
    return HttpResponse(
        "This is the content of the static text resource.", content_type="text/plain"
    )


@mcp_resource(uri="test://static-binary")
@api_view(["GET"])
def static_binary(request):
    """A static binary resource: a PNG image."""
    return HttpResponse(PNG, content_type="image/png")


@mcp_resource("test://template/{id}/data", mime_type="application/json")
@api_view(["GET"])
def template_data(request, id):
    """The data of one ID."""
    return Response({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@mcp_resource(uri="test://watched-resource", mime_type="text/plain")
@api_view(["GET"])
def watched(request):
    """A resource clients subscribe to (``resource_updated("test://watched-resource")``)."""
    return HttpResponse("Watched content.", content_type="text/plain")
