"""Resource templates whose variables complete from their views' querysets, written as DRF
users write retrieve views (tests/resources/test_completion.py)."""

from __future__ import annotations

from django.urls import path
from rest_framework import generics, permissions, serializers
from rest_framework.throttling import UserRateThrottle

from mcp_tools.endpoint.view import MCPView
from mcp_tools.resources.decorators import mcp_resource
from mcp_tools.resources.registry import ResourceRegistry
from mcp_tools.tools.registry import ToolRegistry
from tests.dayone_app.models import Order, Product

resources = ResourceRegistry()


class ProductSerializer(serializers.ModelSerializer):
    class Meta:
        model = Product
        fields = ["sku", "name"]


class OrderSerializer(serializers.ModelSerializer):
    class Meta:
        model = Order
        fields = ["item", "quantity"]


@mcp_resource("shop://products/{sku}", registry=resources)
class ProductDetail(generics.RetrieveAPIView):
    """A product, by its stock-keeping unit."""

    queryset = Product.objects.all()
    serializer_class = ProductSerializer
    lookup_field = "sku"


@mcp_resource("shop://my-orders/{item}", registry=resources)
class MyOrder(generics.RetrieveAPIView):
    """One of the caller's orders, by its item."""

    serializer_class = OrderSerializer
    lookup_field = "item"

    def get_queryset(self):
        return Order.objects.filter(owner=self.request.user)


class IsOwner(permissions.BasePermission):
    def has_object_permission(self, request, view, obj):
        return obj.owner == request.user


@mcp_resource("shop://orders/{item}", registry=resources)
class AnyOrder(generics.RetrieveAPIView):
    """An order by its item, which its owner alone may read."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer
    lookup_field = "item"
    permission_classes = [permissions.IsAuthenticated, IsOwner]


class OwnerInTheURL(permissions.BasePermission):
    """The URL's owner must be the caller: read from the view's URL arguments."""

    def has_permission(self, request, view):
        return str(view.kwargs["owner"]) == str(request.user.pk)


@mcp_resource("shop://owners/{owner}/orders/{item}", registry=resources)
class OwnersOrder(generics.RetrieveAPIView):
    """An order of the owner the URL names, which that owner alone may read."""

    serializer_class = OrderSerializer
    lookup_field = "item"
    permission_classes = [permissions.IsAuthenticated, OwnerInTheURL]

    def get_queryset(self):
        return Order.objects.filter(owner_id=self.kwargs["owner"])


@mcp_resource("shop://checked-orders/{item}", registry=resources)
class CheckedOrder(generics.RetrieveAPIView):
    """An order whose get_object() decides who reads it."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer
    lookup_field = "item"

    def get_object(self):
        order = super().get_object()
        if order.owner != self.request.user:
            raise permissions.exceptions.PermissionDenied()
        return order


@mcp_resource("shop://kept-orders/{item}", registry=resources)
class KeptOrder(generics.RetrieveAPIView):
    """An order whose retrieve() answers its owner alone."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer
    lookup_field = "item"

    def retrieve(self, request, *args, **kwargs):
        if self.get_object().owner != request.user:
            raise permissions.exceptions.NotFound()
        return super().retrieve(request, *args, **kwargs)


@mcp_resource("shop://order-lines/{pk}", registry=resources)
class OrderLine(generics.RetrieveAPIView):
    """An order by its number."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer


class OncePerMinute(UserRateThrottle):
    rate = "1/minute"
    scope = "mcp-completion-batch-tests"


urlpatterns = [
    path("api/products/<str:sku>/", ProductDetail.as_view()),
    path("api/my-orders/<str:item>/", MyOrder.as_view()),
    path("api/orders/<str:item>/", AnyOrder.as_view()),
    path("api/owners/<int:owner>/orders/<str:item>/", OwnersOrder.as_view()),
    path("api/checked-orders/<str:item>/", CheckedOrder.as_view()),
    path("api/kept-orders/<str:item>/", KeptOrder.as_view()),
    path("api/order-lines/<int:pk>/", OrderLine.as_view()),
    path("mcp", MCPView.as_view(registry=ToolRegistry(), resource_registry=resources)),
    path(
        "mcp-throttled",
        MCPView.as_view(
            registry=ToolRegistry(), resource_registry=resources, throttle_classes=[OncePerMinute]
        ),
    ),
]
