from django.urls import path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register("orders", views.OrderViewSet, basename="order")
router.register("products", views.ProductViewSet, basename="product")

urlpatterns = [
    path("quote/", views.QuoteView.as_view(), name="quote"),
    path("order-count/", views.order_count, name="order-count"),
    *router.urls,
]
