from django.apps import AppConfig


class NetboxAppConfig(AppConfig):
    name = "tests.netbox_app"
    label = "netbox_app"
    default_auto_field = "django.db.models.BigAutoField"
