"""The one model of the bench: a row to retrieve and to create, owned by the token's user."""

from django.conf import settings
from django.db import models


class Item(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bench_items"
    )
    name = models.CharField(max_length=100, help_text="What the item is called.")
    quantity = models.IntegerField(default=0, help_text="How many there are.")
    active = models.BooleanField(default=True, help_text="Whether it is in use.")
    note = models.CharField(max_length=200, blank=True, help_text="A free-form remark.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name
