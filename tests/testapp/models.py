from django.db import models


class Entry(models.Model):
    """A row written by the transaction tests."""

    label = models.CharField(max_length=50)
