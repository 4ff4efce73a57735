from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "porting_site.accounts"
    label = "accounts"
