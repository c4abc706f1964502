from rest_framework import permissions


class IsOwnerOrReadOnly(permissions.BasePermission):
    """Everyone reads; only a snippet's owner changes it."""

    def has_object_permission(self, request, view, obj):
        return request.method in permissions.SAFE_METHODS or obj.owner == request.user
