"""Models behind the schema app's ModelSerializers, filter sets and related fields."""

import uuid

from django.db import models


class Tag(models.Model):
    """A label, looked up by its slug."""

    slug = models.SlugField(max_length=30, unique=True)

    def __str__(self) -> str:
        return self.slug


class Gadget(models.Model):
    """A row with one column of each common type, for filters and ModelSerializers."""

    KINDS = [("tool", "Tool"), ("toy", "Toy"), ("gizmo", "Gizmo")]

    name = models.CharField(max_length=40, help_text="The gadget's name.")
    kind = models.CharField(max_length=10, choices=KINDS, default="tool")
    price = models.DecimalField(max_digits=6, decimal_places=2, default=0)
    weight = models.FloatField(null=True, blank=True)
    stock = models.PositiveSmallIntegerField(default=0)
    active = models.BooleanField(default=True)
    released = models.DateField(null=True, blank=True)
    checked = models.DateTimeField(null=True, blank=True)
    code = models.UUIDField(default=uuid.uuid4)
    maker = models.ForeignKey(Tag, null=True, blank=True, on_delete=models.SET_NULL)
    tags = models.ManyToManyField(Tag, blank=True, related_name="gadgets")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Event(models.Model):
    """A log line, paged with a cursor."""

    created = models.DateTimeField(auto_now_add=True)
    text = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.text
