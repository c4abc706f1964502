from django.apps import AppConfig


class Config(AppConfig):
    name = "tests.spectacular_app"
    label = "spectacular_app"
    default_auto_field = "django.db.models.BigAutoField"
