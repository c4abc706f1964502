"""The bench URLconf: the views, the generated tools (``BENCH_TOOLS``) and /mcp."""

import os

from django.conf import settings
from django.urls import include, path
from rest_framework.routers import SimpleRouter

from .app import views
from .app.generated import generated_urlpatterns

router = SimpleRouter()
router.register("api/items", views.ItemViewSet, basename="item")

mcp = [] if settings.BENCH_WITHOUT_MCP_TOOLS else [path("", include("mcp_tools.urls"))]

if settings.BENCH_WITHOUT_MCP_TOOLS and os.environ.get("BENCH_JSONSCHEMA") == "1":
    # The project without mcp_tools, plus what jsonschema costs a worker (imported and used
    # as the endpoint uses it) and the client of the site's own cache (the production
    # profile's Redis: redis-py, about 10 MiB, that a site pays once anything uses its cache),
    # so that the package's own share of the difference is told apart.
    from django.core.cache import cache
    from jsonschema import Draft202012Validator

    Draft202012Validator({"type": "object", "properties": {"a": {"type": "string"}}}).is_valid({})
    cache.get("bench-warm-up")

if settings.BENCH_TOOLS:
    # Only the generated tools, so the catalog holds exactly BENCH_TOOLS tools; /mcp first,
    # or Django's linear URL resolution past N routes would be most of each page's cost.
    urlpatterns = [*mcp, *generated_urlpatterns(settings.BENCH_TOOLS)]
else:
    urlpatterns = [
        path("api/trivial/", views.trivial, name="trivial"),
        path("api/slow/", views.slow, name="slow"),
        path("api/progress/", views.progress, name="progress"),
        *router.urls,
        *mcp,
    ]
if "django.contrib.admin" in settings.INSTALLED_APPS:  # the production profile: startproject's
    from django.contrib import admin

    urlpatterns.append(path("admin/", admin.site.urls))
