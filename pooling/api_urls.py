"""REST API routes of pools (mounted under /api/ in the "api" namespace)."""

from django.urls import path

from pooling import apis

urlpatterns = [
    path("campaigns/<slug:slug>/pools/", apis.PoolListApi.as_view(), name="pools"),
    path("campaigns/<slug:slug>/pools/build/", apis.PoolBuildApi.as_view(), name="pool_build"),
    path("campaigns/<slug:slug>/pools/<int:pk>/", apis.PoolDetailApi.as_view(), name="pool"),
    path("campaigns/<slug:slug>/pools/<int:pk>/commit/", apis.PoolCommitApi.as_view(), name="pool_commit"),
    path("campaigns/<slug:slug>/pools/<int:pk>/discard/", apis.PoolDiscardApi.as_view(), name="pool_discard"),
    path("campaigns/<slug:slug>/pools/<int:pk>/export/", apis.PoolExportApi.as_view(), name="pool_export"),
    path(
        "campaigns/<slug:slug>/pools/<int:pk>/diagnostics/",
        apis.PoolDiagnosticsApi.as_view(),
        name="pool_diagnostics",
    ),
]
