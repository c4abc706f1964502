from django.apps import AppConfig


class Config(AppConfig):
    name = "tests.schema_app"
    label = "schema_app"
    default_auto_field = "django.db.models.BigAutoField"
