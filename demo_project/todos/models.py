from django.conf import settings
from django.db import models


class Todo(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="todos"
    )
    title = models.CharField(max_length=200, help_text="What needs doing.")
    done = models.BooleanField(default=False, help_text="Whether it is done.")
    due = models.DateField(null=True, blank=True, help_text="When it is due, if ever.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title
