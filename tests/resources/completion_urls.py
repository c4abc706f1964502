"""Resource templates whose variables complete from their views' querysets, written as DRF
users write retrieve views (tests/resources/test_completion.py)."""

from __future__ import annotations

from django.urls import path
from rest_framework import generics, permissions, serializers

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


@mcp_resource("shop://order-lines/{pk}", registry=resources)
class OrderLine(generics.RetrieveAPIView):
    """An order by its number."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer


urlpatterns = [
    path("api/products/<str:sku>/", ProductDetail.as_view()),
    path("api/my-orders/<str:item>/", MyOrder.as_view()),
    path("api/orders/<str:item>/", AnyOrder.as_view()),
    path("api/order-lines/<int:pk>/", OrderLine.as_view()),
    path("mcp", MCPView.as_view(registry=ToolRegistry(), resource_registry=resources)),
]
