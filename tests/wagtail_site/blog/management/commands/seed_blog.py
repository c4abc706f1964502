"""``manage.py seed_blog``: a blog of 25 dated posts under /blog/, an "about" page, and a
user ``editor`` whose API token is printed."""

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token
from wagtail.models import Page, Site

from tests.wagtail_site.blog.models import BlogIndexPage, BlogPage

POSTS = 25


class Command(BaseCommand):
    help = "Seed the blog and print the editor's token."

    def handle(self, *args, **options):
        home = Site.objects.get(is_default_site=True).root_page
        about = home.add_child(instance=Page(title="About", slug="about"))
        about.save_revision().publish()
        blog = home.add_child(
            instance=BlogIndexPage(title="Blog", slug="blog", intro="<p>News.</p>")
        )
        start = datetime.date(2026, 1, 1)
        for number in range(1, POSTS + 1):
            post = BlogPage(
                title=f"Post {number}",
                slug=f"post-{number}",
                date=start + datetime.timedelta(days=number),
                intro=f"The {number}th post" + (", about tomatoes." if number % 5 == 0 else "."),
                body=f"<p>Body of post {number}.</p>",
                featured=number % 4 == 0,
            )
            blog.add_child(instance=post)
        user = get_user_model().objects.create_user("editor", password="a-long-passphrase-7")
        self.stdout.write(Token.objects.create(user=user).key)
