from django.db import models


class Entry(models.Model):
    """A row written by the transaction tests."""

    label = models.CharField(max_length=50)

    def __str__(self) -> str:
        return self.label
