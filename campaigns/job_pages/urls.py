"""The job page (progress, then the result) and the status it polls."""

from django.urls import path

from campaigns.job_pages import views

app_name = "jobs"
urlpatterns = [
    path("<uuid:job_id>/", views.job_page, name="job"),
    path("<uuid:job_id>/status", views.job_status_json, name="status"),
]
