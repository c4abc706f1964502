"""Views written the DRF way, behind the middleware of ``middleware.py``."""

from rest_framework import generics, serializers
from rest_framework.decorators import api_view
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool

from .models import Invoice


class InternalReportView(APIView):
    """The confidential figures, for staff (the middleware says so, not DRF)."""

    @mcp_tool(name="internal_report")
    def get(self, request):
        return Response({"secret": "revenue up 12%"})


class InvoiceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Invoice
        fields = ["id", "number"]


@mcp_tool(name="invoice_list")
class InvoiceList(generics.ListAPIView):
    """The invoices of the request's tenant."""

    serializer_class = InvoiceSerializer

    def get_queryset(self):
        tenant = getattr(self.request, "tenant", None)
        invoices = Invoice.objects.order_by("number")
        return invoices.filter(tenant=tenant) if tenant is not None else invoices


@mcp_tool(name="closed_area")
@api_view(["GET"])
def closed_area(request):
    return Response({"open": True})


@mcp_tool(name="moved_area")
@api_view(["GET"])
def moved_area(request):
    return Response({"here": True})


@mcp_tool(name="conflicting")
@api_view(["GET"])
def conflicting(request):
    raise LookupError("no such slot")


@mcp_tool(name="view_name")
@api_view(["GET"])
def view_name(request):
    return Response({"seen": getattr(request, "view_name", None)})


@mcp_tool(name="open_report")
@api_view(["GET"])
def open_report(request):
    """A report that LoginRequiredMiddleware lets through (DRF marks its views so)."""
    return Response({"report": "open"})


@mcp_tool(name="login_report")
@api_view(["GET"])
def login_report(request):
    """A report that LoginRequiredMiddleware keeps for signed-in users (urls.py opts it in)."""
    return Response({"report": "for members"})


class IsVerified(BasePermission):
    """django-otp's check: the user signed in with a second factor."""

    message = "A second factor is required."

    def has_permission(self, request, view):
        return bool(getattr(request.user, "is_verified", lambda: False)())


class VerifiedView(APIView):
    """Something only a user verified by django-otp may read."""

    permission_classes = [IsVerified]

    @mcp_tool(name="verified_secret")
    def get(self, request):
        return Response({"secret": "two factors"})


@mcp_tool(name="async_gate")
@api_view(["GET"])
def async_gate(request):
    return Response({"open": True})


@mcp_tool(name="page")
@api_view(["GET"])
def page(request):
    return Response({"from": "the view"})


@mcp_tool(name="broken_hook")
@api_view(["GET"])
def broken_hook(request):
    return Response({"from": "the view"})


@mcp_tool(name="returns_nothing")
@api_view(["GET"])
def returns_nothing(request):
    return None


@mcp_tool(name="overridden")
@api_view(["GET"])
def overridden(request):
    """A GET tool; a method override must not turn its call into another method."""
    return Response({"method": request.method})
