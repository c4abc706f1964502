from rest_framework import serializers


class TodoSummarySerializer(serializers.Serializer):
    """The numbers behind the signed-in user's todo list."""

    total = serializers.IntegerField(min_value=0)
    done = serializers.IntegerField(min_value=0)
    open = serializers.IntegerField(min_value=0)
    overdue = serializers.IntegerField(min_value=0)
    next_due = serializers.ListField(
        child=serializers.CharField(), help_text="Open titles, soonest first."
    )
