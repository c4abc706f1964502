from django.urls import path, re_path, register_converter
from rest_framework.routers import DefaultRouter

from mcp_tools.views import MCPView

from . import converters, views

register_converter(converters.YearConverter, "yyyy")

router = DefaultRouter()  # with .json format-suffix twins, which are never tools
router.register("gadgets", views.GadgetViewSet, basename="s_gadget")
router.register("tags", views.TagViewSet, basename="s_tag")

urlpatterns = [
    path("every/", views.EveryView.as_view(), name="s_every"),
    path("nodes/", views.NodeView.as_view(), name="s_node"),
    path("notes/", views.NoteView.as_view(), name="s_note"),
    path("events/", views.EventList.as_view(), name="s_events"),
    path("archive/<yyyy:year>/<slug:slug>/", views.ArchiveView.as_view(), name="s_archive"),
    re_path(r"^codes/(?P<code>[A-Z]{3})/$", views.CodeView.as_view(), name="s_code"),
    path("mirror/", views.MirrorView.as_view(), name="s_mirror"),
    path("mirror-again/", views.MirrorView.as_view(), name="s_mirror_again"),
    # A second endpoint serving only the tools tagged "forms".
    path("mcp-forms", MCPView.as_view(tags=["forms"]), name="s_mcp_forms"),
    *router.urls,
]
