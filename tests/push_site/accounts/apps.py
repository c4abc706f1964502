from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "tests.push_site.accounts"
    label = "push_accounts"
