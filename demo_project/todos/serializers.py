from rest_framework import serializers

from .models import Todo


class TodoSerializer(serializers.ModelSerializer):
    class Meta:
        model = Todo
        fields = ["id", "title", "done", "due", "created"]
        read_only_fields = ["id", "created"]


class ExportSerializer(serializers.Serializer):
    seconds = serializers.FloatField(
        min_value=0,
        max_value=30,
        default=3,
        help_text="How long the export takes, in seconds: it is slow on purpose.",
    )
