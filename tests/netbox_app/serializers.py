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


class DeviceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Device
        fields = ["id", "name", "site", "status"]


class JobSerializer(serializers.Serializer):
    """What NetBox's background-task actions take: the object's id, in the body too."""

    id = serializers.IntegerField()
    note = serializers.CharField(required=False)
