from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .models import Book


@extend_schema_field(OpenApiTypes.INT)
class StarsField(serializers.Field):
    """Stars from 1 to 5: a custom field, whose schema only its annotation tells."""

    def to_representation(self, value):
        return value

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int) or not 1 <= data <= 5:
            raise serializers.ValidationError("Give 1 to 5 stars.")
        return data


class BookSerializer(serializers.ModelSerializer):
    stars = StarsField()
    label = serializers.SerializerMethodField()

    class Meta:
        model = Book
        fields = ["id", "title", "author", "stars", "label"]

    @extend_schema_field(OpenApiTypes.STR)
    def get_label(self, book):
        return f"{book.title} by {book.author}"


class ReviewSerializer(serializers.Serializer):
    book = serializers.PrimaryKeyRelatedField(queryset=Book.objects.all())
    stars = StarsField()
    text = serializers.CharField(max_length=500, required=False)


class ReceiptSerializer(serializers.Serializer):
    book = serializers.IntegerField()
    average = serializers.FloatField()
