from rest_framework import serializers

from .models import Order, Product


class OrderSerializer(serializers.ModelSerializer):
    class Meta:
        model = Order
        fields = ["id", "item", "quantity"]


class ProductSerializer(serializers.ModelSerializer):
    class Meta:
        model = Product
        fields = ["sku", "name"]


class QuoteSerializer(serializers.Serializer):
    item = serializers.CharField(max_length=100)
    quantity = serializers.IntegerField(min_value=1, max_value=1000)
