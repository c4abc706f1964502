from django.apps import AppConfig


class MiddlewareAppConfig(AppConfig):
    name = "tests.middleware_app"
    label = "middleware_app"
    default_auto_field = "django.db.models.BigAutoField"
