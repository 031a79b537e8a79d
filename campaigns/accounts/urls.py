"""The "My account" page and its token forms."""

from django.urls import path

from campaigns.accounts import views

app_name = "accounts"
urlpatterns = [
    path("", views.account, name="account"),
    path("tokens/", views.api_token_create_page, name="token_create"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke_page, name="token_revoke"),
]
