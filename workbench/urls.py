"""URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView

from campaigns import api_urls as campaigns_api
from campaigns.accounts import views as account_views
from campaigns.api_errors import api_not_found
from pooling import api_urls as pooling_api
from workbench import api_reference, login_links

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # a forgotten password: a link by e-mail, then a new password (every session and API token ends)
    path("accounts/password-reset/", auth_views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password-reset/<uidb64>/<token>/",
        account_views.PasswordResetConfirm.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    # an organizer's one-time login link for a new account: a page whose button logs in, once
    path("accounts/link/<str:token>/", login_links.login_link, name="login_link"),
    path("accounts/me/", include("campaigns.accounts.urls")),
    path("campaigns/", include("campaigns.urls")),
    path("campaigns/", include("pooling.urls")),
    path("jobs/", include("campaigns.job_pages.urls")),
    path("judging/", include("judging.urls")),
    # the OpenAPI 3 schema of every API endpoint (YAML; JSON with Accept: application/vnd.oai.openapi+json)
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # the interactive reference of that schema (Swagger UI, its files from a package, no CDN)
    path("api/reference/", api_reference.api_reference, name="api_reference"),
    path("api/judging/", include("judging.api_urls")),
    path("api/metrics/", include("metrics.api_urls")),
    path("api/", include((campaigns_api.urlpatterns + pooling_api.urlpatterns, "api"))),
    re_path(r"^api/", api_not_found),  # an unmatched API path: JSON 404, not the HTML page
    path("", include("metrics.urls")),
]

# never Django's debug pages nor a bare "Server Error (500)": 403/404 use the 403.html/404.html templates
handler500 = "workbench.errors.server_error"
