"""DRF's quickstart: users and groups, viewed and edited through two ModelViewSets."""

from django.contrib.auth.models import Group, User
from rest_framework import permissions, viewsets

from mcp_tools import mcp_tool

from .serializers import GroupSerializer, UserSerializer


@mcp_tool()
class UserViewSet(viewsets.ModelViewSet):
    """Users of the site, newest first."""

    queryset = User.objects.all().order_by("-date_joined")
    serializer_class = UserSerializer
    permission_classes = [permissions.IsAuthenticated]


@mcp_tool()
class GroupViewSet(viewsets.ModelViewSet):
    """Groups of users, by name."""

    queryset = Group.objects.all().order_by("name")
    serializer_class = GroupSerializer
    permission_classes = [permissions.IsAuthenticated]
