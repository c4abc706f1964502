from django.apps import AppConfig


class BlogConfig(AppConfig):
    name = "tests.wagtail_site.blog"
    label = "blog"
    default_auto_field = "django.db.models.BigAutoField"
