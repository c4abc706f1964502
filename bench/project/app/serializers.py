from rest_framework import serializers

from .models import Item


class ItemSerializer(serializers.ModelSerializer):
    """Four writable fields, and the two the server sets."""

    class Meta:
        model = Item
        fields = ["id", "name", "quantity", "active", "note", "created"]
        read_only_fields = ["id", "created"]
