"""The RFC 9728 documents of the endpoints, served at the host root (docs/oauth.md)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import NoReverseMatch, get_script_prefix, reverse
from django.views import View

from ..auth import resource_metadata
from .mounts import endpoint_at

__all__ = ["ProtectedResourceMetadataView"]


class ProtectedResourceMetadataView(View):
    """Serve the RFC 9728 document of an endpoint: the root form, or the path form.

    The root form (``/.well-known/oauth-protected-resource``) describes the endpoint named
    ``mcp_tools:endpoint``, for clients that look only there; the path form describes the
    endpoint mounted at the path after it. Any other path, or no OAuth metadata: 404.
    """

    http_method_names = ["get", "head", "options"]

    def get(self, request: HttpRequest, resource_path: str | None = None) -> HttpResponse:
        if not resource_metadata.is_configured():
            raise Http404("No OAuth metadata is configured")
        if resource_path:
            # The path form names the endpoint's public path: less FORCE_SCRIPT_NAME's prefix.
            path = "/" + resource_path
            prefix = resource_metadata.public_path("")
            if prefix and path.startswith(prefix + "/"):
                path = path[len(prefix) :]
        else:
            try:
                url = reverse("mcp_tools:endpoint")
            except NoReverseMatch as exc:
                raise Http404("No MCP endpoint there") from exc
            script_prefix = get_script_prefix()
            path = "/" + url[len(script_prefix) :] if url.startswith(script_prefix) else url
        endpoint = endpoint_at(path, getattr(request, "urlconf", None))
        if endpoint is None:
            raise Http404("No MCP endpoint there")
        data = endpoint.get_resource_metadata(request, path)
        if data is None:
            raise Http404("No OAuth metadata for this endpoint")
        response = JsonResponse(data)
        # Browser-based clients (the Inspector's web UI) read it from another origin.
        response["Access-Control-Allow-Origin"] = "*"
        return response
