from rest_framework import serializers

from .models import Author, Book


class AuthorSerializer(serializers.ModelSerializer):
    class Meta:
        model = Author
        fields = ["id", "name", "born"]


class BookSerializer(serializers.ModelSerializer):
    class Meta:
        model = Book
        fields = ["id", "title", "author", "genre", "price", "in_print", "lent"]


class QuoteSerializer(serializers.Serializer):
    price = serializers.DecimalField(
        max_digits=6, decimal_places=2, help_text="The price of one copy, in euros."
    )
    copies = serializers.IntegerField(min_value=1, max_value=100, help_text="How many copies.")
