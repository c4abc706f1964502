from django.apps import AppConfig


class Config(AppConfig):
    name = "tests.conformance_app"
    label = "conformance_app"
    default_auto_field = "django.db.models.BigAutoField"
