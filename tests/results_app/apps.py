from django.apps import AppConfig


class Config(AppConfig):
    name = "tests.results_app"
    label = "results_app"
    default_auto_field = "django.db.models.BigAutoField"
