"""NetBox's schema class, in its shape: an AutoSchema subclass set as the project's
``DEFAULT_SCHEMA_CLASS`` that post-processes what spectacular's own AutoSchema answers.

A body's nested related object (a ``WritableNestedSerializer``) is written by its id, so for
a writable method it swaps the view's serializer for a ``Writable…`` variant where that field
is the model's own (a primary key); GET operations gain its ``brief`` query parameter; a
description is worked out from the view's queryset.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from .serializers import WritableNestedSerializer

WRITABLE_ACTIONS = ("PATCH", "POST", "PUT")


class NetBoxAutoSchema(AutoSchema):
    writable_serializers: dict[type, type] = {}

    def get_request_serializer(self):
        serializer = super().get_request_serializer()
        if serializer is not None and self.method in WRITABLE_ACTIONS:
            writable_class = self.get_writable_class(serializer)  # reads serializer.fields
            if writable_class is not None:
                serializer = writable_class(context=serializer.context)
        return serializer

    def get_response_serializers(self):
        return super().get_response_serializers()

    def get_writable_class(self, serializer):
        properties = {}
        for child_name, child in serializer.fields.items():
            if isinstance(child, WritableNestedSerializer) and not child.read_only:
                properties[child_name] = None  # the model's own field takes its place
        if not properties:
            return None
        if type(serializer) not in self.writable_serializers:
            name = "Writable" + type(serializer).__name__
            self.writable_serializers[type(serializer)] = type(
                name, (type(serializer),), properties
            )
        return self.writable_serializers[type(serializer)]

    def get_override_parameters(self):
        params = super().get_override_parameters()
        if self.method == "GET":
            brief = OpenApiParameter(
                "brief", OpenApiTypes.BOOL, description="Return only brief fields."
            )
            params = [*params, brief]
        return params

    def get_description(self):
        if self.view.__doc__:
            return super().get_description()
        model_name = self.view.queryset.model._meta.verbose_name
        if "{" in self.path:
            return f"{self.method.capitalize()} a {model_name} object."
        return f"{self.method.capitalize()} a list of {model_name} objects."
