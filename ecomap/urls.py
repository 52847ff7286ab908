"""Top-level URLs: pages, API, admin, health."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from ecomap.account_views import SignInView
from ecomap.accounts.oidc import SignInCallbackView, SignInRequestView
from ecomap.health import healthz, readyz

urlpatterns = [
    path("", include("evaluations.inbox.home_urls")),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/login/", SignInView.as_view(), name="login"),
    # Single sign-on (OIDC): start at the provider, come back with a code. The names are the
    # ones mozilla-django-oidc reverses.
    path("oidc/authenticate/", SignInRequestView.as_view(), name="oidc_authentication_init"),
    path("oidc/callback/", SignInCallbackView.as_view(), name="oidc_authentication_callback"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include("ecomap.api")),
    path("account/", include("ecomap.account_urls")),
    # imports and the unplaced work queue live under catalog/ but in their own module
    path("catalog/", include("catalog.imports.urls")),
    path("catalog/", include("catalog.urls")),
    path("evaluations/", include("evaluations.urls")),
    path("evaluations/", include("evaluations.simulations.urls")),
    # a decision's generated configuration: /evaluations/<pk>/configuration/
    path("evaluations/", include("evaluations.configgen.urls")),
    path("teams/", include("evaluations.teams.urls")),
    path("inbox/", include("evaluations.inbox.urls")),
    # read-only share links of a decision: the key in the path is the only credential
    path("shared/", include("evaluations.sharing.urls")),
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
