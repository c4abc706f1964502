from django.urls import path
from rest_framework.routers import SimpleRouter

from mcp_tools.views import MCPView

from . import views

router = SimpleRouter()
router.register("books", views.BookViewSet, basename="book")

urlpatterns = [
    path("books/search/", views.BookSearchView.as_view(), name="book-search"),
    path("reviews/", views.book_review, name="book-review"),
    path("imports/", views.ImportView.as_view(), name="book-import"),
    path("internal/", views.InternalView.as_view(), name="book-internal"),
    # An endpoint serving only the tools tagged "catalogue" (by @extend_schema(tags=...)).
    path("mcp-catalogue", MCPView.as_view(tags=["catalogue"]), name="catalogue-mcp"),
    *router.urls,
]
