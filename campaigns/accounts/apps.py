"""The accounts app (label ``accounts``): API tokens and the page that manages them."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaigns.accounts"
    label = "accounts"
    verbose_name = "Accounts"
