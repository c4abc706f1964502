"""Views in NetBox's shapes: a default permission class that needs a queryset, custom API
root views at two routes, a lazily translated docstring, an action whose body repeats the
URL's ``id``, a locator whose list declares its two required query parameters."""

import django_filters
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy as _
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.permissions import DjangoObjectPermissions, IsAuthenticated
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from .models import STATUS_CHOICES, Device, Site
from .serializers import DeviceSerializer, JobSerializer, SiteSerializer


class TokenPermissions(DjangoObjectPermissions):
    """NetBox's default permission class: a DjangoObjectPermissions, which needs a view's
    queryset (the MCP endpoint has none)."""

    perms_map = {**DjangoObjectPermissions.perms_map, "GET": ["%(app_label)s.view_%(model_name)s"]}


class APIRootView(APIView):
    """This is the root of the API."""

    __doc__ = _("This is the root of the API.")

    def get_view_name(self):
        return "API Root"

    def get(self, request, format=None):
        return Response({"sites": reverse("site-list", request=request, format=format)})


class PluginsRootView(APIView):
    """Plugins' APIs."""

    def get(self, request, format=None):
        return Response({})


class SiteFilterSet(django_filters.FilterSet):
    """As NetBox's: a choice filter over grouped choices with lazy group labels."""

    status = django_filters.MultipleChoiceFilter(choices=STATUS_CHOICES)
    kind = django_filters.ChoiceFilter(choices=STATUS_CHOICES, field_name="status")

    class Meta:
        model = Site
        fields = ["name", "slug"]


class SiteViewSet(viewsets.ModelViewSet):
    """The sites of the network."""

    queryset = Site.objects.all()
    serializer_class = SiteSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = SiteFilterSet


class DeviceViewSet(viewsets.ModelViewSet):
    queryset = Device.objects.all()
    serializer_class = DeviceSerializer
    lookup_url_kwarg = "id"

    @action(detail=True, methods=["post"], serializer_class=JobSerializer)
    def sync(self, request, id=None):
        return Response({"queued": self.get_object().pk})


class ConnectedDeviceViewSet(viewsets.ViewSet):
    """Find the device on the far end of a peer device's interface."""

    permission_classes = [IsAuthenticated]
    _device_param = OpenApiParameter(
        "peer_device", OpenApiTypes.STR, required=True, description="The peer device's name."
    )
    _interface_param = OpenApiParameter(
        "peer_interface", OpenApiTypes.STR, required=True, description="Its interface's name."
    )

    def get_view_name(self):
        return "Connected Device Locator"

    @extend_schema(parameters=[_device_param, _interface_param], responses={200: DeviceSerializer})
    def list(self, request):
        device = get_object_or_404(Device, name=request.query_params.get("peer_device"))
        return Response(DeviceSerializer(device, context={"request": request}).data)
