"""A lending library: authors and their books, as a new user of DRF would model them."""

from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100, help_text="The author's full name.")
    born = models.DateField(null=True, blank=True, help_text="Date of birth, if known.")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Book(models.Model):
    class Genre(models.TextChoices):
        NOVEL = "novel", "Novel"
        POETRY = "poetry", "Poetry"
        HISTORY = "history", "History"
        SCIENCE = "sci", "Science"

    title = models.CharField(max_length=200, help_text="The book's title.")
    author = models.ForeignKey(Author, related_name="books", on_delete=models.CASCADE)
    genre = models.CharField(max_length=10, choices=Genre.choices, default=Genre.NOVEL)
    price = models.DecimalField(max_digits=6, decimal_places=2, help_text="Price in euros.")
    in_print = models.BooleanField(default=True, help_text="Whether the book can be ordered.")
    lent = models.BooleanField(default=False, help_text="Whether a reader has it now.")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title
