"""NetBox's shapes that broke a whole-API exposure (tests/tools/test_foreign_shapes.py):
choices grouped under lazily translated labels, and a reverse relation a serializer names."""

from django.db import models
from django.utils.translation import gettext_lazy as _

#: As NetBox's ChoiceSets group them: the group labels are lazy translations.
STATUS_CHOICES = [
    (_("Live"), [("active", _("Active")), ("staged", _("Staged"))]),
    (_("Gone"), [("retired", _("Retired"))]),
]


class Site(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default="active")

    def __str__(self) -> str:
        return self.name


class Device(models.Model):
    name = models.CharField(max_length=100)
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="devices")
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default="active")

    def __str__(self) -> str:
        return self.name
