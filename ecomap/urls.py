"""Top-level URLs: pages, API, admin, health."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from ecomap.health import healthz

urlpatterns = [
    path("", include("evaluations.inbox.home_urls")),
    path("healthz", healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include("ecomap.api")),
    path("account/", include("ecomap.account_urls")),
    # imports and the unplaced work queue live under catalog/ but in their own module
    path("catalog/", include("catalog.imports.urls")),
    path("catalog/", include("catalog.urls")),
    path("evaluations/", include("evaluations.urls")),
    path("evaluations/", include("evaluations.simulations.urls")),
    path("teams/", include("evaluations.teams.urls")),
    path("inbox/", include("evaluations.inbox.urls")),
    # /clusters/ and an evaluation's /evaluations/<pk>/cluster/ comparison
    path("", include("evaluations.clusters.urls")),
    path("reports/", include("evaluations.reports.urls")),
    path("map/", include("catalog.map.urls")),
    path("matrix/", include("catalog.matrix.urls")),
]

handler400 = "ecomap.errors.bad_request"
handler403 = "ecomap.errors.permission_denied"
handler404 = "ecomap.errors.not_found"
handler500 = "ecomap.errors.server_error"
