"""A book catalogue, described for drf-spectacular as its users describe their APIs."""

from django.db import models


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.CharField(max_length=100)
    stars = models.PositiveSmallIntegerField(default=3)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title
