"""The library's API in the shapes DRF's guides show: two ModelViewSets (one with a FilterSet
and an action), an ``APIView`` and an ``@api_view`` function, each with ``@mcp_tool()``."""

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action, api_view
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool

from .models import Author, Book
from .serializers import AuthorSerializer, BookSerializer, QuoteSerializer


class BookFilter(django_filters.FilterSet):
    class Meta:
        model = Book
        fields = ["author", "genre", "in_print"]


@mcp_tool()
class AuthorViewSet(viewsets.ModelViewSet):
    """The authors whose books the library holds."""

    queryset = Author.objects.all()
    serializer_class = AuthorSerializer


@mcp_tool()
class BookViewSet(viewsets.ModelViewSet):
    """The library's books, with their author, genre and price."""

    queryset = Book.objects.all()
    serializer_class = BookSerializer
    filter_backends = [django_filters.rest_framework.DjangoFilterBackend]
    filterset_class = BookFilter

    @extend_schema(request=None)  # it reads no body, though the ViewSet's serializer has fields
    @action(detail=True, methods=["post"])
    def lend(self, request, pk=None):
        """Lend a book to a reader: returns the book, marked as lent."""
        book = self.get_object()
        book.lent = True
        book.save()
        return Response(self.get_serializer(book).data)


@mcp_tool()
class StatsView(APIView):
    """Count the books and the authors: returns both counts."""

    def get(self, request):
        return Response({"books": Book.objects.count(), "authors": Author.objects.count()})


@mcp_tool()
@extend_schema(request=QuoteSerializer)
@api_view(["POST"])
def quote(request):
    """Price an order of several copies of one book: returns the total in euros."""
    serializer = QuoteSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    return Response({"total": str(data["price"] * data["copies"])})
