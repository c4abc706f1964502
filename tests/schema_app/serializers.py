"""Serializers with every DRF field type and option the input-schema mapper handles."""

from decimal import Decimal

from django.core.validators import RegexValidator
from rest_framework import serializers

from .models import Gadget, Tag


class DimensionsSerializer(serializers.Serializer):
    width = serializers.IntegerField(min_value=1, max_value=1000)
    height = serializers.IntegerField(min_value=1, max_value=1000, required=False)


class EverySerializer(serializers.Serializer):
    """One field of each type, with the options that change its schema."""

    id = serializers.IntegerField(read_only=True)
    title = serializers.CharField(max_length=20, min_length=3, help_text="A short title.")
    note = serializers.CharField(required=False, allow_blank=True, allow_null=True)
    untrimmed = serializers.CharField(required=False, trim_whitespace=False, max_length=10)
    code = serializers.RegexField(r"^[A-Z]{3}-\d{2}$", required=False)
    sku = serializers.CharField(
        required=False, validators=[RegexValidator(r"^[a-z]+$")], max_length=12
    )
    email = serializers.EmailField(required=False)
    homepage = serializers.URLField(required=False)
    slug = serializers.SlugField(required=False, max_length=20)
    uid = serializers.UUIDField(required=False)
    count = serializers.IntegerField(min_value=0, max_value=100, default=1)
    ratio = serializers.FloatField(min_value=0, max_value=1, required=False)
    price = serializers.DecimalField(max_digits=5, decimal_places=2, required=False)
    fraction = serializers.DecimalField(
        max_digits=3, decimal_places=3, min_value=Decimal("0"), required=False
    )
    whole = serializers.DecimalField(max_digits=4, decimal_places=0, required=False)
    flag = serializers.BooleanField(required=False)
    day = serializers.DateField(required=False)
    moment = serializers.DateTimeField(required=False)
    clock = serializers.TimeField(required=False)
    span = serializers.DurationField(required=False)
    color = serializers.ChoiceField(choices=["red", "green", "blue"], default="red")
    level = serializers.ChoiceField(choices=[(1, "Low"), (2, "High")], required=False)
    sizes = serializers.MultipleChoiceField(choices=["s", "m", "l"], required=False)
    numbers = serializers.ListField(
        child=serializers.IntegerField(min_value=0), required=False, max_length=5
    )
    words = serializers.ListField(
        child=serializers.CharField(max_length=8), required=False, allow_empty=False
    )
    scores = serializers.DictField(child=serializers.FloatField(), required=False)
    labels = serializers.HStoreField(required=False)
    extra = serializers.JSONField(required=False)
    size = DimensionsSerializer(required=False, help_text="Width and height in cm.")
    parts = DimensionsSerializer(many=True, required=False)
    maker = serializers.PrimaryKeyRelatedField(queryset=Tag.objects.all(), required=False)
    tag_slugs = serializers.SlugRelatedField(
        slug_field="slug", queryset=Tag.objects.all(), many=True, required=False
    )
    link = serializers.HyperlinkedRelatedField(
        view_name="s_tag-detail", queryset=Tag.objects.all(), required=False
    )
    secret = serializers.CharField(write_only=True, required=False)
    owner = serializers.HiddenField(default=None)
    shout = serializers.SerializerMethodField()

    def get_shout(self, obj):
        return str(obj.get("title", "")).upper()


class NodeSerializer(serializers.Serializer):
    """A tree: each node's children are nodes."""

    name = serializers.CharField(max_length=20)

    def get_fields(self):
        fields = super().get_fields()
        fields["children"] = NodeSerializer(many=True, required=False)
        return fields


class GadgetSerializer(serializers.ModelSerializer):
    tags = serializers.SlugRelatedField(
        slug_field="slug", queryset=Tag.objects.all(), many=True, required=False
    )

    class Meta:
        model = Gadget
        fields = [
            "id",
            "name",
            "kind",
            "price",
            "weight",
            "stock",
            "active",
            "released",
            "checked",
            "code",
            "maker",
            "tags",
        ]


class RenameSerializer(serializers.Serializer):
    new_name = serializers.CharField(max_length=40)


class TagSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tag
        fields = ["id", "slug"]


class StaffNoteSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=50)
    pinned = serializers.BooleanField(default=False)


class NoteSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=50)
