"""Tools (prefixed ``s_``) whose input schemas cover every field type, filter and paginator."""

import django_filters
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import filters, generics, pagination, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool

from .models import Event, Gadget, Tag
from .serializers import (
    EverySerializer,
    GadgetSerializer,
    NodeSerializer,
    NoteSerializer,
    RenameSerializer,
    StaffNoteSerializer,
    TagSerializer,
)


class ValidatingView(APIView):
    """Validate the body with the view's serializer and echo what it accepted."""

    serializer_class = EverySerializer

    def get_serializer_class(self):
        return self.serializer_class

    def post(self, request, **kwargs):
        serializer = self.get_serializer_class()(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        return Response({"accepted": sorted(serializer.validated_data)})


@mcp_tool("s_every", tags=["forms"])
class EveryView(ValidatingView):
    """Accept one argument of every DRF field type."""


@mcp_tool("s_node", tags=["forms"])
class NodeView(ValidatingView):
    """Accept a tree of named nodes."""

    serializer_class = NodeSerializer


@mcp_tool("s_note")
class NoteView(ValidatingView):
    """Write a note; staff members may pin it."""

    def get_serializer_class(self):
        # Reads the request: introspected with a synthetic anonymous request.
        return StaffNoteSerializer if self.request.user.is_staff else NoteSerializer


class GadgetPagination(pagination.PageNumberPagination):
    page_size = 5
    page_size_query_param = "page_size"
    max_page_size = 500  # above MAX_PAGE_SIZE: the tool's argument is capped at 100


class GadgetFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains", help_text="Part of the name.")
    kind = django_filters.ChoiceFilter(choices=Gadget.KINDS)
    kinds = django_filters.MultipleChoiceFilter(field_name="kind", choices=Gadget.KINDS)
    min_price = django_filters.NumberFilter(field_name="price", lookup_expr="gte")
    stock = django_filters.RangeFilter()
    active = django_filters.BooleanFilter()
    released = django_filters.DateFromToRangeFilter()
    checked_after = django_filters.IsoDateTimeFilter(field_name="checked", lookup_expr="gte")
    maker = django_filters.ModelChoiceFilter(queryset=Tag.objects.all())
    ids = django_filters.BaseInFilter(field_name="id")

    class Meta:
        model = Gadget
        fields = ["code"]


class GadgetViewSet(viewsets.ModelViewSet):
    """Gadgets, filtered, searched, ordered and paged."""

    queryset = Gadget.objects.all()
    serializer_class = GadgetSerializer
    filter_backends = [DjangoFilterBackend, filters.SearchFilter, filters.OrderingFilter]
    filterset_class = GadgetFilter
    search_fields = ["name"]
    ordering_fields = ["name", "price"]
    pagination_class = GadgetPagination

    @action(detail=True, methods=["post"], serializer_class=RenameSerializer)
    def rename(self, request, pk=None):
        """Rename one gadget."""
        gadget = self.get_object()
        serializer = RenameSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        gadget.name = serializer.validated_data["new_name"]
        gadget.save()
        return Response(GadgetSerializer(gadget).data)


mcp_tool(actions=["list", "retrieve", "create", "partial_update", "destroy", "rename"])(
    GadgetViewSet
)


@mcp_tool(actions=["list"])
class TagViewSet(viewsets.ReadOnlyModelViewSet):
    """Tags, paged by limit and offset."""

    queryset = Tag.objects.all()
    serializer_class = TagSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_fields = ["slug"]
    pagination_class = pagination.LimitOffsetPagination


class EventPagination(pagination.CursorPagination):
    page_size = 10
    ordering = "-created"


@mcp_tool("s_events")
class EventList(generics.ListAPIView):
    """Events, newest first, paged with a cursor."""

    queryset = Event.objects.all()
    serializer_class = NoteSerializer
    pagination_class = EventPagination


@mcp_tool("s_archive")
class ArchiveView(APIView):
    """Look up an archive entry by year and slug."""

    def get(self, request, year, slug):
        return Response({"year": year, "slug": slug})


@mcp_tool("s_code")
class CodeView(APIView):
    """Look up a three-letter code from a regex route."""

    def get(self, request, code):
        return Response({"code": code})


@mcp_tool("s_mirror", path="s/mirror/")
class MirrorView(APIView):
    """Mounted twice; path= picks the first mount."""

    def get(self, request):
        return Response({"path": request.path})
