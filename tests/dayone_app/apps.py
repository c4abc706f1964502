from django.apps import AppConfig


class Config(AppConfig):
    name = "tests.dayone_app"
    label = "dayone_app"
    default_auto_field = "django.db.models.BigAutoField"
