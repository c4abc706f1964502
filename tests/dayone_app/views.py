"""Views written the way a DRF user writes them on day one, each marked with ``@mcp_tool``.

Nothing here is shaped for mcp_tools: no ``queryset`` where ``get_queryset()`` does the
job, a plain ``APIView`` naming its ``serializer_class``, standard actions without
docstrings of their own, and ``@api_view`` placed above ``@mcp_tool``.
"""

from rest_framework import viewsets
from rest_framework.decorators import api_view
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool

from .models import Order, Product
from .serializers import OrderSerializer, ProductSerializer, QuoteSerializer


@mcp_tool()
class OrderViewSet(viewsets.ModelViewSet):
    """Orders placed by the signed-in user."""

    serializer_class = OrderSerializer

    def get_queryset(self):
        return Order.objects.filter(owner=self.request.user)

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)


@mcp_tool()
class ProductViewSet(viewsets.ReadOnlyModelViewSet):
    """The shop's products."""

    queryset = Product.objects.all()
    serializer_class = ProductSerializer
    lookup_field = "sku"


@mcp_tool()
class QuoteView(APIView):
    """Quote the price of an order before placing it."""

    serializer_class = QuoteSerializer

    def post(self, request):
        serializer = self.serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        quantity = serializer.validated_data["quantity"]
        return Response({"item": serializer.validated_data["item"], "price": 3 * quantity})


@api_view(["GET"])
@mcp_tool()
def order_count(request):
    """Count the signed-in user's orders."""
    return Response({"count": Order.objects.filter(owner=request.user).count()})
