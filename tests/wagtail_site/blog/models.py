"""The blog of Wagtail's tutorial ("Your first Wagtail site"): an index of dated posts."""

from django.db import models
from wagtail.api import APIField
from wagtail.fields import RichTextField
from wagtail.models import Page
from wagtail.search import index


class BlogIndexPage(Page):
    intro = RichTextField(blank=True)

    api_fields = [APIField("intro")]
    subpage_types = ["blog.BlogPage"]


class BlogPage(Page):
    date = models.DateField("Post date")
    intro = models.CharField(max_length=250)
    body = RichTextField(blank=True)
    featured = models.BooleanField(default=False)

    search_fields = [*Page.search_fields, index.SearchField("intro"), index.SearchField("body")]
    api_fields = [APIField("date"), APIField("intro"), APIField("body"), APIField("featured")]
    parent_page_types = ["blog.BlogIndexPage"]
