"""The endpoints' RFC 9728 documents, at the host root: include these with no prefix.

``/.well-known/oauth-protected-resource`` describes the endpoint named
``mcp_tools:endpoint``; ``/.well-known/oauth-protected-resource/<path>`` the endpoint
mounted at ``/<path>``. Both answer 404 until OAuth metadata is configured.
"""

from django.urls import path

from ..views import ProtectedResourceMetadataView

app_name = "mcp_tools_well_known"

urlpatterns = [
    path(
        ".well-known/oauth-protected-resource",
        ProtectedResourceMetadataView.as_view(),
        name="resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/<path:resource_path>",
        ProtectedResourceMetadataView.as_view(),
        name="resource-metadata-path",
    ),
]
