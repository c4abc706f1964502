"""Code snippets, highlighted with Pygments on save (tutorial parts 1 and 4)."""

from django.db import models
from pygments import highlight
from pygments.formatters.html import HtmlFormatter
from pygments.lexers import get_all_lexers, get_lexer_by_name
from pygments.styles import get_all_styles

LANGUAGES = sorted((aliases[0], name) for name, aliases, *_ in get_all_lexers() if aliases)
STYLES = sorted((style, style) for style in get_all_styles())


class Snippet(models.Model):
    created = models.DateTimeField(auto_now_add=True)
    title = models.CharField(max_length=100, blank=True, default="")
    code = models.TextField()
    linenos = models.BooleanField(default=False)
    language = models.CharField(choices=LANGUAGES, default="python", max_length=100)
    style = models.CharField(choices=STYLES, default="friendly", max_length=100)
    owner = models.ForeignKey("auth.User", related_name="snippets", on_delete=models.CASCADE)
    highlighted = models.TextField()

    class Meta:
        ordering = ["created"]

    def __str__(self) -> str:
        return self.title or f"snippet {self.pk}"

    def save(self, *args, **kwargs):
        formatter = HtmlFormatter(
            style=self.style, linenos="table" if self.linenos else False, full=True
        )
        self.highlighted = highlight(self.code, get_lexer_by_name(self.language), formatter)
        super().save(*args, **kwargs)
