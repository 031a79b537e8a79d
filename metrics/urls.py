"""Metrics pages."""

from django.urls import path

from metrics import views

urlpatterns = [
    path("", views.home, name="home"),
]
