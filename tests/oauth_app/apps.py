from django.apps import AppConfig


class OAuthAppConfig(AppConfig):
    name = "tests.oauth_app"
    label = "oauth_app"
