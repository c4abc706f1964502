"""A shop's endpoint of its own, for Try it's widgets and its explanations.

``/shop/mcp`` serves the tools of ``shop`` (``MCPView.as_view(registry=shop)``): an order
form with a customer (a foreign key), an amount (a decimal), a currency (choices with
labels), a required and an optional yes/no and a long note; and a refund that only the
billing team may make. ``/mcp`` serves the default registry's, Django admin is at ``/admin/``.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import include, path
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView

shop = ToolRegistry()


class OrderSerializer(serializers.Serializer):
    customer = serializers.PrimaryKeyRelatedField(
        queryset=get_user_model().objects.all(), help_text="The customer: a user's id."
    )
    amount = serializers.DecimalField(max_digits=8, decimal_places=2)
    currency = serializers.ChoiceField(choices=[("EUR", "Euro"), ("USD", "US dollar")])
    express = serializers.BooleanField(help_text="Ship it by express.")
    gift = serializers.BooleanField(required=False, help_text="Wrap it as a gift.")
    note = serializers.CharField(required=False, help_text="Anything the packer should know.")


@mcp_tool("shop_order", registry=shop, title="Place an order")
class OrderView(APIView):
    """Place an order for a customer."""

    serializer_class = OrderSerializer

    def get_serializer_class(self):
        return self.serializer_class

    def post(self, request):
        serializer = OrderSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        order = dict(serializer.validated_data)
        order["customer"] = order["customer"].pk
        order["amount"] = str(order["amount"])
        return Response(order, status=201)


class IsBillingTeam(permissions.BasePermission):
    """Only members of the billing team (the ``billing`` group) may refund."""

    message = "Only the billing team may refund."

    def has_permission(self, request, view):
        return request.user.groups.filter(name="billing").exists()


@mcp_tool("shop_refund", registry=shop, title="Refund an order")
class RefundView(APIView):
    """Refund an order."""

    permission_classes = [permissions.IsAuthenticated, IsBillingTeam]

    def post(self, request):
        return Response({"refunded": True})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("shop/orders/", OrderView.as_view()),
    path("shop/refunds/", RefundView.as_view()),
    path("shop/mcp", MCPView.as_view(registry=shop), name="shop-mcp"),
    path("", include("tests.urls")),
]
