"""The "My account" page and its forms: API tokens, sessions, invitations, the password."""

from django.urls import path

from campaigns.accounts import views

app_name = "accounts"
urlpatterns = [
    path("", views.account, name="account"),
    path("tokens/", views.api_token_create_page, name="token_create"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke_page, name="token_revoke"),
    path("sessions/end-others/", views.sessions_end_others, name="sessions_end_others"),
    path("invitations/<int:pk>/accept/", views.invitation_accept_page, name="invitation_accept"),
    path("invitations/<int:pk>/decline/", views.invitation_decline_page, name="invitation_decline"),
    path("password/", views.PasswordChange.as_view(), name="password_change"),
    path("password/choose/", views.PasswordSet.as_view(), name="password_set"),
]
