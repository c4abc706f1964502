"""Views annotated for drf-spectacular, as projects that document their API write them."""

from django.db.models import Avg
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.decorators import action, api_view
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_tool

from .models import Book
from .serializers import BookSerializer, ReceiptSerializer, ReviewSerializer


@mcp_tool()
@extend_schema_view(
    list=extend_schema(
        summary="Browse the catalogue",
        description="List the catalogue's books, oldest first, optionally by one author.",
        parameters=[OpenApiParameter("author", str, description="Only books by this author.")],
    ),
    retrieve=extend_schema(tags=["catalogue"]),
    destroy=extend_schema(exclude=True),
)
class BookViewSet(viewsets.ModelViewSet):
    """The catalogue's books."""

    serializer_class = BookSerializer

    def get_queryset(self):
        books = Book.objects.all()
        author = self.request.query_params.get("author")
        return books.filter(author=author) if author else books

    @extend_schema(request=None, responses={200: BookSerializer})
    @action(detail=True, methods=["post"])
    def feature(self, request, pk=None):
        """Feature a book on the front page."""
        return Response(self.get_serializer(self.get_object()).data)


@mcp_tool(include_output_schema=True)
class BookSearchView(APIView):
    @extend_schema(
        description="Search the catalogue by title.",
        parameters=[
            OpenApiParameter("q", str, required=True, description="Words of the title."),
            OpenApiParameter("limit", OpenApiTypes.INT, default=10),
        ],
        responses=BookSerializer(many=True),
    )
    def get(self, request):
        words = request.query_params["q"]
        limit = int(request.query_params.get("limit", 10))
        books = Book.objects.filter(title__icontains=words)[:limit]
        return Response(BookSerializer(books, many=True).data)


@extend_schema(request=ReviewSerializer, responses={201: ReceiptSerializer, 400: None})
@api_view(["POST"])
@mcp_tool(include_output_schema=True)
def book_review(request):
    """Review a book: its stars count towards its average."""
    review = ReviewSerializer(data=request.data)
    review.is_valid(raise_exception=True)
    book = review.validated_data["book"]
    book.stars = review.validated_data["stars"]
    book.save()
    average = Book.objects.filter(pk=book.pk).aggregate(average=Avg("stars"))["average"]
    return Response({"book": book.pk, "average": average}, status=201)


@mcp_tool()
class ImportView(APIView):
    """Import a book by its ISBN."""

    @extend_schema(
        request={
            "application/json": {
                "type": "object",
                "properties": {"isbn": {"type": "string", "pattern": "^[0-9]{13}$"}},
                "required": ["isbn"],
            }
        }
    )
    def post(self, request):
        return Response({"imported": request.data["isbn"]}, status=201)


@mcp_tool()
@extend_schema(exclude=True)
class InternalView(APIView):
    """Left out of the API schema, and so of the tools."""

    def get(self, request):
        return Response({})
