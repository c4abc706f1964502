from rest_framework import serializers

from .models import STATUS_CHOICES, Device, Site


class SiteSerializer(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=STATUS_CHOICES, required=False)
    # A reverse relation, writable, as NetBox's nested assignments are.
    devices = serializers.PrimaryKeyRelatedField(
        many=True, queryset=Device.objects.all(), required=False
    )

    class Meta:
        model = Site
        fields = ["id", "name", "slug", "status", "devices"]


class WritableNestedSerializer(serializers.ModelSerializer):
    """NetBox's related object in a body: shown as a brief object, written as its id."""

    def to_internal_value(self, data):
        try:
            return self.Meta.model.objects.get(pk=int(data))
        except (TypeError, ValueError) as exc:
            raise serializers.ValidationError(
                "Related objects must be referenced by numeric ID."
            ) from exc
        except self.Meta.model.DoesNotExist as exc:
            raise serializers.ValidationError(f"No related object of ID {data}.") from exc


class NestedSiteSerializer(WritableNestedSerializer):
    class Meta:
        model = Site
        fields = ["id", "name", "slug"]


class DeviceSerializer(serializers.ModelSerializer):
    site = NestedSiteSerializer()

    class Meta:
        model = Device
        fields = ["id", "name", "site", "status"]


class JobSerializer(serializers.Serializer):
    """What NetBox's background-task actions take: the object's id, in the body too."""

    id = serializers.IntegerField()
    note = serializers.CharField(required=False)
