from django.apps import AppConfig


class LibraryConfig(AppConfig):
    name = "tests.tutorial.library"
    label = "library"
    default_auto_field = "django.db.models.BigAutoField"
