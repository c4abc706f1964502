from django.apps import AppConfig


class SnippetsConfig(AppConfig):
    name = "tests.tutorial.snippets"
    label = "snippets"
    default_auto_field = "django.db.models.BigAutoField"
